import { describe, expect, it } from 'vitest';
import type { PodsPendingDetail } from '../../shared/core/contracts/pods-pending';
import { podsPendingDetail } from '../../shared/core/contracts/pods-pending';
import { FakeEventPublisher } from '../../sim/fakes/ports/fake-event-publisher';
import { VirtualTime } from '../../sim/virtual-time';
import { Backoff } from '../../watcher/backoff';
import { HintChannel } from '../../watcher/hint-channel';
import { PendingPodsAccumulator } from '../../watcher/pending-pods-accumulator';
import { silentLog } from '../../watcher/watcher-log';
import { WatcherMetrics } from '../../watcher/watcher-metrics';
import { settle } from './harness';

function channel(options: { limit?: number } = {}) {
  const time = new VirtualTime();
  const publisher = new FakeEventPublisher();
  const metrics = new WatcherMetrics();
  const hints = new HintChannel({
    source: 'podlift.watcher',
    detailType: 'PodsPending',
    accumulator: new PendingPodsAccumulator(options.limit),
    toDetail: (batch) => podsPendingDetail({ cluster: 'c', pods: batch.pods, total: batch.total }),
    publisher,
    idleMs: 1000,
    maxMs: 10_000,
    clock: time,
    timers: time,
    retryBackoff: new Backoff({ initialMs: 1000, maxMs: 4000 }),
    metrics,
    log: silentLog,
  });
  const add = (name: string) => hints.add({ namespace: 'default', name, uid: `uid-${name}` });
  const published = () => publisher.details<PodsPendingDetail>('PodsPending');
  return { time, publisher, metrics, hints, add, published };
}

describe('HintChannel', () => {
  it('keeps a batch whose publish failed, retries it with growing backoff and merges newer hints into it', async () => {
    const c = channel();
    c.publisher.failNext(3);
    c.add('a');
    c.time.advance(1000);
    await settle();
    expect(c.metrics.publishFailures.get({ detail_type: 'PodsPending' })).toBe(1);
    expect(c.time.delays()).toEqual([1000]);

    c.add('b'); // during the backoff: rides along with the retry, opens no window
    expect(c.time.delays()).toEqual([1000]);
    c.time.advance(1000);
    await settle();
    expect(c.time.delays()).toEqual([2000]);
    c.time.advance(2000);
    await settle();
    expect(c.time.delays()).toEqual([4000]);
    c.time.advance(3999);
    await settle();
    expect(c.publisher.calls).toBe(3);
    c.time.advance(1);
    await settle();

    expect(c.published()).toHaveLength(1);
    expect(c.published()[0]).toMatchObject({ total: 2, pods: [{ name: 'a' }, { name: 'b' }] });
    expect(c.metrics.publishFailures.get({ detail_type: 'PodsPending' })).toBe(3);
    expect(c.metrics.eventsPublished.get({ detail_type: 'PodsPending' })).toBe(1);

    // The backoff starts over after a success.
    c.publisher.failNext(1);
    c.add('c');
    c.time.advance(1000);
    await settle();
    expect(c.time.delays()).toEqual([1000]);
  });

  it('holds a bounded number of pods however long the bus is down, and still counts them all', async () => {
    const c = channel({ limit: 3 });
    c.publisher.failNext(1);
    for (const name of ['a', 'b', 'c', 'd']) c.add(name);
    c.time.advance(1000);
    await settle();
    for (const name of ['a', 'e', 'f']) c.add(name);
    c.time.advance(1000);
    await settle();
    expect(c.published()).toHaveLength(1);
    expect(c.published()[0]).toMatchObject({ total: 6, truncated: true });
    expect(c.published()[0].pods.map((p) => p.name)).toEqual(['a', 'b', 'c']);
  });

  it('publishes once more after an in-flight publish when the next window closed meanwhile', async () => {
    const c = channel();
    let release: () => void = () => {};
    const original = c.publisher.publish.bind(c.publisher);
    c.publisher.publish = async (events) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return original(events);
    };
    c.add('a');
    c.time.advance(1000);
    c.add('b');
    c.time.advance(1000);
    await settle();
    expect(c.publisher.calls).toBe(0);
    release();
    await settle();
    release();
    await settle();
    expect(c.published().map((d) => d.pods.map((p) => p.name))).toEqual([['a'], ['b']]);
  });

  it('flushes what is pending at once, without waiting for the window', async () => {
    const c = channel();
    c.add('a');
    await c.hints.flush();
    expect(c.published()).toHaveLength(1);
    expect(c.time.pending).toBe(0);
  });
});

