import type { KubernetesObject } from '@kubernetes/client-node';
import { ADD, CoreV1Api, DELETE, ERROR, makeInformer, UPDATE, Watch } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { VirtualTime } from '../../../../sim/virtual-time';
import { nodeManifest, podManifest } from '../../../../sim/world/builders';
import { eventually } from '../../../eventually';

let server: FakeKubeApiServer;
const aborts: AbortController[] = [];

beforeEach(async () => {
  server = await startFakeKubeApiServer();
});
afterEach(async () => {
  for (const controller of aborts.splice(0)) controller.abort();
  await server.close();
});

interface Seen {
  type: string;
  name?: string;
  resourceVersion?: string;
  object: Record<string, unknown>;
}

/** Starts a client-node Watch and records what its callbacks receive. */
async function watch(path: string, query: Record<string, string | number | boolean> = {}) {
  const seen: Seen[] = [];
  let doneWith: { error: unknown } | undefined;
  const controller = await new Watch(server.kubeConfig()).watch(
    path,
    query,
    (type, object: KubernetesObject & Record<string, unknown>) =>
      seen.push({
        type,
        name: object.metadata?.name,
        resourceVersion: object.metadata?.resourceVersion,
        object,
      }),
    (error) => {
      doneWith = { error };
    },
  );
  aborts.push(controller);
  await eventually(() => expect(server.openWatches + (doneWith ? 1 : 0)).toBeGreaterThan(0));
  return {
    seen,
    types: () => seen.map((e) => `${e.type} ${e.name ?? ''}`.trim()),
    done: () => doneWith,
  };
}

