import { describe, expect, it } from 'vitest';
import {
  AWS_REPAIR_POLICIES,
  decideNodeRepairs,
  type RepairPolicy,
} from '../../../shared/core/lifecycle/node-repair';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodeCondition, StateNode } from '../../../shared/core/state/cluster-state';

/** Cases from kubernetes-sigs/karpenter pkg/controllers/node/health/suite_test.go. */

const NOW = Date.parse('2026-11-27T10:00:00Z');
const MINUTE = 60_000;
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const BAD_NODE: RepairPolicy = {
  conditionType: 'BadNode',
  conditionStatus: 'False',
  tolerationMs: 30 * MINUTE,
};

function pair(i: number, conditions: NodeCondition[] = [], pool: string | null = 'default') {
  const providerID = `aws:///us-east-1a/i-${String(i).padStart(17, '0')}`;
  const labels: Record<string, string> = pool ? { 'karpenter.sh/nodepool': pool } : {};
  const node: StateNode = {
    kind: 'node',
    name: `node-${i}`,
    labels,
    taints: [],
    allocatable: {},
    pods: [],
    providerID,
    ...(conditions.length > 0 ? { conditions } : {}),
  };
  const nodeClaim: NodeClaim = {
    name: `claim-${i}`,
    labels,
    annotations: {},
    finalizers: [],
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [],
      resources: { requests: {} },
      taints: [],
      startupTaints: [],
    },
    status: { providerID },
  };
  return { node, nodeClaim };
}

const bad = (since: number, type = 'BadNode', status = 'False'): NodeCondition => ({
  type,
  status,
  lastTransitionTime: at(since),
});

function decide(
  pairs: ReturnType<typeof pair>[],
  policies: readonly RepairPolicy[] = [BAD_NODE],
  extraNodes: StateNode[] = [],
) {
  return decideNodeRepairs({
    now: NOW,
    nodes: [...pairs.map((p) => p.node), ...extraNodes],
    nodeClaims: pairs.map((p) => p.nodeClaim),
    policies,
  });
}

