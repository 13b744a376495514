import { expect } from 'vitest';
import type { ListWatchSource } from '../../shared/core/ports/list-watch';
import type { FakeKubeApiServer } from '../../sim/fakes/kube';
import { FakeEventPublisher } from '../../sim/fakes/ports/fake-event-publisher';
import { VirtualTime } from '../../sim/virtual-time';
import { kubeListWatchSources } from '../../watcher/kube-list-watch';
import type { WatchedResource } from '../../watcher/watched-resource';
import { WATCHED_RESOURCES } from '../../watcher/watched-resource';
import { Watcher } from '../../watcher/watcher';
import { eventually } from '../eventually';

/** A watcher on fake time and a fake bus, reading the fake API server through client-node. */
export interface WatcherHarness {
  readonly watcher: Watcher;
  readonly time: VirtualTime;
  readonly publisher: FakeEventPublisher;
  readonly server: FakeKubeApiServer;
  /** Watches the watcher holds open: answered, handed over, and not ended or aborted since. */
  readonly watching: () => number;
}

/** Content type of JSON merge patches. */
export const MERGE_PATCH = 'application/merge-patch+json';

/** Builds a watcher against `server` (no jitter: backoffs are exact). */
export function watcherFor(server: FakeKubeApiServer): WatcherHarness {
  const time = new VirtualTime();
  const publisher = new FakeEventPublisher();
  const { sources, watching } = countingWatches(kubeListWatchSources(server.kubeConfig()));
  const watcher = new Watcher({
    cluster: 'test-cluster',
    sources,
    publisher,
    clock: time,
    timers: time,
    watchBackoff: { initialMs: 1000, maxMs: 30_000 },
    publishBackoff: { initialMs: 1000, maxMs: 60_000 },
  });
  return { watcher, time, publisher, server, watching };
}

/** Starts a watcher and waits until every resource is listed and watched. */
export async function startedWatcher(server: FakeKubeApiServer): Promise<WatcherHarness> {
  const harness = watcherFor(server);
  harness.watcher.start();
  await watchesOpen(harness);
  return harness;
}

/**
 * Waits until `count` watches are open on both ends: the server streams them and the watcher
 * has handled their answers. The server counts a watch as soon as it answers, a moment before
 * the client reads that answer; moving the clock in between would let the watcher stamp the
 * watch with the later time.
 */
export async function watchesOpen(harness: WatcherHarness, count = 5): Promise<void> {
  await eventually(
    () => {
      expect(harness.server.openWatches, 'watches the server streams').toBe(count);
      expect(harness.watching(), 'watches the watcher holds').toBe(count);
    },
    { interval: 5 },
  );
}

/** Wraps `inner` to count the watches handed over and not yet ended or aborted. */
function countingWatches(inner: Record<WatchedResource, ListWatchSource>): {
  sources: Record<WatchedResource, ListWatchSource>;
  watching: () => number;
} {
  const open = new Set<object>();
  const counted = (source: ListWatchSource): ListWatchSource => ({
    list: (token) => source.list(token),
    watch: async (resourceVersion, onEvent, onDone) => {
      const token = {};
      let ended = false;
      const stream = await source.watch(resourceVersion, onEvent, (error) => {
        ended = true;
        open.delete(token);
        onDone(error);
      });
      if (!ended) open.add(token);
      return {
        abort() {
          open.delete(token);
          stream.abort();
        },
      };
    },
  });
  const sources = Object.fromEntries(
    WATCHED_RESOURCES.map((resource) => [resource, counted(inner[resource])]),
  ) as Record<WatchedResource, ListWatchSource>;
  return { sources, watching: () => open.size };
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Requests of one verb to one path. */
export function requestsTo(server: FakeKubeApiServer, verb: 'list' | 'watch', path: string) {
  return server.requests.filter((r) => r.verb === verb && r.path === path);
}
