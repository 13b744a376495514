import { expect } from 'vitest';
import type { FakeKubeApiServer } from '../../sim/fakes/kube';
import { FakeEventPublisher } from '../../sim/fakes/ports/fake-event-publisher';
import { VirtualTime } from '../../sim/virtual-time';
import { kubeListWatchSources } from '../../watcher/kube-list-watch';
import { Watcher } from '../../watcher/watcher';
import { eventually } from '../eventually';

/** A watcher on fake time and a fake bus, reading the fake API server through client-node. */
export interface WatcherHarness {
  readonly watcher: Watcher;
  readonly time: VirtualTime;
  readonly publisher: FakeEventPublisher;
}

/** Content type of JSON merge patches. */
export const MERGE_PATCH = 'application/merge-patch+json';

/** Builds a watcher against `server` (no jitter: backoffs are exact). */
export function watcherFor(server: FakeKubeApiServer): WatcherHarness {
  const time = new VirtualTime();
  const publisher = new FakeEventPublisher();
  const watcher = new Watcher({
    cluster: 'test-cluster',
    sources: kubeListWatchSources(server.kubeConfig()),
    publisher,
    clock: time,
    timers: time,
    watchBackoff: { initialMs: 1000, maxMs: 30_000 },
    publishBackoff: { initialMs: 1000, maxMs: 60_000 },
  });
  return { watcher, time, publisher };
}

/** Starts a watcher and waits until every resource is listed and watched. */
export async function startedWatcher(server: FakeKubeApiServer): Promise<WatcherHarness> {
  const harness = watcherFor(server);
  harness.watcher.start();
  await watchesOpen(server);
  return harness;
}

/** Waits until all five resources are synced and watched. */
export async function watchesOpen(server: FakeKubeApiServer, count = 5): Promise<void> {
  await eventually(() => expect(server.openWatches).toBe(count), { interval: 5 });
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Requests of one verb to one path. */
export function requestsTo(server: FakeKubeApiServer, verb: 'list' | 'watch', path: string) {
  return server.requests.filter((r) => r.verb === verb && r.path === path);
}
