import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../shared/core/model/pod';
import {
  forceDeleteGracePeriodSeconds,
  groupPodsByPriority,
  isDrainable,
  isEvictable,
  isStuckTerminating,
  needsForceDelete,
  planDrain,
} from '../../../shared/core/termination/drain';
import { pod } from '../../../sim/world/builders';

// Derived from kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go (IsDrainable, IsEvictable,
// IsStuckTerminating), terminator.go `groupPodsByPriority` and eviction.go `needsForceDelete`,
// `forceDelete`, and the cases of pkg/controllers/node/termination/suite_test.go.
const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const web = (extra: Partial<Pod> = {}): Pod => ({
  ...pod({ name: extra.name ?? 'web', ownerKind: 'ReplicaSet' }),
  ...extra,
});
const terminating = (deletionTimestamp: number, extra: Partial<Pod> = {}) =>
  web({ deleting: true, deletionTimestamp: iso(deletionTimestamp), ...extra });
const disruptedEqual = {
  key: 'karpenter.sh/disrupted',
  operator: 'Equal' as const,
  effect: 'NoSchedule' as const,
};
const exists = { operator: 'Exists' as const };
const protectedPod = web({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });

describe('isStuckTerminating', () => {
  it.each([
    ['an active pod', web(), T0 + 1e9, false],
    ['terminating, deletionTimestamp in the future', terminating(T0 + 30_000), T0, false],
    ['terminating, exactly a minute past', terminating(T0), T0 + 60_000, false],
    ['terminating, over a minute past', terminating(T0), T0 + 60_001, true],
    ['deleting without a known timestamp', web({ deleting: true }), T0 + 1e9, false],
  ])('%s → %s', (_case, p, now, stuck) => {
    expect(isStuckTerminating(p, now)).toBe(stuck);
  });
});

describe('isDrainable and isEvictable', () => {
  it.each([
    ['a ReplicaSet pod', web(), true, true],
    ['a DaemonSet pod (drained last, not left)', web({ ownerKind: 'DaemonSet' }), true, true],
    ['a pod without owner', web({ ownerKind: undefined }), true, true],
    ['a static pod (owned by its Node)', web({ ownerKind: 'Node' }), false, false],
    [
      'a mirror pod by annotation',
      web({ annotations: { 'kubernetes.io/config.mirror': 'x' } }),
      false,
      false,
    ],
    ['tolerating karpenter.sh/disrupted (Equal)', web({ tolerations: [disruptedEqual] }), false, false],
    ['tolerating every taint (Exists)', web({ tolerations: [exists] }), false, false],
    [
      'tolerating node.kubernetes.io/unschedulable only',
      web({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }] }),
      true,
      true,
    ],
    ['do-not-disrupt "true": waited for, never evicted', protectedPod, true, false],
    ['terminating recently: waited for, not evicted again', terminating(T0), true, false],
    ['stuck terminating: neither', terminating(T0 - 120_000), false, false],
  ])('%s', (_case, p, drainable, evictable) => {
    expect(isDrainable(p, T0)).toBe(drainable);
    expect(isEvictable(p, T0)).toBe(evictable);
  });

  it('evicts a do-not-disrupt pod once its duration is over', () => {
    const p = web({ annotations: { 'karpenter.sh/do-not-disrupt': '10m' }, startTime: iso(T0) });
    expect(isEvictable(p, T0 + 599_999)).toBe(false);
    expect(isEvictable(p, T0 + 600_000)).toBe(true);
  });
});

describe('groupPodsByPriority', () => {
  it('orders non-critical, non-critical DaemonSet, critical, critical DaemonSet', () => {
    const a = web({ name: 'a' });
    const b = web({ name: 'b', ownerKind: 'DaemonSet' });
    const c = web({ name: 'c', priorityClassName: 'system-cluster-critical' });
    const d = web({ name: 'd', priorityClassName: 'system-node-critical', ownerKind: 'DaemonSet' });
    const e = web({ name: 'e', priorityClassName: 'high' });
    expect(groupPodsByPriority([d, c, b, a, e]).map((g) => g.map((p) => p.name))).toStrictEqual([
      ['a', 'e'],
      ['b'],
      ['c'],
      ['d'],
    ]);
  });
});