describe('decideNodeRepairs: Reconciliation', () => {
  it('deletes a node unhealthy past its toleration, with the termination timestamp now', () => {
    expect(decide([pair(1, [bad(NOW - 30 * MINUTE)]), pair(2), pair(3), pair(4), pair(5)])).toStrictEqual([
      {
        kind: 'repair',
        node: 'node-1',
        nodeClaim: 'claim-1',
        nodePool: 'default',
        condition: 'BadNode',
        terminationTimestamp: at(NOW),
        deleteNodeClaim: true,
      },
    ]);
  });

  it('does not delete when the type or status does not match, or the toleration has not passed', () => {
    expect(decide([pair(1, [bad(0, 'GoodNode')])])).toEqual([]);
    expect(decide([pair(1, [bad(0, 'BadNode', 'True')])])).toEqual([]);
    expect(decide([pair(1, [bad(NOW - 30 * MINUTE + 1000)])])).toEqual([]);
    expect(decide([pair(1)])).toEqual([]);
  });

  it('counts a condition without lastTransitionTime (or an unreadable one) from the epoch', () => {
    expect(decide([pair(1, [{ type: 'BadNode', status: 'False' }])])).toHaveLength(1);
    expect(
      decide([pair(1, [{ type: 'BadNode', status: 'False', lastTransitionTime: 'soon' }])]),
    ).toHaveLength(1);
  });

  it('goes by the matching condition whose toleration ends first', () => {
    const policies: RepairPolicy[] = [
      BAD_NODE,
      { conditionType: 'AlsoBad', conditionStatus: 'Unknown', tolerationMs: 10 * MINUTE },
    ];
    const p = pair(1, [bad(NOW - 20 * MINUTE), bad(NOW - 10 * MINUTE, 'AlsoBad', 'Unknown')]);
    expect(decide([p], policies)).toMatchObject([{ kind: 'repair', condition: 'AlsoBad' }]);
    const later = pair(1, [bad(NOW - 40 * MINUTE), bad(NOW - 5 * MINUTE, 'AlsoBad', 'Unknown')]);
    expect(decide([later], policies)).toMatchObject([{ kind: 'repair', condition: 'BadNode' }]);
    const neither = pair(1, [bad(NOW - 25 * MINUTE), bad(NOW - 5 * MINUTE, 'AlsoBad', 'Unknown')]);
    expect(decide([neither], policies)).toEqual([]);
    // A tie goes to the policy listed first (findUnhealthyConditions replaces only a later one).
    const tie = pair(1, [bad(NOW - 30 * MINUTE), bad(NOW - 10 * MINUTE, 'AlsoBad', 'Unknown')]);
    expect(decide([tie], policies)).toMatchObject([{ kind: 'repair', condition: 'BadNode' }]);
  });

  it('keeps a termination timestamp that has passed and brings a later one forward', () => {
    const past = pair(1, [bad(0)]);
    const withPast = {
      ...past,
      nodeClaim: {
        ...past.nodeClaim,
        annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': at(NOW - 3 * MINUTE) },
      },
    };
    expect(decide([withPast])[0]).not.toHaveProperty('terminationTimestamp');
    const withLater = {
      ...past,
      nodeClaim: {
        ...past.nodeClaim,
        annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': at(NOW + MINUTE) },
      },
    };
    expect(decide([withLater])[0]).toMatchObject({ terminationTimestamp: at(NOW) });
    const garbled = {
      ...past,
      nodeClaim: { ...past.nodeClaim, annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': 'x' } },
    };
    expect(decide([garbled])[0]).toMatchObject({ terminationTimestamp: at(NOW) });
    const exactlyNow = {
      ...past,
      nodeClaim: {
        ...past.nodeClaim,
        annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': at(NOW) },
      },
    };
    expect(decide([exactlyNow])[0]).toMatchObject({ terminationTimestamp: at(NOW) });
  });

  it('does not delete a NodeClaim already being deleted, but still brings its termination forward', () => {
    const p = pair(1, [bad(0)]);
    const deleting = { ...p, nodeClaim: { ...p.nodeClaim, deletionTimestamp: at(NOW - MINUTE) } };
    expect(decide([deleting])).toMatchObject([
      { kind: 'repair', deleteNodeClaim: false, terminationTimestamp: at(NOW) },
    ]);
  });

  it('repairs only Nodes with a NodeClaim', () => {
    const lone = pair(1, [bad(0)]).node;
    expect(decide([], [BAD_NODE], [lone])).toEqual([]);
  });
});

describe('decideNodeRepairs: the 20 % cap', () => {
  it('blocks repair when more than 20 % of the NodePool’s nodes are unhealthy', () => {
    const pairs = Array.from({ length: 10 }, (_, i) => pair(i, i < 3 ? [bad(0)] : []));
    expect(decide(pairs)).toStrictEqual(
      [0, 1, 2].map((i) => ({
        kind: 'blocked',
        node: `node-${i}`,
        nodeClaim: `claim-${i}`,
        nodePool: 'default',
        message: 'more than 20% nodes are unhealthy in the nodepool',
      })),
    );
  });

  it('allows 20 % exactly, counting unhealthy nodes whatever their toleration', () => {
    const two = Array.from({ length: 10 }, (_, i) => pair(i, i < 2 ? [bad(0)] : []));
    expect(decide(two).map((d) => d.kind)).toEqual(['repair', 'repair']);
    const young = Array.from({ length: 10 }, (_, i) => pair(i, i < 2 ? [bad(0)] : i < 3 ? [bad(NOW)] : []));
    expect(decide(young).map((d) => d.kind)).toEqual(['blocked', 'blocked']);
  });

  it('rounds up for a small NodePool: one of three may be unhealthy', () => {
    expect(decide([pair(0, [bad(0)]), pair(1), pair(2)]).map((d) => d.kind)).toEqual(['repair']);
    expect(decide([pair(0, [bad(0)]), pair(1, [bad(0)]), pair(2)]).map((d) => d.kind)).toEqual([
      'blocked',
      'blocked',
    ]);
  });

  it('counts a node matching any one of the policies as unhealthy', () => {
    const policies: RepairPolicy[] = [
      BAD_NODE,
      { conditionType: 'AlsoBad', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
    ];
    const pairs = [pair(0, [bad(0)]), pair(1, [bad(0, 'AlsoBad')]), pair(2), pair(3), pair(4)];
    expect(decide(pairs, policies).map((d) => d.kind)).toEqual(['blocked', 'blocked']);
  });

  it('counts only the NodePool’s own nodes', () => {
    const others = Array.from({ length: 5 }, (_, i) => pair(10 + i, [bad(0)], 'other').node);
    expect(decide([pair(0, [bad(0)]), pair(1), pair(2)], [BAD_NODE], others).map((d) => d.kind)).toEqual([
      'repair',
    ]);
  });

  it('caps a NodeClaim without a NodePool by the whole cluster (Karpenter’s wording)', () => {
    const pairs = Array.from({ length: 10 }, (_, i) => pair(i, i < 3 ? [bad(0)] : [], null));
    expect(decide(pairs)[0]).toStrictEqual({
      kind: 'blocked',
      node: 'node-0',
      nodeClaim: 'claim-0',
      message: 'more then 20% nodes are unhealthy in the cluster',
    });
    const healthyCluster = [pair(0, [bad(0)], null), pair(1), pair(2), pair(3), pair(4)];
    expect(decide(healthyCluster)).toMatchObject([{ kind: 'repair', node: 'node-0' }]);
    expect(decide(healthyCluster)[0]).not.toHaveProperty('nodePool');
  });
});

describe('AWS_REPAIR_POLICIES (cloudprovider.go RepairPolicies)', () => {
  it('replaces a node NotReady or Unknown for 30 minutes and one with failed accelerated hardware for 10', () => {
    const policies = AWS_REPAIR_POLICIES;
    const one = (c: NodeCondition) => decide([pair(0, [c]), pair(1), pair(2), pair(3), pair(4)], policies);
    expect(one(bad(NOW - 30 * MINUTE, 'Ready', 'False'))).toHaveLength(1);
    expect(one(bad(NOW - 29 * MINUTE, 'Ready', 'False'))).toHaveLength(0);
    expect(one(bad(NOW - 30 * MINUTE, 'Ready', 'Unknown'))).toHaveLength(1);
    expect(one(bad(NOW - 29 * MINUTE, 'Ready', 'Unknown'))).toHaveLength(0);
    expect(one(bad(NOW - 10 * MINUTE, 'AcceleratedHardwareReady', 'False'))).toHaveLength(1);
    expect(one(bad(NOW - 9 * MINUTE, 'AcceleratedHardwareReady', 'False'))).toHaveLength(0);
    for (const type of ['StorageReady', 'NetworkingReady', 'KernelReady', 'ContainerRuntimeReady']) {
      expect(one(bad(NOW - 30 * MINUTE, type, 'False'))).toHaveLength(1);
      expect(one(bad(NOW - 29 * MINUTE, type, 'False'))).toHaveLength(0);
    }
    expect(one(bad(0, 'Ready', 'True'))).toHaveLength(0);
    expect(one(bad(0, 'KernelReady', 'Unknown'))).toHaveLength(0);
    expect(
      decideNodeRepairs({
        now: NOW,
        nodes: [pair(0, [bad(0, 'Ready')]).node],
        nodeClaims: [pair(0).nodeClaim],
      }),
    ).toHaveLength(1);
  });
});
