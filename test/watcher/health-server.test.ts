import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { podManifest } from '../../sim/world/builders';
import type { HealthServer } from '../../watcher/health-server';
import { startHealthServer } from '../../watcher/health-server';
import { eventually } from '../eventually';
import type { WatcherHarness } from './harness';
import { watcherFor, watchesOpen } from './harness';

let kube: FakeKubeApiServer;
let harness: WatcherHarness;
let health: HealthServer;

beforeEach(async () => {
  kube = await startFakeKubeApiServer();
  harness = watcherFor(kube);
  health = await startHealthServer(harness.watcher, { port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await harness.watcher.stop();
  await health.close();
  await kube.close();
});

async function get(path: string): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(`http://127.0.0.1:${health.port}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

describe('health server', () => {
  it('answers /healthz while alive and /readyz 503, resource by resource, until every one is listed', async () => {
    kube.failNext('list', '/apis/karpenter.sh/v1/nodeclaims', 503);
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get('/readyz')).toMatchObject({ status: 503 });

    harness.watcher.start();
    await watchesOpen(harness, 4);
    // The failed list is handled on its own answer, not before the other four watches open:
    // wait for it, or /readyz may not say why yet and its retry be scheduled after the clock moved.
    await eventually(() =>
      expect(harness.watcher.metrics.watchRestarts.get({ resource: 'nodeclaims' })).toBe(1),
    );
    const notYet = await get('/readyz');
    expect(notYet.status).toBe(503);
    expect(notYet.body).toContain(
      'nodeclaims: not ready: not listed yet: listing nodeclaims failed: 503 ServiceUnavailable: the server is currently unable to handle the request\n',
    );
    expect(notYet.body).toContain('pods: ready, last heard 0s ago');

    harness.time.advance(1000);
    await watchesOpen(harness);
    expect(await get('/readyz')).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      body: [
        'pods: ready, last heard 1s ago',
        'nodes: ready, last heard 1s ago',
        'nodepools: ready, last heard 1s ago',
        'ec2nodeclasses: ready, last heard 1s ago',
        'nodeclaims: ready, last heard 0s ago',
        '',
      ].join('\n'),
    });
    expect((await get('/nope')).status).toBe(404);
  });

  it('serves the metrics in the Prometheus text format', async () => {
    harness.watcher.start();
    await watchesOpen(harness);
    harness.publisher.failNext(1);
    kube.store.seed('pods', podManifest({ name: 'web', unschedulable: true }));
    kube.store.seed('pods', podManifest({ name: 'api', unschedulable: true }));
    await eventually(() => expect(harness.watcher.metrics.pendingPodsSeen.get()).toBe(2));
    harness.time.advance(1000);
    await eventually(() =>
      expect(harness.watcher.metrics.publishFailures.get({ detail_type: 'PodsPending' })).toBe(1),
    );
    harness.time.advance(1000);
    await eventually(() => expect(harness.publisher.events).toHaveLength(1));

    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const lines = metrics.body.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE podlift_watcher_events_published_total counter',
        'podlift_watcher_events_published_total{detail_type="PodsPending"} 1',
        'podlift_watcher_events_published_total{detail_type="CapacityChanged"} 0',
        'podlift_watcher_publish_failures_total{detail_type="PodsPending"} 1',
        'podlift_watcher_watch_restarts_total{resource="nodes"} 0',
        'podlift_watcher_pending_pods_seen_total 2',
        '# TYPE podlift_watcher_batch_size histogram',
        'podlift_watcher_batch_size_bucket{detail_type="PodsPending",le="1"} 0',
        'podlift_watcher_batch_size_bucket{detail_type="PodsPending",le="2"} 1',
        'podlift_watcher_batch_size_bucket{detail_type="PodsPending",le="+Inf"} 1',
        'podlift_watcher_batch_size_sum{detail_type="PodsPending"} 2',
        'podlift_watcher_batch_size_count{detail_type="PodsPending"} 1',
      ]),
    );
    expect(metrics.body.endsWith('\n')).toBe(true);
  });
});
