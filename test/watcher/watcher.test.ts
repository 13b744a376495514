import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapacityChangedDetail } from '../../shared/core/contracts/capacity-changed';
import { parseCapacityChangedDetail } from '../../shared/core/contracts/capacity-changed';
import type { PodsPendingDetail } from '../../shared/core/contracts/pods-pending';
import { parsePodsPendingDetail } from '../../shared/core/contracts/pods-pending';
import type { FakeKubeApiServer } from '../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { VIRTUAL_EPOCH } from '../../sim/virtual-time';
import {
  ec2NodeClassManifest,
  nodeClaimManifest,
  nodeManifest,
  nodePoolManifest,
  podManifest,
  unschedulableCondition,
} from '../../sim/world/builders';
import { WATCHED_RESOURCES } from '../../watcher/watched-resource';
import { eventually } from '../eventually';
import type { WatcherHarness } from './harness';
import { MERGE_PATCH, requestsTo, settle, startedWatcher, watcherFor, watchesOpen } from './harness';

let server: FakeKubeApiServer;
let harness: WatcherHarness | undefined;

beforeEach(async () => {
  server = await startFakeKubeApiServer();
});
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

const pendingDetails = (h: WatcherHarness) => h.publisher.details<PodsPendingDetail>('PodsPending');
const capacityDetails = (h: WatcherHarness) => h.publisher.details<CapacityChangedDetail>('CapacityChanged');
const podNames = (detail: PodsPendingDetail) => detail.pods.map((p) => p.name);
/** Watch requests the server answered with a stream. */
const answeredWatches = (s: FakeKubeApiServer) =>
  s.requests.filter((r) => r.verb === 'watch' && r.status === 200);

function markUnschedulable(name: string): void {
  server.store.patch('pods', name, { status: { conditions: [unschedulableCondition()] } }, MERGE_PATCH, {
    subresource: 'status',
  });
}

async function seenPending(h: WatcherHarness, count: number): Promise<void> {
  await eventually(() => expect(h.watcher.metrics.pendingPodsSeen.get()).toBe(count), { interval: 5 });
}

async function seenCapacity(h: WatcherHarness, reason: string, count: number): Promise<void> {
  await eventually(() => expect(h.watcher.metrics.capacityChangesSeen.get({ reason })).toBe(count), {
    interval: 5,
  });
}