describe('HintChannel riders', () => {
  function pair() {
    const time = new VirtualTime();
    const publisher = new FakeEventPublisher();
    const metrics = new WatcherMetrics();
    const common = {
      source: 'podlift.watcher',
      publisher,
      clock: time,
      timers: time,
      metrics,
      log: silentLog,
    };
    const capacity = new HintChannel({
      ...common,
      detailType: 'CapacityChanged',
      accumulator: new PendingPodsAccumulator(),
      toDetail: (batch) => ({ names: batch.pods.map((p) => p.name) }),
      idleMs: 1000,
      maxMs: 10_000,
      retryBackoff: new Backoff({ initialMs: 1000, maxMs: 4000 }),
    });
    const pods = new HintChannel({
      ...common,
      detailType: 'PodsPending',
      accumulator: new PendingPodsAccumulator(),
      toDetail: (batch) => ({ names: batch.pods.map((p) => p.name) }),
      idleMs: 1000,
      maxMs: 4000,
      leading: true,
      riders: () => [capacity],
      retryBackoff: new Backoff({ initialMs: 1000, maxMs: 4000 }),
    });
    const ref = (name: string) => ({ namespace: 'default', name, uid: name });
    return { time, publisher, metrics, capacity, pods, ref };
  }

  it('takes a batch whose maximum falls before the next publish, and leaves a younger one', async () => {
    const p = pair();
    p.capacity.add(p.ref('node-a')); // opens at 0: due by 10 s
    for (let t = 0; t < 7000; t += 500) {
      p.capacity.add(p.ref(`node-${t}`));
      if (t === 0) p.pods.add(p.ref('pod-0')); // leading edge at 0: capacity has 10 s to run
      await p.time.advanceAsync(500);
    }
    expect(p.publisher.calls).toBe(1);
    expect(p.publisher.events.map((e) => e.detailType)).toEqual(['PodsPending']);
    p.pods.add(p.ref('pod-7')); // batched: at most 4 s, by when capacity's 10 s are due
    await p.time.advanceAsync(1000);
    expect(p.publisher.calls).toBe(2);
    expect(p.publisher.events.map((e) => e.detailType)).toEqual([
      'PodsPending',
      'PodsPending',
      'CapacityChanged',
    ]);
    expect((p.publisher.events[2]!.detail as { names: string[] }).names).toHaveLength(15);
    expect(p.metrics.eventsPublished.get({ detail_type: 'CapacityChanged' })).toBe(1);
    // Capacity's window was closed by riding: nothing of its own comes later.
    await p.time.advanceAsync(20_000);
    expect(p.publisher.calls).toBe(2);
  });

  it('puts a rider back and retries it on its own when the shared call fails', async () => {
    const p = pair();
    p.pods.add(p.ref('pod-0')); // leading edge at 0
    for (let t = 0; t <= 6000; t += 500) {
      p.capacity.add(p.ref(`node-${t}`)); // a busy window, due by 10 s
      await p.time.advanceAsync(500);
    }
    p.publisher.failNext(1);
    p.pods.add(p.ref('pod-1')); // 6.5 s after the last publish: at once, capacity riding (3.5 s left)
    await p.time.advanceAsync(0);
    expect(p.publisher.calls).toBe(2);
    expect(p.metrics.publishFailures.get({ detail_type: 'CapacityChanged' })).toBe(1);
    await p.time.advanceAsync(1000); // each retries after its backoff, in a call of its own
    expect(p.publisher.calls).toBe(4);
    const details = p.publisher.events.map((e) => [
      e.detailType,
      (e.detail as { names: string[] }).names.length,
    ]);
    expect(details).toEqual([
      ['PodsPending', 1],
      ['CapacityChanged', 13],
      ['PodsPending', 1],
    ]);
  });
});
