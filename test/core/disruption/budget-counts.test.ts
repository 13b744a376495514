import { describe, expect, it } from 'vitest';
import { poolDisruptionCounts } from '../../../shared/core/disruption/methods';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const initialized: Condition = {
  type: 'Initialized',
  status: 'True',
  reason: 'Initialized',
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
};

/** A Ready Node of `pool` and its initialized NodeClaim; `node`/`claim` change either. */
function member(
  name: string,
  pool = 'default',
  change: { node?: Partial<StateNode>; claim?: Partial<NodeClaim>; conditions?: Condition[] } = {},
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({ name, nodePool: pool, lifecycle: { providerID, ready: true } });
  const claim = nodeClaim({
    name: `claim-${name}`,
    nodePool: pool,
    creationTimestamp: new Date(T0).toISOString(),
    status: { providerID, conditions: change.conditions ?? [initialized] },
  });
  return [
    { ...node, ...change.node },
    { ...claim, ...change.claim },
  ];
}

const counts = (members: readonly [StateNode, NodeClaim][]) =>
  Object.fromEntries(poolDisruptionCounts(snapshotOf(members)));

// kubernetes-sigs/karpenter pkg/controllers/disruption/helpers.go `BuildDisruptionBudgetMapping`:
// managed, initialized nodes count towards their NodePool's total; of those, one whose Node is
// not Ready or which is marked for deletion is disrupting.
describe('poolDisruptionCounts', () => {
  it('counts the initialized nodes of each NodePool, none disrupting when all are Ready', () => {
    expect(counts([member('a'), member('b'), member('c', 'batch')])).toStrictEqual({
      default: { nodes: 2, disrupting: 0, notReady: 0 },
      batch: { nodes: 1, disrupting: 0, notReady: 0 },
    });
  });

  it('leaves out a NodeClaim not yet initialized ("replacement nodes that aren\'t initialized")', () => {
    const booting = member('b', 'default', {
      conditions: [{ ...initialized, status: 'False', reason: 'NotInitialized' }],
    });
    expect(counts([member('a'), booting])).toStrictEqual({
      default: { nodes: 1, disrupting: 0, notReady: 0 },
    });
    expect(counts([member('c', 'default', { conditions: [] })])).toStrictEqual({});
  });

  it('leaves out a NodeClaim whose Node has not registered, and a Node without a NodeClaim', () => {
    const [, unregistered] = member('b');
    const [unmanaged] = member('c');
    expect(
      Object.fromEntries(
        poolDisruptionCounts({
          ...snapshotOf([member('a')]),
          nodes: [member('a')[0], unmanaged],
          nodeClaims: [member('a')[1], unregistered],
        }),
      ),
    ).toStrictEqual({ default: { nodes: 1, disrupting: 0, notReady: 0 } });
  });

  it('leaves out a NodeClaim without a NodePool label (not managed by a NodePool)', () => {
    const [node, claim] = member('a');
    const { 'karpenter.sh/nodepool': _, ...labels } = claim.labels;
    expect(counts([[node, { ...claim, labels }]])).toStrictEqual({});
  });

  it('counts a Node that is not Ready as disrupting', () => {
    expect(counts([member('a'), member('b', 'default', { node: { ready: false } })])).toStrictEqual({
      default: { nodes: 2, disrupting: 1, notReady: 1 },
    });
  });

  it('counts a Node or NodeClaim marked for deletion, or under a disruption command, as disrupting', () => {
    const deletingNode = member('b', 'default', { node: { deleting: true } });
    const deletingClaim = member('c', 'default', {
      claim: { deletionTimestamp: new Date(T0).toISOString() },
    });
    const [n, c] = member('d');
    const commanded: [StateNode, NodeClaim] = [
      n,
      { ...c, annotations: { ...c.annotations, 'podlift.dev/disruption-command': 'drift-claim-d-1' } },
    ];
    for (const disrupting of [deletingNode, deletingClaim, commanded])
      expect(counts([member('a'), disrupting])).toStrictEqual({
        default: { nodes: 2, disrupting: 1, notReady: 0 },
      });
  });
});