describe('Watcher: PodsPending', () => {
  it('publishes the first pending pod of a quiet cluster at once, and only on the transition', async () => {
    const h = track(await startedWatcher(server));
    const created = server.store.create('pods', podManifest({ name: 'web' }));
    markUnschedulable('web');
    await seenPending(h, 1);

    // Leading edge: no window to wait for.
    await eventually(() => expect(h.publisher.events).toHaveLength(1));
    expect(h.publisher.events[0]).toMatchObject({ source: 'podlift.watcher', detailType: 'PodsPending' });
    expect(parsePodsPendingDetail(h.publisher.events[0].detail)).toEqual({
      schemaVersion: 1,
      cluster: 'test-cluster',
      pods: [{ namespace: 'default', name: 'web', uid: created.metadata.uid }],
      total: 1,
      truncated: false,
    });

    // The scheduler updates the pending pod again: not a new transition. The sentinel, later in
    // the same watch stream, proves the update was seen; it comes within 4 s of the last publish,
    // so it is batched: an idle window later.
    server.store.patch(
      'pods',
      'web',
      { status: { conditions: [unschedulableCondition('0/4 nodes are available')] } },
      MERGE_PATCH,
      { subresource: 'status' },
    );
    server.store.seed('pods', podManifest({ name: 'sentinel', unschedulable: true }));
    await seenPending(h, 2);
    h.time.advance(999);
    await settle();
    expect(pendingDetails(h)).toHaveLength(1);
    h.time.advance(1);
    await eventually(() => expect(pendingDetails(h)).toHaveLength(2));
    expect(podNames(pendingDetails(h)[1])).toEqual(['sentinel']);
  });

  it('publishes the first pod of a burst at once and batches the rest, each at most 4 s after it was seen', async () => {
    const h = track(await startedWatcher(server));
    const names = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `burst-${from + i}`);
    for (let i = 0; i < 24; i++) {
      server.store.seed('pods', podManifest({ name: `burst-${i}`, unschedulable: true }));
      await seenPending(h, i + 1);
      if (i === 0) await eventually(() => expect(pendingDetails(h)).toHaveLength(1));
      if (i === 8) expect(pendingDetails(h)).toHaveLength(1);
      h.time.advance(500);
      await settle();
    }
    // Pods came every 500 ms, so the idle window never closed: burst-0 went at once, then the
    // 4 s maximum closed each window (t = 4.5 s with the pods of 0.5 … 4 s, t = 8.5 s with
    // those of 4.5 … 8 s); the last window closes an idle second after burst-23 (t = 11.5 s).
    await eventually(() => expect(pendingDetails(h)).toHaveLength(3));
    expect(pendingDetails(h).map(podNames)).toEqual([names(0, 0), names(1, 8), names(9, 16)]);
    h.time.advance(500);
    await eventually(() => expect(pendingDetails(h)).toHaveLength(4));
    expect(podNames(pendingDetails(h)[3])).toEqual(names(17, 23));
    expect(h.watcher.metrics.batchSize.count({ detail_type: 'PodsPending' })).toBe(4);
  });

  it('reports pods already unschedulable at start, but not the capacity that existed', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1', ready: true }));
    server.store.seed('pods', podManifest({ name: 'running', nodeName: 'n1', phase: 'Running' }));
    server.store.seed('pods', podManifest({ name: 'waiting', unschedulable: true }));
    server.store.seed('nodepools.karpenter.sh', nodePoolManifest({ name: 'default' }));
    const h = track(await startedWatcher(server));
    h.time.advance(1000);
    await eventually(() => expect(h.publisher.events).toHaveLength(1));
    expect(podNames(pendingDetails(h)[0])).toEqual(['waiting']);
    expect(capacityDetails(h)).toEqual([]);
  });
});

