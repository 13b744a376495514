import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { VirtualTime } from '../../../../sim/virtual-time';
import { nodeManifest, podManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

let server: FakeKubeApiServer;
let core: CoreV1Api;

beforeEach(async () => {
  server = await startFakeKubeApiServer({ time: new VirtualTime(Date.parse('2026-11-21T10:00:00.123Z')) });
  core = server.kubeConfig().makeApiClient(CoreV1Api);
});
afterEach(() => server.close());

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategicPatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

describe('fake API server: core/v1 reads', () => {
  it('creates a pod with server-set metadata and a Pending status', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      // The builders make the JSON the wire carries; client-node's models differ only in typing dates.
      body: podManifest({ name: 'web-1', ready: true }) as V1Pod,
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toBe('1');
    expect(created.metadata?.generation).toBe(1);
    expect(created.metadata?.creationTimestamp).toEqual(new Date('2026-11-21T10:00:00Z'));
    expect(created.status?.phase).toBe('Pending');
    expect(created.kind).toBe('Pod');
    const read = await core.readNamespacedPod({ name: 'web-1', namespace: 'default' });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
  });

  it('names objects from generateName', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { generateName: 'inflate-' }, spec: { containers: [] } },
    });
    expect(created.metadata?.name).toMatch(/^inflate-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('answers 409 AlreadyExists and 404 NotFound with real Status bodies', async () => {
    await core.createNode({ body: nodeManifest({ name: 'ip-10-0-0-1' }) as V1Node });
    const duplicate = await rejection(
      core.createNode({ body: nodeManifest({ name: 'ip-10-0-0-1' }) as V1Node }),
    );
    expect(duplicate).toEqual({
      code: 409,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'nodes "ip-10-0-0-1" already exists',
        reason: 'AlreadyExists',
        details: { name: 'ip-10-0-0-1', kind: 'nodes' },
        code: 409,
      },
    });
    const missing = await rejection(core.readNamespacedPod({ name: 'nope', namespace: 'default' }));
    expect(missing.code).toBe(404);
    expect(missing.status).toMatchObject({ reason: 'NotFound', message: 'pods "nope" not found' });
  });

  it('lists pods in all namespaces with a global list resourceVersion', async () => {
    server.store.seed('pods', podManifest({ name: 'a', namespace: 'team-a' }));
    server.store.seed('pods', podManifest({ name: 'b', namespace: 'team-b' }));
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    const list = await core.listPodForAllNamespaces();
    expect(list.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)).toEqual([
      'team-a/a',
      'team-b/b',
    ]);
    expect(list.metadata?.resourceVersion).toBe('3');
    expect((await core.listNamespacedPod({ namespace: 'team-b' })).items).toHaveLength(1);
  });

  it('filters by label selectors: equality, !=, in, notin, exists and !key', async () => {
    server.store.seed(
      'nodes',
      nodeManifest({
        name: 'spot',
        labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'spot' },
      }),
    );
    server.store.seed(
      'nodes',
      nodeManifest({
        name: 'od',
        labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'on-demand' },
      }),
    );
    server.store.seed('nodes', nodeManifest({ name: 'unmanaged', labels: { role: 'system' } }));
    const names = async (labelSelector: string) =>
      (await core.listNode({ labelSelector })).items.map((n) => n.metadata?.name);
    expect(await names('karpenter.sh/nodepool')).toEqual(['od', 'spot']);
    expect(await names('!karpenter.sh/nodepool')).toEqual(['unmanaged']);
    expect(await names('karpenter.sh/capacity-type=spot')).toEqual(['spot']);
    expect(await names('karpenter.sh/capacity-type==spot')).toEqual(['spot']);
    expect(await names('karpenter.sh/capacity-type!=spot')).toEqual(['od', 'unmanaged']);
    expect(await names('karpenter.sh/capacity-type in (spot, on-demand)')).toEqual(['od', 'spot']);
    expect(await names('karpenter.sh/capacity-type notin (spot),role')).toEqual(['unmanaged']);
    expect((await rejection(core.listNode({ labelSelector: 'a in b' }))).code).toBe(400);
  });

  it('filters by field selectors on name, namespace, spec.nodeName and status.phase', async () => {
    server.store.seed('pods', podManifest({ name: 'pending' }));
    server.store.seed('pods', podManifest({ name: 'running', nodeName: 'n1', ready: true }));
    server.store.seed(
      'pods',
      podManifest({ name: 'other-ns', namespace: 'kube-system', nodeName: 'n1', ready: true }),
    );
    const names = async (fieldSelector: string) =>
      (await core.listPodForAllNamespaces({ fieldSelector })).items.map((p) => p.metadata?.name);
    expect(await names('status.phase=Pending')).toEqual(['pending']);
    expect(await names('spec.nodeName==n1,metadata.namespace!=kube-system')).toEqual(['running']);
    expect(await names('spec.nodeName=')).toEqual(['pending']);
    expect(await names('metadata.name=other-ns')).toEqual(['other-ns']);
    const unsupported = await rejection(core.listPodForAllNamespaces({ fieldSelector: 'spec.priority=1' }));
    expect(unsupported).toMatchObject({
      code: 400,
      status: { message: 'field label not supported: spec.priority' },
    });
  });

  it('paginates with limit and continue over a consistent snapshot', async () => {
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) server.store.seed('pods', podManifest({ name }));
    const first = await core.listNamespacedPod({ namespace: 'default', limit: 2 });
    expect(first.items.map((p) => p.metadata?.name)).toEqual(['p1', 'p2']);
    expect(first.metadata?.remainingItemCount).toBe(3);
    server.store.delete('pods', 'p3');
    const second = await core.listNamespacedPod({
      namespace: 'default',
      limit: 2,
      _continue: first.metadata?._continue,
    });
    expect(second.items.map((p) => p.metadata?.name)).toEqual(['p3', 'p4']);
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    const third = await core.listNamespacedPod({
      namespace: 'default',
      limit: 2,
      _continue: second.metadata?._continue,
    });
    expect(third.items.map((p) => p.metadata?.name)).toEqual(['p5']);
    expect(third.metadata?._continue).toBeUndefined();
  });

  it('answers resourceVersion=0 from the watch cache: the whole list before 1.34, and refuses it with continue', async () => {
    for (const name of ['p1', 'p2', 'p3']) server.store.seed('pods', podManifest({ name }));
    const cached = await core.listNamespacedPod({ namespace: 'default', limit: 1, resourceVersion: '0' });
    expect(cached.items.map((p) => p.metadata?.name)).toEqual(['p1', 'p2', 'p3']);
    expect(cached.metadata?._continue).toBeUndefined();
    const first = await core.listNamespacedPod({ namespace: 'default', limit: 1 });
    const refused = await rejection(
      core.listNamespacedPod({
        namespace: 'default',
        limit: 1,
        resourceVersion: '0',
        _continue: first.metadata?._continue,
      }),
    );
    expect(refused).toMatchObject({
      code: 400,
      status: { message: 'specifying resource version is not allowed when using continue' },
    });
  });

  it('expires continue tokens after a compaction with 410 Expired', async () => {
    for (const name of ['p1', 'p2', 'p3']) server.store.seed('pods', podManifest({ name }));
    const first = await core.listNamespacedPod({ namespace: 'default', limit: 1 });
    server.compactHistory();
    const stale = await rejection(
      core.listNamespacedPod({ namespace: 'default', limit: 1, _continue: first.metadata?._continue }),
    );
    expect(stale).toMatchObject({ code: 410, status: { reason: 'Expired' } });
  });
});

