import { describe, expect, it } from 'vitest';
import { onNode, TERMINATING_ON_INTERRUPTION_EVENT } from '../../../shared/core/interruption/decide';
import {
  decideInstanceHealth,
  INSTANCE_UNHEALTHY_EVENT,
  UNHEALTHY_THRESHOLD_MS,
  unhealthyCategories,
} from '../../../shared/core/interruption/instance-health';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { InstanceHealthReport, InstanceStatusCheck } from '../../../shared/core/ports/cloud';

/**
 * Cases from aws/karpenter-provider-aws pkg/providers/instancestatus/suite_test.go and
 * pkg/controllers/interruption/suite_test.go (instance status).
 */

const NOW = Date.parse('2026-11-27T10:00:00Z');
const ID = 'i-0123456789abcdef0';

function claim(overrides: Partial<NodeClaim> = {}): NodeClaim {
  return {
    name: 'default-abcde',
    uid: 'uid',
    labels: {},
    annotations: {},
    finalizers: [],
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [],
      resources: { requests: {} },
      taints: [],
      startupTaints: [],
    },
    status: { providerID: `aws:///us-east-1a/${ID}`, nodeName: 'ip-10-0-0-1' },
    ...overrides,
  };
}

const failed = (category: InstanceStatusCheck['category'], since?: number): InstanceStatusCheck => ({
  category,
  name: category === 'EventStatus' ? 'instance-retirement' : 'reachability',
  status: 'failed',
  ...(since === undefined ? {} : { impairedSince: since }),
});
const report = (...checks: InstanceStatusCheck[]): InstanceHealthReport => ({ instanceId: ID, checks });
const LONG_AGO = NOW - UNHEALTHY_THRESHOLD_MS;

describe('unhealthyCategories (instancestatus.go List)', () => {
  it('keeps an impaired instance or system check only once it has failed for two minutes', () => {
    expect(
      unhealthyCategories(report(failed('SystemStatus', NOW - UNHEALTHY_THRESHOLD_MS + 1)), NOW),
    ).toEqual([]);
    expect(unhealthyCategories(report(failed('SystemStatus', LONG_AGO)), NOW)).toEqual(['SystemStatus']);
    expect(unhealthyCategories(report(failed('InstanceStatus', LONG_AGO - 1)), NOW)).toEqual([
      'InstanceStatus',
    ]);
  });

  it('counts a failed check without ImpairedSince from the epoch (Go zero time)', () => {
    expect(unhealthyCategories(report(failed('InstanceStatus')), NOW)).toEqual(['InstanceStatus']);
  });

  it('takes a scheduled event at once, whatever its time', () => {
    expect(unhealthyCategories(report(failed('EventStatus', NOW)), NOW)).toEqual(['EventStatus']);
  });

  it('ignores passed, initializing and insufficient-data checks and EBS status', () => {
    const not = (status: string): InstanceStatusCheck => ({ ...failed('InstanceStatus', 0), status });
    expect(
      unhealthyCategories(report(not('passed'), not('initializing'), not('insufficient-data')), NOW),
    ).toEqual([]);
    expect(unhealthyCategories(report(failed('EBSStatus', 0)), NOW)).toEqual([]);
  });

  it('reports each category once, in a fixed order', () => {
    const checks = [
      failed('EventStatus'),
      failed('SystemStatus', 0),
      failed('InstanceStatus', 0),
      failed('SystemStatus', 0),
    ];
    expect(unhealthyCategories(report(...checks), NOW)).toEqual([
      'InstanceStatus',
      'SystemStatus',
      'EventStatus',
    ]);
  });
});