describe('Watcher: CapacityChanged', () => {
  it('reports a node added, becoming Ready and removed in one batch', async () => {
    const h = track(await startedWatcher(server));
    server.store.seed('nodes', nodeManifest({ name: 'ip-10-0-1-1' }));
    await seenCapacity(h, 'nodeAdded', 1);
    server.store.patch(
      'nodes',
      'ip-10-0-1-1',
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      MERGE_PATCH,
      {
        subresource: 'status',
      },
    );
    await seenCapacity(h, 'nodeReady', 1);
    server.store.delete('nodes', 'ip-10-0-1-1');
    await seenCapacity(h, 'nodeRemoved', 1);
    h.time.advance(1000);
    await eventually(() => expect(capacityDetails(h)).toHaveLength(1));
    const detail = parseCapacityChangedDetail(capacityDetails(h)[0]);
    expect(detail).toMatchObject({ cluster: 'test-cluster', total: 3, truncated: false });
    expect(detail.reasons.nodeAdded).toEqual({ count: 1, sample: ['ip-10-0-1-1'] });
    expect(detail.reasons.nodeReady).toEqual({ count: 1, sample: ['ip-10-0-1-1'] });
    expect(detail.reasons.nodeRemoved).toEqual({ count: 1, sample: ['ip-10-0-1-1'] });
    expect(detail.reasons.podRemoved).toEqual({ count: 0, sample: [] });
  });

  it('reports a pod deleted from a node, but not a pending pod deleted', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1', ready: true }));
    server.store.seed('pods', podManifest({ name: 'bound', nodeName: 'n1', phase: 'Running' }));
    server.store.seed('pods', podManifest({ name: 'nowhere' }));
    const h = track(await startedWatcher(server));
    server.store.delete('pods', 'nowhere');
    server.store.delete('pods', 'bound');
    // A bound pod is deleted gracefully; it goes when its kubelet confirms.
    server.store.delete('pods', 'bound', { gracePeriodSeconds: 0 });
    await seenCapacity(h, 'podRemoved', 1);
    h.time.advance(1000);
    await eventually(() => expect(capacityDetails(h)).toHaveLength(1));
    expect(capacityDetails(h)[0]).toMatchObject({
      total: 1,
      reasons: { podRemoved: { count: 1, sample: ['default/bound'] } },
    });
  });

  it('reports NodePool and EC2NodeClass spec changes and NodeClaim condition changes, not status updates', async () => {
    server.store.seed('nodepools.karpenter.sh', nodePoolManifest({ name: 'default' }));
    server.store.seed('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest({ name: 'default' }));
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'default-abcde' }));
    const h = track(await startedWatcher(server));

    server.store.patch(
      'nodepools.karpenter.sh',
      'default',
      { status: { resources: { cpu: '4' } } },
      MERGE_PATCH,
      {
        subresource: 'status',
      },
    );
    server.store.patch(
      'nodepools.karpenter.sh',
      'default',
      { metadata: { labels: { team: 'a' } } },
      MERGE_PATCH,
    );
    server.store.patch(
      'nodepools.karpenter.sh',
      'default',
      { spec: { limits: { cpu: '200' } } },
      MERGE_PATCH,
    );
    await seenCapacity(h, 'nodePoolChanged', 1);
    server.store.patch(
      'ec2nodeclasses.karpenter.k8s.aws',
      'default',
      { spec: { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] } },
      MERGE_PATCH,
    );
    await seenCapacity(h, 'nodeClassChanged', 1);
    server.store.patch(
      'nodeclaims.karpenter.sh',
      'default-abcde',
      { status: { conditions: [{ type: 'Launched', status: 'True' }] } },
      MERGE_PATCH,
      { subresource: 'status' },
    );
    await seenCapacity(h, 'nodeClaimChanged', 1);
    h.time.advance(1000);
    await eventually(() => expect(capacityDetails(h)).toHaveLength(1));
    expect(capacityDetails(h)[0]).toMatchObject({
      total: 3,
      reasons: {
        nodePoolChanged: { count: 1, sample: ['default'] },
        nodeClassChanged: { count: 1, sample: ['default'] },
        nodeClaimChanged: { count: 1, sample: ['default-abcde'] },
      },
    });
  });
});

describe('Watcher: validation wake-ups', () => {
  const recordCommand = (claim: string, decidedAt: number) =>
    server.store.patch(
      'nodeclaims.karpenter.sh',
      claim,
      {
        metadata: {
          annotations: {
            'podlift.dev/disruption-command': JSON.stringify({
              id: 'cmd-1',
              method: 'emptiness',
              decidedAt: new Date(decidedAt).toISOString(),
              candidates: ['a', 'b'],
            }),
          },
        },
      },
      MERGE_PATCH,
    );

  it('wakes the disruption function once, just after a recorded command is due for validation', async () => {
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'a' }));
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'b' }));
    const h = track(await startedWatcher(server));
    const decidedAt = h.time.now();
    recordCommand('a', decidedAt);
    recordCommand('b', decidedAt);
    await eventually(() => expect(h.time.delays().filter((d) => d === 16_000)).toHaveLength(2));
    // Recording is not a hint; nothing is published until the command is due.
    await h.time.advanceAsync(15_999);
    expect(h.watcher.metrics.capacityChangesSeen.get({ reason: 'validationDue' })).toBe(0);
    await h.time.advanceAsync(1);
    await seenCapacity(h, 'validationDue', 2);
    await h.time.advanceAsync(1000);
    await eventually(() => expect(capacityDetails(h)).toHaveLength(1));
    expect(capacityDetails(h)[0]).toMatchObject({
      total: 2,
      reasons: { validationDue: { count: 2, sample: ['a', 'b'] } },
    });
    // A later change of the same NodeClaim does not wake it again for the same command.
    server.store.patch(
      'nodeclaims.karpenter.sh',
      'a',
      { status: { conditions: [{ type: 'Drifted', status: 'True' }] } },
      MERGE_PATCH,
      { subresource: 'status' },
    );
    await seenCapacity(h, 'nodeClaimChanged', 1);
    await h.time.advanceAsync(60_000);
    expect(h.watcher.metrics.capacityChangesSeen.get({ reason: 'validationDue' })).toBe(2);
  });

  it('wakes at once for a command already due when it starts, and leaves no timer behind on stop', async () => {
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'a' }));
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'b' }));
    recordCommand('a', VIRTUAL_EPOCH - 60_000);
    const h = track(await startedWatcher(server));
    await h.time.advanceAsync(0);
    await seenCapacity(h, 'validationDue', 1);
    recordCommand('b', h.time.now());
    await eventually(() => expect(h.time.delays()).toContain(16_000));
    await h.watcher.stop();
    expect(h.time.pending).toBe(0);
  });
});

