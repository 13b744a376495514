import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../sim/virtual-time';
import { ConsolidatableWakeups } from '../../watcher/consolidatable-wakeups';
import { WAKEUP_SLACK_MS } from '../../watcher/due-timers';
import type { NodeClaimDigest, NodePoolDigest } from '../../watcher/karpenter-object-hints';
import type { ObjectChange } from '../../watcher/reflector';

function claim(fields: Partial<NodeClaimDigest> = {}): NodeClaimDigest {
  return {
    name: 'c1',
    generation: 1,
    deleting: false,
    conditions: 'Initialized=True',
    nodePool: 'default',
    ...fields,
  };
}

function pool(consolidateAfterMs?: number, name = 'default'): NodePoolDigest {
  return { name, generation: 1, ...(consolidateAfterMs !== undefined ? { consolidateAfterMs } : {}) };
}

function change<D>(current: D | undefined, key: string, previous?: D): ObjectChange<D> {
  return {
    type: current === undefined ? 'deleted' : 'modified',
    key,
    ...(current !== undefined ? { current } : {}),
    ...(previous !== undefined ? { previous } : {}),
    initial: false,
  };
}

function wakeups() {
  const time = new VirtualTime();
  const due: { name: string; at: number }[] = [];
  const w = new ConsolidatableWakeups(time, time, (name) => due.push({ name, at: time.now() }));
  return { time, due, w };
}

describe('ConsolidatableWakeups', () => {
  it("wakes once, a moment after the NodePool's consolidateAfter is up since the last pod event", () => {
    const { time, due, w } = wakeups();
    const start = time.now();
    w.observeNodePool(change(pool(60_000), 'default'));
    w.observeNodeClaim(change(claim({ quietSince: start }), 'c1'));
    time.advance(60_000 + WAKEUP_SLACK_MS - 1);
    expect(due).toEqual([]);
    time.advance(1);
    expect(due).toEqual([{ name: 'c1', at: start + 60_000 + WAKEUP_SLACK_MS }]);
    // The same pod event seen again (another field changed) does not wake it twice.
    w.observeNodeClaim(change(claim({ quietSince: start, generation: 2 }), 'c1'));
    time.advance(120_000);
    expect(due).toHaveLength(1);
    expect(time.pending).toBe(0);
  });

  it('moves the timer with each pod event the function records, and drops it once Consolidatable', () => {
    const { time, due, w } = wakeups();
    const start = time.now();
    w.observeNodePool(change(pool(60_000), 'default'));
    w.observeNodeClaim(change(claim({ quietSince: start }), 'c1'));
    time.advance(30_000);
    w.observeNodeClaim(change(claim({ quietSince: start + 30_000 }), 'c1'));
    time.advance(31_000);
    expect(due).toEqual([]);
    time.advance(30_000);
    expect(due.map((d) => d.at)).toEqual([start + 90_000 + WAKEUP_SLACK_MS]);
    w.observeNodeClaim(change(claim({ quietSince: time.now() }), 'c1'));
    w.observeNodeClaim(
      change(claim({ quietSince: time.now(), conditions: 'Consolidatable=True,Initialized=True' }), 'c1'),
    );
    expect(time.pending).toBe(0);
  });

  it('sets no timer for a NodeClaim not initialized, deleting, gone, of no NodePool, or of one that never consolidates', () => {
    const { time, w } = wakeups();
    const now = time.now();
    w.observeNodePool(change(pool(60_000), 'default'));
    w.observeNodePool(change(pool(undefined, 'never'), 'never'));
    w.observeNodeClaim(change(claim({ conditions: 'Launched=True' }), 'a'));
    w.observeNodeClaim(change(claim({ name: 'b', quietSince: now, deleting: true }), 'b'));
    w.observeNodeClaim(change(claim({ name: 'c', quietSince: now, nodePool: 'never' }), 'c'));
    w.observeNodeClaim(change(claim({ name: 'd', quietSince: now, nodePool: 'other' }), 'd'));
    const { nodePool: _, ...unlabelled } = claim({ name: 'e', quietSince: now });
    w.observeNodeClaim(change(unlabelled, 'e'));
    expect(time.pending).toBe(0);
    w.observeNodeClaim(change(claim({ name: 'f', quietSince: now }), 'f'));
    expect(time.pending).toBe(1);
    w.observeNodeClaim(change<NodeClaimDigest>(undefined, 'f', claim({ name: 'f', quietSince: now })));
    expect(time.pending).toBe(0);
    // A NodeClaim gone is forgotten: a later change of its NodePool sets nothing for it.
    w.observeNodePool(change(pool(30_000), 'default', pool(60_000)));
    expect(time.pending).toBe(0);
  });

  it('follows the NodePool: listed after its NodeClaims, consolidateAfter changed, set to Never, deleted', () => {
    const { time, due, w } = wakeups();
    const start = time.now();
    w.observeNodeClaim(change(claim({ quietSince: start }), 'c1'));
    w.observeNodeClaim(change(claim({ name: 'c2', quietSince: start, nodePool: 'other' }), 'c2'));
    expect(time.pending).toBe(0);
    w.observeNodePool(change(pool(300_000), 'default'));
    expect(time.pending).toBe(1);
    w.observeNodePool(change(pool(30_000), 'default', pool(300_000)));
    expect(time.pending).toBe(1);
    w.observeNodePool(change(pool(undefined), 'default', pool(30_000)));
    expect(time.pending).toBe(0);
    w.observeNodePool(change(pool(0), 'default', pool(undefined)));
    time.advance(WAKEUP_SLACK_MS);
    expect(due).toEqual([{ name: 'c1', at: start + WAKEUP_SLACK_MS }]);
    w.observeNodeClaim(change(claim({ quietSince: start + 1 }), 'c1'));
    w.observeNodePool(change<NodePoolDigest>(undefined, 'default', pool(0)));
    expect(time.pending).toBe(0);
  });

  it('wakes at once for a NodeClaim already due when first seen, and clears every timer on stop', () => {
    const { time, due, w } = wakeups();
    w.observeNodePool(change(pool(60_000), 'default'));
    w.observeNodeClaim(change(claim({ quietSince: time.now() - 600_000 }), 'c1'));
    time.advance(0);
    expect(due).toEqual([{ name: 'c1', at: time.now() }]);
    w.observeNodeClaim(change(claim({ name: 'c2', quietSince: time.now() }), 'c2'));
    expect(time.pending).toBe(1);
    w.stop();
    expect(time.pending).toBe(0);
  });
});
