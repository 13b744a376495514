import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CAPACITY_CHANGE_REASONS,
  type CapacityChangeReason,
  capacityChangedDetail,
} from '../../../shared/core/contracts/capacity-changed';
import { podsPendingDetail } from '../../../shared/core/contracts/pods-pending';
import {
  EVENT_RULES,
  type EventPattern,
  matchesEventPattern,
  routeEvent,
  SCHEDULES,
} from '../../../shared/core/contracts/routing';
import { WATCHER_EVENT_SOURCE } from '../../../shared/core/contracts/watcher-source';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/aws-events/${name}.json`, import.meta.url), 'utf8'));

describe('routeEvent', () => {
  it.each([
    ['spot-interruption-warning'],
    ['spot-interruption-warning-az-arn'],
    ['capacity-reservation-interruption-warning'],
    ['rebalance-recommendation'],
    ['state-change-stopping'],
    ['state-change-terminated'],
    ['health-scheduled-change'],
  ])('sends the real %s event from the default bus to the interruption queue, once', (name) => {
    expect(routeEvent('default', fixture(name))).toEqual(['interruption']);
  });

  it('routes no autoscaling event, and nothing on the default bus to the cluster functions', () => {
    expect(routeEvent('default', fixture('unknown-detail-type'))).toEqual([]);
    expect(routeEvent('default', fixture('asg-terminate-lifecycle-action'))).toEqual([]);
    expect(routeEvent('cluster', fixture('spot-interruption-warning'))).toEqual([]);
  });

  it('sends the watcher’s hints on the cluster bus to the loops that act on them', () => {
    const pending = {
      source: WATCHER_EVENT_SOURCE,
      'detail-type': 'PodsPending',
      detail: podsPendingDetail({ cluster: 'demo', pods: [{ namespace: 'a', name: 'b', uid: 'c' }] }),
    };
    expect(routeEvent('cluster', pending)).toEqual(['provisioner']);
    expect(routeEvent('cluster', changed(['nodeReady']))).toEqual([
      'disruption',
      'termination',
      'provisioner',
    ]);
    expect(routeEvent('default', pending)).toEqual([]);
  });

  it('wakes the provisioner and the termination function for every reason but the disruption function’s own timers', () => {
    for (const reason of CAPACITY_CHANGE_REASONS) {
      const own = reason === 'validationDue' || reason === 'consolidatableDue';
      expect(routeEvent('cluster', changed([reason])), reason).toEqual(
        own ? ['disruption'] : ['disruption', 'termination', 'provisioner'],
      );
      expect(routeEvent('cluster', changed([reason, 'consolidatableDue'])), reason).toEqual(
        own ? ['disruption'] : ['disruption', 'termination', 'provisioner'],
      );
    }
    expect(routeEvent('cluster', changed([]))).toEqual(['disruption']);
  });
});

/** A `CapacityChanged` event from the watcher counting one of each of `reasons`. */
function changed(reasons: readonly CapacityChangeReason[]): unknown {
  return {
    source: WATCHER_EVENT_SOURCE,
    'detail-type': 'CapacityChanged',
    detail: capacityChangedDetail({
      cluster: 'demo',
      reasons: Object.fromEntries(reasons.map((reason) => [reason, { count: 1, names: ['x'] }])),
    }),
  };
}

describe('the rules', () => {
  it('keep the ids the stack deploys them by (a new id replaces a deployed rule) and say what each is for', () => {
    expect(EVENT_RULES.map((r) => `${r.bus}:${r.id}→${r.target}`)).toStrictEqual([
      'cluster:PodsPending→provisioner',
      'cluster:CapacityChangedDisruption→disruption',
      'cluster:CapacityChangedTermination→termination',
      'cluster:CapacityChangedProvisioner→provisioner',
      'default:ScheduledChange→interruption',
      'default:SpotInterruption→interruption',
      'default:Rebalance→interruption',
      'default:InstanceStateChange→interruption',
      'default:CapacityReservationInterruption→interruption',
    ]);
    expect(SCHEDULES.map((r) => `${r.id}→${r.target}/${r.everySeconds}s`)).toStrictEqual([
      'ProvisionerSchedule→provisioner/60s',
      'DisruptionSchedule→disruption/60s',
      'TerminationSchedule→termination/60s',
    ]);
    for (const rule of [...EVENT_RULES, ...SCHEDULES])
      expect(rule.description, rule.id).toMatch(/^[A-Z].+\.$/);
  });
});

describe('matchesEventPattern', () => {
  it('needs every field, matches any listed value, array elements, prefixes and nested patterns', () => {
    const pattern = { source: ['aws.ec2'], detail: { state: ['stopped', { prefix: 'shut' }] } };
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'stopped' } })).toBe(true);
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'shutting-down' } })).toBe(
      true,
    );
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'running' } })).toBe(false);
    expect(matchesEventPattern(pattern, { source: 'aws.ec2' })).toBe(false);
    expect(
      matchesEventPattern(pattern, { source: ['x', 'aws.ec2'], detail: { state: ['a', 'stopped'] } }),
    ).toBe(true);
    expect(matchesEventPattern(pattern, null)).toBe(false);
  });

  it('matches numbers within every bound of a numeric match, and nothing that is not a number', () => {
    const within = (numeric: (string | number)[], value: unknown) =>
      matchesEventPattern({ n: [{ numeric } as never] }, { n: value });
    expect(within(['>', 0], 1)).toBe(true);
    expect(within(['>', 0], 0)).toBe(false);
    expect(within(['>=', 0], 0)).toBe(true);
    expect(within(['>=', 0], -1)).toBe(false);
    expect(within(['<', 5], 4.5)).toBe(true);
    expect(within(['<', 5], 5)).toBe(false);
    expect(within(['<=', 5], 5)).toBe(true);
    expect(within(['<=', 5], 6)).toBe(false);
    expect(within(['=', 3], 3)).toBe(true);
    expect(within(['=', 3], 4)).toBe(false);
    expect(within(['>', 0, '<=', 5], 5)).toBe(true);
    expect(within(['>', 0, '<=', 5], 6)).toBe(false);
    expect(within(['>', 0, '<=', 5], 0)).toBe(false);
    expect(within(['>', 0], '1')).toBe(false);
    expect(within(['>', 0], [0, 2])).toBe(true);
  });

  it('matches `$or` when one of its patterns matches the same object, beside the other fields', () => {
    const pattern: EventPattern = { source: ['a'], detail: { $or: [{ x: [1] }, { y: { z: ['b'] } }] } };
    expect(matchesEventPattern(pattern, { source: 'a', detail: { x: 1 } })).toBe(true);
    expect(matchesEventPattern(pattern, { source: 'a', detail: { x: 2, y: { z: 'b' } } })).toBe(true);
    expect(matchesEventPattern(pattern, { source: 'a', detail: { x: 2, y: { z: 'c' } } })).toBe(false);
    expect(matchesEventPattern(pattern, { source: 'b', detail: { x: 1 } })).toBe(false);
    expect(matchesEventPattern(pattern, { source: 'a', detail: {} })).toBe(false);
  });
});