describe('needsForceDelete and forceDeleteGracePeriodSeconds', () => {
  const deadline = T0 + 300_000;
  it.each([
    ['no deadline', web({ terminationGracePeriodSeconds: 1e6 }), undefined, T0, false],
    // suite_test "should only delete pods when their terminationGracePeriodSeconds is less than ... remaining"
    ['60 s grace, 90 s in', web({ terminationGracePeriodSeconds: 60 }), deadline, T0 + 90_000, false],
    [
      '60 s grace, exactly 60 s left',
      web({ terminationGracePeriodSeconds: 60 }),
      deadline,
      T0 + 240_000,
      false,
    ],
    ['60 s grace, under 60 s left', web({ terminationGracePeriodSeconds: 60 }), deadline, T0 + 240_001, true],
    ['no grace given: the API default of 30 s', web(), deadline, T0 + 270_001, true],
    ['no grace given, 31 s left', web(), deadline, T0 + 269_000, false],
    ['terminating, due after the deadline', terminating(deadline + 1), deadline, T0, true],
    ['terminating, due at the deadline', terminating(deadline), deadline, T0, false],
    ['terminating, timestamp unknown', web({ deleting: true }), deadline, deadline + 1e6, false],
  ])('%s → %s', (_case, p, d, now, force) => {
    expect(needsForceDelete(p, d, now)).toBe(force);
  });

  it('grants the seconds left, truncated, and at least 1', () => {
    expect(forceDeleteGracePeriodSeconds(deadline, T0 + 90_000)).toBe(210);
    expect(forceDeleteGracePeriodSeconds(deadline, T0 + 89_001)).toBe(210);
    expect(forceDeleteGracePeriodSeconds(deadline, deadline - 1_500)).toBe(1);
    expect(forceDeleteGracePeriodSeconds(deadline, deadline + 60_000)).toBe(1);
  });
});

describe('planDrain', () => {
  const names = (pods: readonly Pod[]) => pods.map((p) => p.name);

  it('works on the first group with pods left, evicting what may be evicted and waiting for the rest', () => {
    const pods = [
      web({ name: 'web' }),
      { ...protectedPod, name: 'pinned' },
      terminating(T0 + 10_000, { name: 'leaving' }),
      web({ name: 'agent', ownerKind: 'DaemonSet' }),
      web({ name: 'dns', priorityClassName: 'system-cluster-critical' }),
      web({ name: 'static', ownerKind: 'Node' }),
    ];
    const plan = planDrain(pods, undefined, T0);
    expect(names(plan.waiting)).toStrictEqual(['web', 'pinned', 'leaving', 'agent', 'dns']);
    expect(names(plan.evict)).toStrictEqual(['web']);
    expect(plan.forceDelete).toStrictEqual([]);
  });

  it('moves on to DaemonSet pods, then critical pods, once the earlier groups are gone', () => {
    const agent = web({ name: 'agent', ownerKind: 'DaemonSet' });
    const dns = web({ name: 'dns', priorityClassName: 'system-cluster-critical' });
    expect(names(planDrain([agent, dns], undefined, T0).evict)).toStrictEqual(['agent']);
    expect(names(planDrain([dns], undefined, T0).evict)).toStrictEqual(['dns']);
    expect(planDrain([], undefined, T0)).toStrictEqual({ waiting: [], forceDelete: [], evict: [] });
  });

  it('deletes past-deadline pods of every group at once, not gated behind earlier groups', () => {
    // suite_test "should not gate past-deadline pods behind graceful eviction of earlier tiers"
    const calm = web({ name: 'calm', terminationGracePeriodSeconds: 30 });
    const slow = web({
      name: 'slow',
      priorityClassName: 'system-node-critical',
      terminationGracePeriodSeconds: 600,
    });
    const plan = planDrain([calm, slow], T0 + 300_000, T0);
    expect(names(plan.forceDelete)).toStrictEqual(['slow']);
    expect(names(plan.evict)).toStrictEqual(['calm']);
  });

  it('does not also evict a pod it deletes', () => {
    const slow = web({ name: 'slow', terminationGracePeriodSeconds: 600 });
    const plan = planDrain([slow, web({ name: 'calm' })], T0 + 300_000, T0);
    expect(names(plan.forceDelete)).toStrictEqual(['slow']);
    expect(names(plan.evict)).toStrictEqual(['calm']);
  });

  it('lets stuck Terminating pods not hold the drain', () => {
    expect(planDrain([terminating(T0)], undefined, T0 + 61_000).waiting).toStrictEqual([]);
  });
});