describe('fake API server: core/v1 writes', () => {
  it('rejects a replace with a stale resourceVersion with 409 Conflict', async () => {
    const created = await core.createNode({ body: nodeManifest({ name: 'n1' }) as V1Node });
    await core.replaceNode({
      name: 'n1',
      body: { ...created, metadata: { ...created.metadata, labels: { a: '1' } } },
    });
    const stale = await rejection(
      core.replaceNode({
        name: 'n1',
        body: { ...created, metadata: { ...created.metadata, labels: { a: '2' } } },
      }),
    );
    expect(stale).toEqual({
      code: 409,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'Operation cannot be fulfilled on nodes "n1": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: { name: 'n1', kind: 'nodes' },
        code: 409,
      },
    });
    expect(server.store.get('nodes', 'n1').metadata.labels).toEqual({ a: '1' });
  });

  it('merge-patches a node and bumps its resourceVersion', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1', labels: { keep: 'yes', drop: 'yes' } }));
    const patched = await core.patchNode(
      {
        name: 'n1',
        body: { metadata: { labels: { drop: null, added: 'yes' } }, spec: { unschedulable: true } },
      },
      mergePatch,
    );
    expect(patched.metadata?.labels).toEqual({ keep: 'yes', added: 'yes' });
    expect(patched.spec?.unschedulable).toBe(true);
    expect(patched.metadata?.resourceVersion).toBe('2');
    expect(server.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      verb: 'patch',
      contentType: PatchStrategy.MergePatch,
    });
  });

  it('applies JSON patches, using test on resourceVersion for optimistic concurrency (422 when stale)', async () => {
    const created = server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    const taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
    const patched = await core.patchNode({
      name: 'n1',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: created.metadata.resourceVersion },
        { op: 'add', path: '/spec/taints', value: [taint] },
      ],
    });
    expect(patched.spec?.taints).toEqual([taint]);
    const stale = await rejection(
      core.patchNode({
        name: 'n1',
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: created.metadata.resourceVersion },
          { op: 'remove', path: '/spec/taints' },
        ],
      }),
    );
    expect(stale.code).toBe(422);
    expect(stale.status).toMatchObject({ reason: 'Invalid', status: 'Failure' });
    expect(server.store.get('nodes', 'n1').spec).toEqual({ taints: [taint] });
  });

  it('treats a resourceVersion inside a merge patch as a precondition', async () => {
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    const stale = await rejection(
      core.patchNode(
        { name: 'n1', body: { metadata: { resourceVersion: '0', labels: { a: 'b' } } } },
        mergePatch,
      ),
    );
    expect(stale).toMatchObject({ code: 409, status: { reason: 'Conflict' } });
  });

  it('strategic-merge-patches finalizers as a set and taints as a replacement', async () => {
    server.store.seed('nodes', {
      ...nodeManifest({ name: 'n1', taints: [{ key: 'a', effect: 'NoSchedule' }] }),
      metadata: { name: 'n1', finalizers: ['karpenter.sh/termination'] },
    });
    const patched = await core.patchNode(
      {
        name: 'n1',
        body: {
          metadata: { finalizers: ['podlift.dev/drain'] },
          spec: { taints: [{ key: 'b', effect: 'NoExecute' }] },
        },
      },
      strategicPatch,
    );
    expect(patched.metadata?.finalizers).toEqual(['karpenter.sh/termination', 'podlift.dev/drain']);
    expect(patched.spec?.taints).toEqual([{ key: 'b', effect: 'NoExecute' }]);
  });

  it('ignores status in a main update and changes only status through /status', async () => {
    server.store.seed('pods', podManifest({ name: 'web' }));
    const created = await core.readNamespacedPod({ name: 'web', namespace: 'default' });
    const replaced = await core.replaceNamespacedPod({
      name: 'web',
      namespace: 'default',
      body: {
        ...created,
        metadata: { ...created.metadata, labels: { v: '2' } },
        status: { phase: 'Running' },
      },
    });
    expect(replaced.metadata?.labels).toEqual({ v: '2' });
    expect(replaced.status?.phase).toBe('Pending');
    const statusPatched = await core.patchNamespacedPodStatus(
      {
        name: 'web',
        namespace: 'default',
        body: { metadata: { labels: { v: '3' } }, status: { phase: 'Running' } },
      },
      mergePatch,
    );
    expect(statusPatched.status?.phase).toBe('Running');
    expect(statusPatched.metadata?.labels).toEqual({ v: '2' });
  });

  it('deletes a pod and answers 200 with the object', async () => {
    server.store.seed('pods', podManifest({ name: 'web' }));
    const deleted = await core.deleteNamespacedPod({
      name: 'web',
      namespace: 'default',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Background',
    });
    expect(deleted.metadata?.name).toBe('web');
    expect(server.store.find('pods', 'web')).toBeUndefined();
    expect((await rejection(core.deleteNamespacedPod({ name: 'web', namespace: 'default' }))).code).toBe(404);
  });

  it('keeps an object with finalizers, marked for deletion, until the last finalizer is removed', async () => {
    server.store.seed('nodes', {
      ...nodeManifest({ name: 'n1' }),
      metadata: { name: 'n1', finalizers: ['karpenter.sh/termination'] },
    });
    await core.deleteNode({ name: 'n1' });
    expect(server.requests.at(-1)).toMatchObject({ verb: 'delete', status: 200 });
    const marked = server.store.get('nodes', 'n1');
    expect(marked.metadata.deletionTimestamp).toBe('2026-11-21T10:00:00Z');
    expect(marked.metadata.generation).toBe(2);
    const refused = await rejection(
      core.patchNode(
        { name: 'n1', body: { metadata: { finalizers: ['karpenter.sh/termination', 'x'] } } },
        mergePatch,
      ),
    );
    expect(refused.code).toBe(422);
    await core.patchNode({ name: 'n1', body: { metadata: { labels: { draining: 'true' } } } }, mergePatch);
    expect(server.store.get('nodes', 'n1').metadata.deletionTimestamp).toBe('2026-11-21T10:00:00Z');
    await core.patchNode({ name: 'n1', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    expect(server.store.find('nodes', 'n1')).toBeUndefined();
  });

  it('creates and lists namespaced events and namespaces', async () => {
    await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    await core.createNamespacedEvent({
      namespace: 'team-a',
      body: {
        metadata: { generateName: 'web.' },
        involvedObject: { kind: 'Pod', name: 'web', namespace: 'team-a' },
        reason: 'Nominated',
        message: 'Pod should schedule on NodeClaim default-abcde',
        type: 'Normal',
      },
    });
    expect((await core.readNamespace({ name: 'team-a' })).status?.phase).toBe('Active');
    const events = await core.listNamespacedEvent({
      namespace: 'team-a',
      fieldSelector: 'involvedObject.name=web',
    });
    expect(events.items.map((e) => e.reason)).toEqual(['Nominated']);
  });
});
