import { describe, expect, it } from 'vitest';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const condition = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
});

/** An empty, initialized, Consolidatable m5.xlarge `name` of NodePool default. */
function empty(name: string): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({ name, nodePool: 'default', lifecycle: { providerID, ready: true } });
  const claim = nodeClaim({
    name: `claim-${name}`,
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
});
