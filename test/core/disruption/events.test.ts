import { describe, expect, it } from 'vitest';
import { disruptionTerminating } from '../../../shared/core/disruption/events';
import { nodeClaim } from '../../../sim/world/builders';

// kubernetes-sigs/karpenter pkg/controllers/disruption/events/events.go `Terminating`.
describe('disruptionTerminating', () => {
  it('tells the Node and the NodeClaim, by uid, why they are disrupted', () => {
    const claim = { ...nodeClaim({ name: 'default-x7k2' }), uid: 'uid-1' };
    expect(disruptionTerminating(claim, 'ip-10-0-0-1', 'Underutilized')).toStrictEqual([
      {
        object: { apiVersion: 'v1', kind: 'Node', name: 'ip-10-0-0-1' },
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: 'Disrupting Node: Underutilized',
      },
      {
        object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'default-x7k2', uid: 'uid-1' },
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: 'Disrupting NodeClaim: Underutilized',
      },
    ]);
  });

  it('tells only the NodeClaim when it has no Node, and names it without a uid it does not have', () => {
    const { uid: _uid, ...claim } = nodeClaim({ name: 'default-x7k2' });
    expect(disruptionTerminating(claim, undefined, 'Empty')).toStrictEqual([
      {
        object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'default-x7k2' },
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: 'Disrupting NodeClaim: Empty',
      },
    ]);
  });
});
