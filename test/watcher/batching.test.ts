import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../sim/virtual-time';
import { Backoff } from '../../watcher/backoff';
import { BatchWindow } from '../../watcher/batch-window';
import { CapacityChangesAccumulator } from '../../watcher/capacity-changes-accumulator';
import { PendingPodsAccumulator } from '../../watcher/pending-pods-accumulator';

function window(idleMs = 1000, maxMs = 10_000, leading = false) {
  const time = new VirtualTime();
  const closedAt: number[] = [];
  const start = time.now();
  const w = new BatchWindow({
    idleMs,
    maxMs,
    leading,
    clock: time,
    timers: time,
    onClose: () => closedAt.push(time.now() - start),
  });
  return { time, w, closedAt };
}

describe('BatchWindow', () => {
  it('closes the idle time after the last item', () => {
    const { time, w, closedAt } = window();
    w.touch();
    time.advance(600);
    w.touch();
    time.advance(999);
    expect(closedAt).toEqual([]);
    time.advance(1);
    expect(closedAt).toEqual([1600]);
    expect(w.isOpen).toBe(false);
  });

  it('closes at the maximum after the first item however often items arrive', () => {
    const { time, w, closedAt } = window();
    for (let t = 0; t < 12_000; t += 100) {
      if (!w.isOpen || t < 10_000) w.touch();
      time.advance(100);
      if (closedAt.length) break;
    }
    expect(closedAt).toEqual([10_000]);
  });

  it('with a leading edge, closes at once on the first item after a quiet maximum, then batches', () => {
    const { time, w, closedAt } = window(1000, 4000, true);
    w.touch();
    expect(closedAt).toEqual([0]);
    time.advance(500);
    w.touch(); // 0.5 s after a close: batched, an idle second later
    expect(closedAt).toEqual([0]);
    time.advance(1000);
    expect(closedAt).toEqual([0, 1500]);
    time.advance(3999);
    w.touch(); // 3.999 s after the last close: still batched
    expect(closedAt).toEqual([0, 1500]);
    time.advance(1000);
    expect(closedAt).toEqual([0, 1500, 6499]);
    time.advance(4000);
    w.touch(); // quiet for the maximum: at once
    expect(closedAt).toEqual([0, 1500, 6499, 10_499]);
  });

  it('with a leading edge, closes once per maximum under a steady stream', () => {
    const { time, w, closedAt } = window(1000, 4000, true);
    for (let t = 0; t < 20_000; t += 100) {
      w.touch();
      time.advance(100);
    }
    expect(closedAt).toEqual([0, 4100, 8100, 12_100, 16_100]);
  });

  it('closes nothing once cancelled', () => {
    const { time, w, closedAt } = window();
    w.touch();
    w.cancel();
    time.advance(20_000);
    expect(closedAt).toEqual([]);
    expect(time.pending).toBe(0);
  });
});

describe('Backoff', () => {
  it('doubles up to the maximum and starts over after a reset', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 5000 });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([
      1000, 2000, 4000, 5000,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(1000);
  });

  it('takes up to the jitter fraction off each delay', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 5000, jitter: 0.5, random: () => 0.5 });
    expect([backoff.next(), backoff.next()]).toEqual([750, 1500]);
  });
});

describe('PendingPodsAccumulator', () => {
  const ref = (name: string) => ({ namespace: 'default', name, uid: `uid-${name}` });

  it('keeps each pod once, up to its limit, and counts the rest', () => {
    const acc = new PendingPodsAccumulator(2);
    for (const name of ['a', 'a', 'b', 'c']) acc.add(ref(name));
    const batch = acc.drain();
    expect(batch).toEqual({ pods: [ref('a'), ref('b')], total: 3 });
    expect(acc.isEmpty).toBe(true);
    expect(acc.sizeOf(batch)).toBe(3);
  });

  it('puts a failed batch back ahead of newer pods, without duplicates, within its limit', () => {
    const acc = new PendingPodsAccumulator(3);
    acc.add(ref('a'));
    acc.add(ref('b'));
    const failed = acc.drain();
    acc.add(ref('b'));
    acc.add(ref('c'));
    acc.add(ref('d'));
    acc.restore(failed);
    expect(acc.drain()).toEqual({ pods: [ref('a'), ref('b'), ref('c')], total: 4 });
  });
});

describe('CapacityChangesAccumulator', () => {
  it('counts per reason with at most 20 distinct names, and merges a failed batch back', () => {
    const acc = new CapacityChangesAccumulator();
    for (let i = 0; i < 25; i++) acc.add({ reason: 'nodeAdded', name: `n${i}` });
    acc.add({ reason: 'nodeAdded', name: 'n0' });
    const failed = acc.drain();
    expect(failed.nodeAdded?.count).toBe(26);
    expect(failed.nodeAdded?.names).toHaveLength(20);
    acc.add({ reason: 'podRemoved', name: 'default/web' });
    acc.restore(failed);
    const merged = acc.drain();
    expect(merged).toEqual({
      nodeAdded: { count: 26, names: Array.from({ length: 20 }, (_, i) => `n${i}`) },
      podRemoved: { count: 1, names: ['default/web'] },
    });
    expect(acc.sizeOf(merged)).toBe(27);
  });
});
