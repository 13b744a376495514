import { describe, expect, it } from 'vitest';
import { blockedBecause } from '../../../shared/core/disruption/candidates';
import type { Pod } from '../../../shared/core/model/pod';
import { nodePool, pod, stateNode } from '../../../sim/world/builders';

// kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go `IsDisruptable` / `IsDoNotDisruptActive`
// (a pod's "true" or Go-duration annotation) and pkg/controllers/state/statenode.go
// `ValidateNodeDisruptable` (the Node's annotation, "true" only).
const T0 = Date.UTC(2026, 0, 1);
const startTime = new Date(T0).toISOString();
const app = (extra: Partial<Pod> = {}): Pod => ({
  ...pod({ name: 'web', ownerKind: 'ReplicaSet' }),
  ...extra,
});
const node = stateNode({ name: 'n1', nodePool: 'default' });
const blocked = (pods: Pod[], now = T0, n = node) => blockedBecause(n, nodePool(), pods, [], now);

describe('blockedBecause: karpenter.sh/do-not-disrupt', () => {
  it.each([
    ['"true"', 'true', T0 + 1e9, true],
    ['a duration not over yet', '30m', T0 + 1_799_999, true],
    ['a duration that is over', '30m', T0 + 1_800_000, false],
    ['a value that is no duration', 'yes', T0, false],
  ])('on a pod: %s', (_case, value, now, isBlocked) => {
    const reason = blocked([app({ annotations: { 'karpenter.sh/do-not-disrupt': value }, startTime })], now);
    expect(reason).toBe(isBlocked ? 'pod default/web has karpenter.sh/do-not-disrupt' : undefined);
  });

  it('lets a Terminating pod with the annotation go', () => {
    const leaving = app({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, deleting: true });
    expect(blocked([leaving])).toBeUndefined();
  });

  it('on the Node: only "true" blocks', () => {
    const pinned = (value: string) => ({ ...node, annotations: { 'karpenter.sh/do-not-disrupt': value } });
    expect(blocked([app()], T0, pinned('true'))).toBe('the Node has karpenter.sh/do-not-disrupt');
    expect(blocked([app()], T0, pinned('1h'))).toBeUndefined();
  });
});
