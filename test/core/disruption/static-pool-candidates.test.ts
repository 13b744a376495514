import { describe, expect, it } from 'vitest';
import { blockedBecause } from '../../../shared/core/disruption/candidates';
import { nodePool, pod, stateNode } from '../../../sim/world/builders';

// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go and emptiness.go
// `ShouldDisrupt`: a candidate `OwnedByStaticNodePool` is never consolidated or emptied (its
// node count is fixed by spec.replicas).
describe('blockedBecause: static NodePools', () => {
  const node = stateNode({ name: 'n1', nodePool: 'fixed' });
  const web = pod({ name: 'web', ownerKind: 'ReplicaSet' });

  it('blocks the nodes of a NodePool with replicas, even empty ones', () => {
    const fixed = nodePool({ name: 'fixed', replicas: 2 });
    expect(blockedBecause(node, fixed, [], [], 0)).toBe('NodePool fixed is static');
    expect(blockedBecause(node, fixed, [web], [], 0)).toBe('NodePool fixed is static');
  });

  it('lets the nodes of a dynamic NodePool be candidates', () => {
    expect(blockedBecause(node, nodePool({ name: 'fixed' }), [web], [], 0)).toBeUndefined();
  });
});
