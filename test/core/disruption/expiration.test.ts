import { describe, expect, it } from 'vitest';
import { expiredClaims } from '../../../shared/core/disruption/methods';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import { nodeClaim } from '../../../sim/world/builders';
import { T0 } from './snapshot';

/** A NodeClaim created at T0 with `expireAfter`, as Karpenter's expiration suite sets it. */
function claim(expireAfter: string | undefined, more: Partial<NodeClaim> = {}): NodeClaim {
  const c = nodeClaim({ name: 'expiring', creationTimestamp: new Date(T0).toISOString() });
  return { ...c, spec: { ...c.spec, ...(expireAfter !== undefined ? { expireAfter } : {}) }, ...more };
}

const names = (claims: readonly NodeClaim[]) => claims.map((c) => c.name);

// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/expiration/controller.go `Reconcile`:
// deleting NodeClaims and ones without ExpireAfter are left alone; a NodeClaim is deleted once
// the clock is not Before creationTimestamp + ExpireAfter.
describe('expiredClaims', () => {
  it('deletes a NodeClaim past its expireAfter (suite: "should delete NodeClaims if the nodeClaim is expired")', () => {
    expect(names(expiredClaims([claim('30s')], T0 + 60_000))).toStrictEqual(['expiring']);
  });

  it('keeps one not yet expired (suite: "should not remove non-expired NodeClaims")', () => {
    expect(expiredClaims([claim('200s')], T0 + 100_000)).toStrictEqual([]);
  });

  it('expires at exactly creation + expireAfter: the clock is no longer Before it', () => {
    expect(names(expiredClaims([claim('30s')], T0 + 30_000))).toStrictEqual(['expiring']);
    expect(expiredClaims([claim('30s')], T0 + 29_999)).toStrictEqual([]);
  });

  it('keeps one whose expiration is disabled or unset (suite: "expiration is disabled")', () => {
    expect(expiredClaims([claim('Never')], T0 + 1e12)).toStrictEqual([]);
    expect(expiredClaims([claim(undefined)], T0 + 1e12)).toStrictEqual([]);
  });

  it('does not expire the same NodeClaim twice: one being deleted is left alone', () => {
    const deleting = claim('30s', { deletionTimestamp: new Date(T0 + 40_000).toISOString() });
    expect(expiredClaims([deleting], T0 + 60_000)).toStrictEqual([]);
  });

  it('leaves a NodeClaim whose creation time is not known yet', () => {
    const c = claim('30s');
    const { creationTimestamp: _, ...unborn } = c;
    expect(expiredClaims([unborn], T0 + 60_000)).toStrictEqual([]);
  });

  it('keeps the others of the list', () => {
    const young = { ...claim('1h'), name: 'young' };
    expect(names(expiredClaims([young, claim('30s')], T0 + 60_000))).toStrictEqual(['expiring']);
  });
});