describe('Watcher: consolidatable wake-ups', () => {
  const initialized = (at: number) => ({
    type: 'Initialized',
    status: 'True',
    lastTransitionTime: new Date(at).toISOString(),
  });
  const setStatus = (claim: string, status: Record<string, unknown>) =>
    server.store.patch('nodeclaims.karpenter.sh', claim, { status }, MERGE_PATCH, { subresource: 'status' });
  const withConsolidateAfter = (consolidateAfter: string) => {
    const pool = nodePoolManifest();
    return { ...pool, spec: { ...(pool.spec as object), disruption: { consolidateAfter } } };
  };

  it("wakes the disruption function when a NodeClaim's consolidateAfter is up since its last pod event", async () => {
    server.store.seed('nodepools.karpenter.sh', withConsolidateAfter('1m'));
    server.store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'a' }));
    const h = track(await startedWatcher(server));
    const start = h.time.now();
    setStatus('a', { conditions: [initialized(start)] });
    await seenCapacity(h, 'nodeClaimChanged', 1);
    await eventually(() => expect(h.time.delays()).toContain(61_000));
    // A pod event recorded 20 s later moves the wake-up; the status write itself is no hint.
    await h.time.advanceAsync(20_000);
    setStatus('a', { lastPodEventTime: new Date(start + 20_000).toISOString() });
    await eventually(() => expect(h.time.delays()).not.toContain(41_000));
    expect(h.time.delays()).toContain(61_000);
    await h.time.advanceAsync(60_999);
    expect(h.watcher.metrics.capacityChangesSeen.get({ reason: 'consolidatableDue' })).toBe(0);
    await h.time.advanceAsync(1);
    await seenCapacity(h, 'consolidatableDue', 1);
    await h.time.advanceAsync(1000);
    await eventually(() =>
      expect(capacityDetails(h).at(-1)).toMatchObject({
        reasons: { consolidatableDue: { count: 1, sample: ['a'] } },
      }),
    );
    expect(h.watcher.metrics.capacityChangesSeen.get({ reason: 'nodeClaimChanged' })).toBe(1);
    // Once the function marks it Consolidatable nothing is pending for it; a later pod event
    // (the condition removed again) sets a timer, which stopping the watcher clears.
    setStatus('a', { conditions: [initialized(start), { type: 'Consolidatable', status: 'True' }] });
    await seenCapacity(h, 'nodeClaimChanged', 2);
    setStatus('a', {
      conditions: [initialized(start)],
      lastPodEventTime: new Date(h.time.now()).toISOString(),
    });
    await eventually(() => expect(h.time.delays()).toContain(61_000));
    await h.watcher.stop();
    expect(h.time.pending).toBe(0);
  });

  it('sets no wake-up for a NodePool that never consolidates, and one when it starts to', async () => {
    server.store.seed('nodepools.karpenter.sh', withConsolidateAfter('Never'));
    server.store.seed('nodeclaims.karpenter.sh', {
      ...nodeClaimManifest({ name: 'a' }),
      status: { conditions: [initialized(VIRTUAL_EPOCH - 600_000)] },
    });
    const h = track(await startedWatcher(server));
    await h.time.advanceAsync(120_000);
    expect(h.watcher.metrics.capacityChangesSeen.get({ reason: 'consolidatableDue' })).toBe(0);
    server.store.patch(
      'nodepools.karpenter.sh',
      'default',
      { spec: { disruption: { consolidateAfter: '5m' } } },
      MERGE_PATCH,
    );
    // Quiet for ten minutes already: due at once (and the slack).
    await eventually(() => expect(h.time.delays()).toContain(1000));
    await h.time.advanceAsync(1000);
    await seenCapacity(h, 'consolidatableDue', 1);
  });
});