describe('fake API server: watch', () => {
  it('streams ADDED, MODIFIED and DELETED after the resourceVersion of a list', async () => {
    server.store.seed('pods', podManifest({ name: 'before' }));
    const listed = server.store.list('pods');
    const stream = await watch('/api/v1/namespaces/default/pods', {
      resourceVersion: listed.resourceVersion,
    });
    server.store.create('pods', podManifest({ name: 'web' }));
    server.store.patch('pods', 'web', { metadata: { labels: { v: '2' } } }, 'application/merge-patch+json');
    server.store.delete('pods', 'web');
    // An unscheduled pod is deleted at once, but the registry first writes its deletionTimestamp
    // (grace 0): watchers see MODIFIED with it, then DELETED.
    await eventually(() =>
      expect(stream.types()).toEqual(['ADDED web', 'MODIFIED web', 'MODIFIED web', 'DELETED web']),
    );
    expect(stream.seen.map((e) => e.resourceVersion)).toEqual(['2', '3', '4', '5']);
    expect(stream.seen[2].object).toMatchObject({ metadata: { deletionGracePeriodSeconds: 0 } });
    expect(stream.seen[0].object).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
    expect(server.requests.at(-1)).toMatchObject({
      verb: 'watch',
      query: { watch: 'true', resourceVersion: '1' },
      status: 200,
    });
  });

  it('resumes from an older resourceVersion by replaying only the later changes', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    const resumeFrom = server.store.resourceVersion;
    server.store.seed('nodes', nodeManifest({ name: 'n2' }));
    server.store.delete('nodes', 'n1');
    server.store.seed('pods', podManifest({ name: 'unrelated' }));
    const stream = await watch('/api/v1/nodes', { resourceVersion: resumeFrom });
    await eventually(() => expect(stream.types()).toEqual(['ADDED n2', 'DELETED n1']));
  });

  it('starts with ADDED for every current object when no resourceVersion is given', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    server.store.seed('nodes', nodeManifest({ name: 'n2' }));
    const stream = await watch('/api/v1/nodes');
    server.store.seed('nodes', nodeManifest({ name: 'n3' }));
    await eventually(() => expect(stream.types()).toEqual(['ADDED n1', 'ADDED n2', 'ADDED n3']));
  });

  it('reports objects entering and leaving a selector as ADDED and DELETED', async () => {
    server.store.seed('pods', podManifest({ name: 'web', labels: { app: 'web' } }));
    const stream = await watch('/api/v1/pods', {
      resourceVersion: server.store.resourceVersion,
      labelSelector: 'app=web',
      fieldSelector: 'status.phase=Pending',
    });
    server.store.patch(
      'pods',
      'web',
      { metadata: { labels: { app: 'other' } } },
      'application/merge-patch+json',
    );
    server.store.patch(
      'pods',
      'web',
      { metadata: { labels: { app: 'web' } } },
      'application/merge-patch+json',
    );
    server.store.patch('pods', 'web', { status: { phase: 'Running' } }, 'application/merge-patch+json', {
      subresource: 'status',
    });
    server.store.seed('pods', podManifest({ name: 'db', labels: { app: 'db' } }));
    await eventually(() => expect(stream.types()).toEqual(['DELETED web', 'ADDED web', 'DELETED web']));
  });

  it('answers a resourceVersion older than the history with an in-stream 410 Expired, then ends', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    server.store.seed('nodes', nodeManifest({ name: 'n2' }));
    server.compactHistory();
    const stream = await watch('/api/v1/nodes', { resourceVersion: '1' });
    await eventually(() => expect(stream.done()).toEqual({ error: null }));
    expect(stream.seen).toEqual([
      {
        type: 'ERROR',
        name: undefined,
        resourceVersion: undefined,
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'too old resource version: 1 (2)',
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('expires resourceVersions that fell out of a bounded history', async () => {
    await server.close();
    server = await startFakeKubeApiServer({ historyLimit: 2 });
    for (const name of ['n1', 'n2', 'n3', 'n4']) server.store.seed('nodes', nodeManifest({ name }));
    const fresh = await watch('/api/v1/nodes', { resourceVersion: '2' });
    const stale = await watch('/api/v1/nodes', { resourceVersion: '1' });
    await eventually(() => expect(fresh.types()).toEqual(['ADDED n3', 'ADDED n4']));
    await eventually(() =>
      expect(stale.seen[0]?.object).toMatchObject({ code: 410, message: 'too old resource version: 1 (2)' }),
    );
  });

  it('calls done without an error when the server drops its watches, and with one when the connection dies', async () => {
    const clean = await watch('/api/v1/pods', { resourceVersion: '0' });
    server.dropWatches();
    await eventually(() => expect(clean.done()).toEqual({ error: null }));
    const abrupt = await watch('/api/v1/pods', { resourceVersion: '0' });
    server.dropWatches({ abrupt: true });
    await eventually(() => expect(abrupt.done()?.error).toBeInstanceOf(Error));
    expect(server.openWatches).toBe(0);
  });

  it('sends BOOKMARKs on demand and periodically, only to watches that allow them', async () => {
    await server.close();
    server = await startFakeKubeApiServer({ bookmarkIntervalMs: 50 });
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    const withBookmarks = await watch('/api/v1/nodes', { resourceVersion: '1', allowWatchBookmarks: true });
    const without = await watch('/api/v1/nodes', { resourceVersion: '1' });
    server.sendBookmarks();
    await eventually(() =>
      expect(withBookmarks.seen.filter((e) => e.type === 'BOOKMARK').length).toBeGreaterThanOrEqual(2),
    );
    expect(withBookmarks.seen[0].object).toEqual({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { resourceVersion: '1' },
    });
    expect(without.seen).toEqual([]);
  });

  it('ends the stream after timeoutSeconds', async () => {
    const stream = await watch('/api/v1/nodes', { resourceVersion: '0', timeoutSeconds: 1 });
    await eventually(() => expect(stream.done()).toEqual({ error: null }));
  });

  it('times BOOKMARKs and the watch timeout on the injected timeline', async () => {
    await server.close();
    const time = new VirtualTime();
    server = await startFakeKubeApiServer({ time, bookmarkIntervalMs: 60_000 });
    const stream = await watch('/api/v1/nodes', {
      resourceVersion: '0',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    await eventually(() => expect(time.delays()).toEqual([60_000, 300_000]));

    time.advance(60_000);
    await eventually(() => expect(stream.types()).toEqual(['BOOKMARK']));
    expect(stream.done()).toBeUndefined();
    time.advance(240_000);
    await eventually(() => expect(stream.done()).toEqual({ error: null }));
    expect(stream.types()).toEqual(['BOOKMARK', 'BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
  });

  it('fails a watch with the injected status', async () => {
    server.failNext('watch', '/api/v1/nodes', 503);
    const stream = await watch('/api/v1/nodes', { resourceVersion: '0' });
    await eventually(() => expect(stream.done()?.error).toMatchObject({ statusCode: 503 }));
  });
});

describe('fake API server: client-node informer', () => {
  it('lists, then follows the watch, reconnects after a drop and relists after 410', async () => {
    server.store.seed('pods', podManifest({ name: 'a' }));
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const informer = makeInformer(server.kubeConfig(), '/api/v1/namespaces/default/pods', () =>
      core.listNamespacedPod({ namespace: 'default' }),
    );
    const events: string[] = [];
    informer.on(ADD, (p) => events.push(`add ${p.metadata?.name}`));
    informer.on(UPDATE, (p) => events.push(`update ${p.metadata?.name}`));
    informer.on(DELETE, (p) => events.push(`delete ${p.metadata?.name}`));
    informer.on(ERROR, (e) => events.push(`error ${String(e)}`));
    await informer.start();
    try {
      await eventually(() => expect(server.openWatches).toBe(1));
      server.store.create('pods', podManifest({ name: 'b' }));
      server.store.patch('pods', 'a', { metadata: { labels: { v: '2' } } }, 'application/merge-patch+json');
      await eventually(() => expect(events).toEqual(['add a', 'add b', 'update a']));

      server.dropWatches();
      await eventually(() => expect(server.requests.filter((r) => r.verb === 'watch')).toHaveLength(2));
      server.store.delete('pods', 'b');
      await eventually(() => expect(events.at(-1)).toBe('delete b'));
      expect(informer.list().map((p) => p.metadata?.name)).toEqual(['a']);

      // While the informer is disconnected, a change happens and the history is compacted past it.
      server.dropWatches();
      server.store.create('pods', podManifest({ name: 'c' }));
      server.compactHistory();
      await eventually(() => expect(events.at(-1)).toBe('add c'));
      expect(server.requests.filter((r) => r.verb === 'list')).toHaveLength(2);
      expect(informer.list().map((p) => p.metadata?.name)).toEqual(['a', 'c']);
    } finally {
      await informer.stop();
    }
  });
});
