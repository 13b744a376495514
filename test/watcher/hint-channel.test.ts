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
