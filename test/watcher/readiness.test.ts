import { afterEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../sim/fakes/kube';
import { defaultResources, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { WATCHED_RESOURCES } from '../../watcher/watched-resource';
import { DEFAULT_STALE_AFTER_MS } from '../../watcher/watcher';
import { eventually } from '../eventually';
import type { WatcherHarness } from './harness';
import { settle, startedWatcher, watcherFor, watchesOpen } from './harness';

let server: FakeKubeApiServer;
let harness: WatcherHarness | undefined;

afterEach(async () => {
  await harness?.watcher.stop();
  harness = undefined;
  await server.close();
});

/** Remembers the harness so afterEach stops it. */
function track(started: WatcherHarness): WatcherHarness {
  harness = started;
  return started;
}

/** Fails every list and watch from now on, as an API server that went away would. */
function refuseEverything(): void {
  server.failNext('list', '*', 503, { times: 10_000 });
  server.failNext('watch', '*', 503, { times: 10_000 });
}

describe('Watcher readiness', () => {
  it('stays ready across the staleness bound while bookmarks keep arriving on quiet watches', async () => {
    server = await startFakeKubeApiServer();
    const h = track(await startedWatcher(server));
    expect(h.watcher.ready).toBe(true);
    h.time.advance(DEFAULT_STALE_AFTER_MS - 60_000);
    server.sendBookmarks();
    await eventually(() =>
      expect(Object.values(h.watcher.readiness()).map((r) => r.detail)).toEqual(
        Array(5).fill('ready, last heard 0s ago'),
      ),
    );
    h.time.advance(DEFAULT_STALE_AFTER_MS - 60_000);
    expect(h.watcher.ready).toBe(true);
  });

  it('turns not ready once nothing has been heard from the API server for longer than the bound, and says why', async () => {
    server = await startFakeKubeApiServer();
    const h = track(await startedWatcher(server));
    refuseEverything();
    server.dropWatches({ abrupt: true });
    await eventually(() => expect(h.watcher.metrics.watchRestarts.get({ resource: 'pods' })).toBe(1));

    h.time.advance(DEFAULT_STALE_AFTER_MS);
    await settle();
    expect(h.watcher.ready).toBe(true);
    h.time.advance(1000);
    await settle();
    expect(h.watcher.ready).toBe(false);
    expect(h.watcher.readiness().pods).toEqual({
      ready: false,
      detail: expect.stringMatching(
        /^not ready: nothing from the API server for 361s \(more than 360s\): watching pods failed: /,
      ),
    });
  });

  it('is ready again as soon as the API server answers', async () => {
    server = await startFakeKubeApiServer();
    const h = track(await startedWatcher(server));
    server.dropWatches({ abrupt: true });
    await eventually(() => {
      for (const resource of WATCHED_RESOURCES)
        expect(h.watcher.metrics.watchRestarts.get({ resource })).toBe(1);
    });
    // The retries are due after one second, but the clock jumps past the bound first.
    h.time.advance(DEFAULT_STALE_AFTER_MS + 1);
    expect(h.watcher.ready).toBe(false);
    await watchesOpen(h);
    await eventually(() => expect(h.watcher.ready).toBe(true));
  });

  it('keeps a resource whose CRD is not installed not ready, naming the CRD', async () => {
    server = await startFakeKubeApiServer({
      resources: defaultResources.filter((r) => r.plural !== 'nodeclaims'),
    });
    const h = track(watcherFor(server));
    h.watcher.start();
    await watchesOpen(h, 4);
    await eventually(() => expect(h.watcher.metrics.watchRestarts.get({ resource: 'nodeclaims' })).toBe(1));
    expect(h.watcher.ready).toBe(false);
    expect(h.watcher.readiness().nodeclaims).toEqual({
      ready: false,
      detail:
        'not ready: not listed yet: listing nodeclaims: the API server does not serve nodeclaims.karpenter.sh/v1: its CustomResourceDefinition nodeclaims.karpenter.sh is not installed (kubectl apply -k manifests/)',
    });
    expect(h.watcher.readiness().nodepools.ready).toBe(true);
  });
});
