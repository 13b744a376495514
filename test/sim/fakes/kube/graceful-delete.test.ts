import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import type { StoredEvent } from '../../../../sim/fakes/kube/store';
import { VirtualTime } from '../../../../sim/virtual-time';
import { nodeManifest, podManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

// Cases from kubernetes pkg/registry/core/pod/strategy_test.go (TestCheckGracefulDelete),
// apiserver pkg/registry/rest/delete_test.go (TestBeforeDelete) and
// pkg/registry/generic/registry/store_test.go (TestGracefulStoreHandleFinalizers,
// TestStoreDeleteWithGracePeriod...), played through the real client.

const START = Date.parse('2026-11-21T10:00:00Z');
let time: VirtualTime;
let server: FakeKubeApiServer;
let core: CoreV1Api;
let events: string[];

beforeEach(async () => {
  time = new VirtualTime(START);
  server = await startFakeKubeApiServer({ time });
  core = server.kubeConfig().makeApiClient(CoreV1Api);
  events = [];
  server.store.subscribe((e: StoredEvent) => {
    if (e.resource.plural === 'pods')
      events.push(`${e.type} ${e.object.metadata.deletionGracePeriodSeconds ?? '-'}`);
  });
});
afterEach(() => server.close());

const at = (seconds: number) => new Date(START + seconds * 1000).toISOString().replace('.000Z', 'Z');
/** A pod delete; with a uid the options go in the body (as the kubelet sends them), else in the query. */
const del = (name: string, gracePeriodSeconds?: number, uid?: string) =>
  core.deleteNamespacedPod({
    name,
    namespace: 'default',
    ...(uid
      ? { body: { gracePeriodSeconds, preconditions: { uid } } }
      : gracePeriodSeconds !== undefined
        ? { gracePeriodSeconds }
        : {}),
  });
const stored = (name: string) => server.store.find('pods', name);

describe('fake API server: graceful pod deletion', () => {
  it('gives a bound pod its terminationGracePeriodSeconds: deletionTimestamp is when the grace ends', async () => {
    server.store.seed('pods', {
      ...podManifest({ name: 'web', nodeName: 'n1', ready: true }),
      spec: { nodeName: 'n1', terminationGracePeriodSeconds: 45, containers: [{ name: 'app' }] },
    });
    const answer = await del('web');
    expect(answer.metadata?.deletionGracePeriodSeconds).toBe(45);
    expect(stored('web')?.metadata).toMatchObject({
      deletionTimestamp: at(45),
      deletionGracePeriodSeconds: 45,
      generation: 2,
    });
    expect(events).toEqual(['ADDED -', 'MODIFIED 45']);
  });

  it('defaults the grace to 30 seconds and takes the request’s over the pod’s', async () => {
    server.store.seed('pods', podManifest({ name: 'a', nodeName: 'n1', ready: true }));
    server.store.seed('pods', podManifest({ name: 'b', nodeName: 'n1', ready: true }));
    await del('a');
    await del('b', 5);
    expect(stored('a')?.metadata.deletionTimestamp).toBe(at(30));
    expect(stored('b')?.metadata).toMatchObject({ deletionTimestamp: at(5), deletionGracePeriodSeconds: 5 });
  });

  it('deletes unscheduled and finished pods at once, after a MODIFIED with grace 0', async () => {
    server.store.seed('pods', podManifest({ name: 'pending' }));
    server.store.seed('pods', podManifest({ name: 'done', nodeName: 'n1', phase: 'Succeeded' }));
    await del('pending', 60);
    await del('done');
    expect(stored('pending')).toBeUndefined();
    expect(stored('done')).toBeUndefined();
    expect(events.slice(2)).toEqual(['MODIFIED 0', 'DELETED 0', 'MODIFIED 0', 'DELETED 0']);
  });

  it('only shortens the grace on a repeated delete, moving the deletionTimestamp by the difference', async () => {
    server.store.seed('pods', podManifest({ name: 'web', nodeName: 'n1', ready: true }));
    await del('web');
    time.advance(10_000);
    await del('web', 60);
    await del('web');
    expect(stored('web')?.metadata).toMatchObject({
      deletionTimestamp: at(30),
      deletionGracePeriodSeconds: 30,
    });
    await del('web', 10);
    expect(stored('web')?.metadata).toMatchObject({
      deletionTimestamp: at(10),
      deletionGracePeriodSeconds: 10,
    });
    expect(events).toEqual(['ADDED -', 'MODIFIED 30', 'MODIFIED 10']);
  });

  it('deletes a terminating pod when the kubelet confirms with grace 0 and its uid', async () => {
    const pod = server.store.seed('pods', podManifest({ name: 'web', nodeName: 'n1', ready: true }));
    await del('web');
    expect((await rejection(del('web', 0, 'another-uid'))).code).toBe(409);
    await del('web', 0, pod.metadata.uid);
    expect(stored('web')).toBeUndefined();
    expect(events).toEqual(['ADDED -', 'MODIFIED 30', 'MODIFIED 0', 'DELETED 0']);
  });

  it('keeps a pod with a finalizer after the kubelet confirms, until the finalizer goes', async () => {
    server.store.seed('pods', {
      ...podManifest({ name: 'web', nodeName: 'n1', ready: true }),
      metadata: { name: 'web', namespace: 'default', finalizers: ['example.com/hold'] },
    });
    await del('web', 0);
    expect(stored('web')?.metadata).toMatchObject({
      deletionGracePeriodSeconds: 0,
      deletionTimestamp: at(0),
    });
    await del('web', 0);
    expect(events).toEqual(['ADDED -', 'MODIFIED 0']);
    const current = server.store.get('pods', 'web');
    server.store.update('pods', { ...current, metadata: { ...current.metadata, finalizers: [] } });
    expect(stored('web')).toBeUndefined();
  });

  it('does not delete a pod still in its grace when its last finalizer is removed', async () => {
    server.store.seed('pods', {
      ...podManifest({ name: 'web', nodeName: 'n1', ready: true }),
      metadata: { name: 'web', namespace: 'default', finalizers: ['example.com/hold'] },
    });
    await del('web');
    const current = server.store.get('pods', 'web');
    server.store.update('pods', { ...current, metadata: { ...current.metadata, finalizers: [] } });
    expect(stored('web')?.metadata.deletionGracePeriodSeconds).toBe(30);
    await del('web', 0);
    expect(stored('web')).toBeUndefined();
  });

  it('reads gracePeriodSeconds from the query when the request has no body', async () => {
    server.store.seed('pods', podManifest({ name: 'web', nodeName: 'n1', ready: true }));
    await del('web', 7);
    expect(server.requests.at(-1)).toMatchObject({ verb: 'delete', query: { gracePeriodSeconds: '7' } });
    expect(stored('web')?.metadata.deletionGracePeriodSeconds).toBe(7);
  });

  it('still deletes a Node without finalizers at once and marks one with finalizers at grace 0', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    server.store.seed('nodes', {
      ...nodeManifest({ name: 'n2' }),
      metadata: { name: 'n2', finalizers: ['f'] },
    });
    await core.deleteNode({ name: 'n1', gracePeriodSeconds: 30 });
    await core.deleteNode({ name: 'n2', gracePeriodSeconds: 30 });
    expect(server.store.find('nodes', 'n1')).toBeUndefined();
    expect(server.store.get('nodes', 'n2').metadata).toMatchObject({
      deletionTimestamp: at(0),
      deletionGracePeriodSeconds: 0,
    });
  });
});