describe('Watcher: list and watch', () => {
  it('resumes dropped watches from their resourceVersion without relisting or repeating hints', async () => {
    const h = track(await startedWatcher(server));
    server.store.seed('pods', podManifest({ name: 'first', unschedulable: true }));
    await seenPending(h, 1);
    h.time.advance(1000);
    await eventually(() => expect(pendingDetails(h)).toHaveLength(1));

    const rvBefore = server.store.resourceVersion;
    server.dropWatches();
    await eventually(() => expect(requestsTo(server, 'watch', '/api/v1/pods')).toHaveLength(2));
    // The pods watch had delivered events, so it came back at once; the quiet ones wait a backoff.
    h.time.advance(1000);
    await watchesOpen(h);
    expect(requestsTo(server, 'watch', '/api/v1/pods').at(-1)?.query.resourceVersion).toBe(rvBefore);
    expect(server.requests.filter((r) => r.verb === 'list')).toHaveLength(5);

    server.store.seed('pods', podManifest({ name: 'second', unschedulable: true }));
    await seenPending(h, 2);
    h.time.advance(1000);
    await eventually(() => expect(pendingDetails(h)).toHaveLength(2));
    expect(podNames(pendingDetails(h)[1])).toEqual(['second']);
    expect(h.watcher.metrics.watchRestarts.get({ resource: 'pods' })).toBe(0);
  });

  it('relists after 410 Expired and reports only what changed while it was away', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1', ready: true }));
    server.store.seed('pods', podManifest({ name: 'early', unschedulable: true }));
    const h = track(await startedWatcher(server));

    // Dropped at once and with nothing delivered, every watch waits a backoff before resuming;
    // meanwhile things change and the history is compacted past the resourceVersion it holds.
    server.dropWatches();
    await eventually(() => expect(server.openWatches).toBe(0));
    server.store.seed('pods', podManifest({ name: 'late', unschedulable: true }));
    server.store.delete('nodes', 'n1');
    server.compactHistory();
    h.time.advance(1000);

    await eventually(() => expect(requestsTo(server, 'list', '/api/v1/pods')).toHaveLength(2));
    await watchesOpen(h);
    expect(requestsTo(server, 'watch', '/api/v1/pods').map((r) => r.status)).toEqual([200, 200, 200]);
    expect(h.watcher.metrics.watchRestarts.get({ resource: 'pods' })).toBe(1);
    expect(h.watcher.metrics.watchRestarts.get({ resource: 'nodes' })).toBe(1);
    await seenPending(h, 2);
    await seenCapacity(h, 'nodeRemoved', 1);
    h.time.advance(1000);
    await eventually(() => expect(h.publisher.events).toHaveLength(3));
    expect(pendingDetails(h).map(podNames)).toEqual([['early'], ['late']]);
    expect(capacityDetails(h)[0].reasons.nodeRemoved).toEqual({ count: 1, sample: ['n1'] });
  });

  it('retries a failed list after a backoff and only then becomes ready', async () => {
    server.failNext('list', '/api/v1/nodes', 500);
    const h = track(watcherFor(server));
    h.watcher.start();
    await eventually(() => expect(h.watcher.metrics.watchRestarts.get({ resource: 'nodes' })).toBe(1));
    await watchesOpen(h, 4);
    expect(h.watcher.ready).toBe(false);
    expect(h.watcher.readiness()).toMatchObject({ nodes: { ready: false }, pods: { ready: true } });

    h.time.advance(999);
    await settle();
    expect(requestsTo(server, 'list', '/api/v1/nodes')).toHaveLength(1);
    h.time.advance(1);
    await eventually(() => expect(h.watcher.ready).toBe(true));
    expect(requestsTo(server, 'list', '/api/v1/nodes')).toHaveLength(2);
  });

  it('restarts broken watches with exponential backoff and counts each restart', async () => {
    const h = track(await startedWatcher(server));
    server.failNext('watch', '/api/v1/nodes', 500);
    server.dropWatches({ abrupt: true });
    // Each client sees its connection go on its own: wait until every retry is scheduled before
    // moving the clock, or a late one is scheduled from the moved clock and never falls due.
    await eventually(() => {
      for (const resource of WATCHED_RESOURCES)
        expect(h.watcher.metrics.watchRestarts.get({ resource }), resource).toBe(1);
    });
    h.time.advance(999);
    await settle();
    expect(requestsTo(server, 'watch', '/api/v1/nodes')).toHaveLength(1);

    // First retry: the nodes watch is refused with 500, a second failure in a row.
    h.time.advance(1);
    await eventually(() => expect(h.watcher.metrics.watchRestarts.get({ resource: 'nodes' })).toBe(2));
    await watchesOpen(h, 4);
    h.time.advance(1999);
    await settle();
    expect(requestsTo(server, 'watch', '/api/v1/nodes')).toHaveLength(2);
    h.time.advance(1);
    await watchesOpen(h);

    server.store.seed('nodes', nodeManifest({ name: 'after-restart' }));
    await seenCapacity(h, 'nodeAdded', 1);
    expect(requestsTo(server, 'list', '/api/v1/nodes')).toHaveLength(1);
  });
  it('restarts a watch that outlived the server timeout, as a silently dead connection would', async () => {
    const h = track(await startedWatcher(server));
    h.time.advance(359_999);
    await settle();
    expect(requestsTo(server, 'watch', '/api/v1/pods')).toHaveLength(1);
    h.time.advance(1);
    // Each watch's stall timer ran within that step, counted from its request.
    for (const resource of WATCHED_RESOURCES)
      expect(h.watcher.metrics.watchRestarts.get({ resource }), resource).toBe(1);
    await eventually(() => expect(answeredWatches(server)).toHaveLength(10));
    expect(requestsTo(server, 'watch', '/api/v1/pods').at(-1)?.query.resourceVersion).toBe(
      requestsTo(server, 'watch', '/api/v1/pods')[0].query.resourceVersion,
    );
    expect(server.requests.filter((r) => r.verb === 'list')).toHaveLength(5);
  });

  it('gives up a watch request the server never answers after the same time, and watches again', async () => {
    server.hangNext('watch', '/api/v1/pods');
    const h = track(watcherFor(server));
    h.watcher.start();
    await watchesOpen(h, 4);
    await eventually(() => expect(requestsTo(server, 'watch', '/api/v1/pods')).toHaveLength(1));
    expect(requestsTo(server, 'watch', '/api/v1/pods')[0].status).toBe(0);

    h.time.advance(359_999);
    await settle();
    expect(requestsTo(server, 'watch', '/api/v1/pods')).toHaveLength(1);
    h.time.advance(1);
    expect(h.watcher.metrics.watchRestarts.get({ resource: 'pods' })).toBe(1);
    await eventually(() => expect(requestsTo(server, 'watch', '/api/v1/pods')).toHaveLength(2));
    await eventually(() => expect(requestsTo(server, 'watch', '/api/v1/pods')[1].status).toBe(200));

    // The new watch carries on from the list: a pod marked now is hinted.
    server.store.seed('pods', podManifest({ name: 'after-hang', unschedulable: true }));
    await seenPending(h, 1);
    expect(requestsTo(server, 'list', '/api/v1/pods')).toHaveLength(1);
  });
});

describe('Watcher: stop', () => {
  it('publishes the batch in hand at once and closes its watches', async () => {
    const h = track(await startedWatcher(server));
    server.store.seed('pods', podManifest({ name: 'web', unschedulable: true }));
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    await seenPending(h, 1);
    await seenCapacity(h, 'nodeAdded', 1);
    await h.watcher.stop();
    expect(h.publisher.events.map((e) => e.detailType).sort()).toEqual(['CapacityChanged', 'PodsPending']);
    await eventually(() => expect(server.openWatches).toBe(0));
    expect(h.time.pending).toBe(0);
  });
});
