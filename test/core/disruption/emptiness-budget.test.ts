import { describe, expect, it } from 'vitest';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, stateNode } from '../../../sim/world/builders';
import { condition, snapshotOf, T0 } from './snapshot';

/** An empty, initialized, Consolidatable m5.xlarge `name` of NodePool `pool` (default). */
function empty(
  name: string,
  pool = 'default',
  nodeAnnotations?: Record<string, string>,
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: pool,
    lifecycle: { providerID, ready: true, ...(nodeAnnotations ? { annotations: nodeAnnotations } : {}) },
  });
  const claim = nodeClaim({
    name: `claim-${name}`,
    nodePool: pool,
    creationTimestamp: new Date(T0).toISOString(),
    annotations: { 'podlift.dev/hourly-price': '0.192' },
    status: { providerID, conditions: [condition('Initialized'), condition('Consolidatable')] },
  });
  return [node, claim];
}

// kubernetes-sigs/karpenter pkg/controllers/disruption/emptiness.go `ComputeCommands`: an empty
// candidate is skipped once its NodePool's `disruptionBudgetMapping` entry is 0, and each one
// taken decrements the entry.
describe('emptiness within the budget', () => {
  it('takes only as many empty nodes as the budget allows, passing over the rest', () => {
    const pool = nodePool({ budgets: [{ nodes: '1' }] });
    const decided = decideDisruption(
      snapshotOf([empty('a'), empty('b'), empty('c')], { nodePools: [pool] }),
      T0,
    );
    expect(decided.command?.method).toBe('emptiness');
    expect(decided.command?.candidates).toHaveLength(1);
    expect(decided.passedOver.map((p) => p.why)).toStrictEqual([
      "the NodePool's disruption budget for Empty allows no more nodes now",
      "the NodePool's disruption budget for Empty allows no more nodes now",
    ]);
  });

  it("counts each NodePool's budget on its own nodes: one empty node of each of two NodePools allowing one goes", () => {
    // emptiness.go keeps one `disruptionBudgetMapping` entry per NodePool.
    const pools = [
      nodePool({ name: 'a', budgets: [{ nodes: '1' }] }),
      nodePool({ name: 'b', budgets: [{ nodes: '1' }] }),
    ];
    const decided = decideDisruption(
      snapshotOf([empty('a1', 'a'), empty('b1', 'b')], { nodePools: pools }),
      T0,
    );
    expect(decided.command?.method).toBe('emptiness');
    expect(decided.command?.candidates).toStrictEqual(['claim-a1', 'claim-b1']);
    expect(decided.passedOver).toStrictEqual([]);
  });

  it('passes over an empty node that may not be disrupted, saying why, and takes the others', () => {
    // emptiness.go takes its candidates from `GetCandidates`, which leaves out a node with
    // karpenter.sh/do-not-disrupt (statenode.go `ValidateNodeDisruptable`).
    const decided = decideDisruption(
      snapshotOf([empty('a', 'default', { 'karpenter.sh/do-not-disrupt': 'true' }), empty('b')]),
      T0,
    );
    expect(decided.command?.candidates).toStrictEqual(['claim-b']);
    expect(decided.passedOver).toStrictEqual([
      { nodeClaim: 'claim-a', node: 'a', why: 'the Node has karpenter.sh/do-not-disrupt' },
    ]);
  });
});
