import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { capacityChangedDetail } from '../../shared/core/contracts/capacity-changed';
import { podsPendingDetail } from '../../shared/core/contracts/pods-pending';
import {
  CLUSTER_BUS_RULES,
  type EventPattern,
  INTERRUPTION_RULES,
  matchesEventPattern,
  SCHEDULES,
} from '../../shared/core/contracts/routing';
import { WATCHER_EVENT_SOURCE } from '../../shared/core/contracts/watcher-source';
import { removeTestApps, synthStack } from './test-app';

afterAll(removeTestApps);

const FIXTURES = new URL('../fixtures/aws-events/', import.meta.url);
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

/** The synthesized rules: logical-id prefix (`PodliftRouting<id>`) → properties. */
function synthesizedRules(): Map<string, Record<string, unknown>> {
  const { template } = synthStack();
  const rules = new Map<string, Record<string, unknown>>();
  for (const [logicalId, rule] of Object.entries(template.findResources('AWS::Events::Rule'))) {
    rules.set(logicalId.replace(/^PodliftRouting/, '').slice(0, -8), rule.Properties);
  }
  return rules;
}

const rules = synthesizedRules();
const patternOf = (id: string) => rules.get(id)?.EventPattern as EventPattern;

/** Which synthesized default-bus rules (by id) match `event` under EventBridge's pattern semantics. */
const defaultBusMatches = (event: unknown) =>
  INTERRUPTION_RULES.filter((rule) => matchesEventPattern(patternOf(rule.id), event)).map((rule) => rule.id);

describe('rules come from the routing data', () => {
  it('creates exactly one rule per routing entry and schedule, nothing else', () => {
    expect([...rules.keys()].sort()).toEqual(
      [...CLUSTER_BUS_RULES, ...INTERRUPTION_RULES, ...SCHEDULES].map((r) => r.id).sort(),
    );
  });

  it('puts the cluster rules on the cluster bus and the interruption rules on the default bus, patterns as data', () => {
    for (const rule of CLUSTER_BUS_RULES) {
      expect(rules.get(rule.id)).toMatchObject({
        EventBusName: { Ref: expect.stringMatching(/^PodliftRoutingBus/) },
      });
      expect(patternOf(rule.id)).toEqual(rule.pattern);
    }
    for (const rule of INTERRUPTION_RULES) {
      expect(rules.get(rule.id)?.EventBusName).toBeUndefined();
      expect(patternOf(rule.id)).toEqual(rule.pattern);
      expect(rules.get(rule.id)?.Targets).toEqual([
        {
          Arn: {
            'Fn::GetAtt': [expect.stringMatching(/^PodliftRoutingInterruptionQueue[0-9A-F]{8}$/), 'Arn'],
          },
          Id: 'Target0',
        },
      ]);
    }
  });

  it('targets each function the data names, schedules at their rate without retries', () => {
    type Target = { Arn: { 'Fn::GetAtt': [string, string] }; RetryPolicy?: unknown };
    const targetOf = (id: string) => (rules.get(id)?.Targets as Target[] | undefined)?.[0];
    const fnOf = (id: string) => targetOf(id)?.Arn['Fn::GetAtt'][0];
    for (const rule of CLUSTER_BUS_RULES) {
      expect(fnOf(rule.id)).toMatch(new RegExp(`^PodliftFunctions${rule.target}`, 'i'));
    }
    for (const schedule of SCHEDULES) {
      expect(fnOf(schedule.id)).toMatch(new RegExp(`^PodliftFunctions${schedule.target}`, 'i'));
      expect(rules.get(schedule.id)?.ScheduleExpression).toBe('rate(1 minute)');
      expect(schedule.everySeconds).toBe(60);
      expect(targetOf(schedule.id)?.RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
    }
  });
});

describe('synthesized patterns against the real event fixtures (EventBridge semantics)', () => {
  const expected: Record<string, string[]> = {
    'spot-interruption-warning.json': ['SpotInterruption'],
    'spot-interruption-warning-az-arn.json': ['SpotInterruption'],
    'rebalance-recommendation.json': ['Rebalance'],
    'capacity-reservation-interruption-warning.json': ['CapacityReservationInterruption'],
    'health-scheduled-change.json': ['ScheduledChange'],
    // The Health rule forwards every AWS Health event, as Karpenter's does; the function classifies.
    'health-issue-not-scheduled-change.json': ['ScheduledChange'],
    'state-change-pending.json': ['InstanceStateChange'],
    'state-change-running.json': ['InstanceStateChange'],
    'state-change-stopping.json': ['InstanceStateChange'],
    'state-change-stopped.json': ['InstanceStateChange'],
    'state-change-shutting-down.json': ['InstanceStateChange'],
    'state-change-terminated.json': ['InstanceStateChange'],
    'unknown-detail-type.json': [],
    'malformed-not-an-event.json': [],
    'asg-terminate-lifecycle-action.json': [],
  };

  it('covers every event fixture', () => {
    const events = readdirSync(FIXTURES).filter(
      (f) => f.endsWith('.json') && !f.startsWith('sqs-') && !f.startsWith('asg-lifecycle-direct-sqs'),
    );
    expect(Object.keys(expected).sort()).toEqual(events.sort());
  });

  for (const [file, ruleIds] of Object.entries(expected)) {
    it(`${file} → ${ruleIds.join(', ') || 'no rule'}`, () => {
      expect(defaultBusMatches(fixture(file))).toEqual(ruleIds);
    });
  }

  it('sends watcher events to the functions the data names, and nothing from another source', () => {
    const event = (detailType: string, detail: unknown, source = WATCHER_EVENT_SOURCE) => ({
      version: '0',
      id: 'e1',
      source,
      'detail-type': detailType,
      account: '123456789012',
      time: '2025-03-14T10:15:00Z',
      region: 'us-east-1',
      resources: [],
      detail,
    });
    const pending = event(
      'PodsPending',
      podsPendingDetail({ cluster: 'demo', pods: [{ namespace: 'default', name: 'web-1', uid: 'u1' }] }),
    );
    const changed = (reason: 'nodeAdded' | 'consolidatableDue') =>
      event(
        'CapacityChanged',
        capacityChangedDetail({ cluster: 'demo', reasons: { [reason]: { count: 1, names: ['n'] } } }),
      );
    const matches = (e: unknown) =>
      CLUSTER_BUS_RULES.filter((r) => matchesEventPattern(patternOf(r.id), e)).map((r) => r.target);
    expect(matches(pending)).toEqual(['provisioner']);
    expect(matches(changed('nodeAdded'))).toEqual(['disruption', 'termination', 'provisioner']);
    expect(matches(changed('consolidatableDue'))).toEqual(['disruption']);
    expect(matches({ ...pending, source: 'someone.else' })).toEqual([]);
  });
});