describe('decideInstanceHealth (instancestatus_controller.go → handleNodeClaim)', () => {
  it('terminates forcefully for an impaired status: the termination timestamp now, delete, Events', () => {
    expect(decideInstanceHealth([report(failed('SystemStatus', LONG_AGO))], [claim()], NOW)).toStrictEqual([
      {
        instanceId: ID,
        nodeClaim: 'default-abcde',
        node: 'ip-10-0-0-1',
        categories: ['SystemStatus'],
        terminationTimestamp: '2026-11-27T10:00:00Z',
        deleteNodeClaim: true,
        events: [INSTANCE_UNHEALTHY_EVENT, TERMINATING_ON_INTERRUPTION_EVENT],
      },
    ]);
    // events.go `Unhealthy` and `TerminatingOnInterruption`.
    expect([INSTANCE_UNHEALTHY_EVENT, TERMINATING_ON_INTERRUPTION_EVENT]).toStrictEqual([
      {
        type: 'Warning',
        reason: 'InstanceUnhealthy',
        message: 'An unhealthy warning was triggered for the instance',
      },
      {
        type: 'Warning',
        reason: 'TerminatingOnInterruption',
        message: 'Interruption triggered termination for the NodeClaim',
      },
    ]);
    // On the Node, events.go words it for the Node; every other Event reads the same on both.
    expect(onNode(TERMINATING_ON_INTERRUPTION_EVENT)).toStrictEqual({
      type: 'Warning',
      reason: 'TerminatingOnInterruption',
      message: 'Interruption triggered termination for the Node',
    });
    expect(onNode(INSTANCE_UNHEALTHY_EVENT)).toBe(INSTANCE_UNHEALTHY_EVENT);
  });

  it('terminates forcefully when a status is impaired as well as an event scheduled', () => {
    const [decision] = decideInstanceHealth(
      [report(failed('EventStatus'), failed('InstanceStatus', 0))],
      [claim()],
      NOW,
    );
    expect(decision).toMatchObject({
      categories: ['InstanceStatus', 'EventStatus'],
      terminationTimestamp: '2026-11-27T10:00:00Z',
    });
  });

  it('cordons and drains for a scheduled event: delete without the termination timestamp', () => {
    const [decision] = decideInstanceHealth([report(failed('EventStatus'))], [claim()], NOW);
    expect(decision?.terminationTimestamp).toBeUndefined();
    expect(decision?.deleteNodeClaim).toBe(true);
  });

  it('keeps a termination timestamp already there (annotateTerminationTimestamp)', () => {
    const annotated = claim({
      annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': '2030-01-01T00:00:00Z' },
    });
    const [decision] = decideInstanceHealth([report(failed('InstanceStatus', 0))], [annotated], NOW);
    expect(decision?.terminationTimestamp).toBeUndefined();
    expect(decision?.deleteNodeClaim).toBe(true);
  });

  it('only annotates a NodeClaim already being deleted: no second delete, no repeated Events', () => {
    const deleting = claim({ deletionTimestamp: '2026-11-27T09:59:00Z' });
    const [decision] = decideInstanceHealth([report(failed('InstanceStatus', 0))], [deleting], NOW);
    expect(decision).toMatchObject({
      deleteNodeClaim: false,
      events: [],
      terminationTimestamp: '2026-11-27T10:00:00Z',
    });
  });

  it('names no Node before the NodeClaim registered', () => {
    const unregistered = claim({ status: { providerID: `aws:///us-east-1a/${ID}` } });
    const [decision] = decideInstanceHealth([report(failed('EventStatus'))], [unregistered], NOW);
    expect(decision).not.toHaveProperty('node');
  });

  it('leaves instances that are not this cluster’s NodeClaims’, and healthy ones', () => {
    const other: InstanceHealthReport = {
      instanceId: 'i-0fffffffffffffff0',
      checks: [failed('EventStatus')],
    };
    expect(decideInstanceHealth([other], [claim()], NOW)).toEqual([]);
    expect(decideInstanceHealth([report(failed('SystemStatus', NOW))], [claim()], NOW)).toEqual([]);
    expect(decideInstanceHealth([report()], [claim()], NOW)).toEqual([]);
  });
});
