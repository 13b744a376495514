import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isCloudError, isNotFoundError } from '../../shared/core/model/errors';
import { nodeManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

const disrupted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;
const taintsOf = (name: string) => (h.server.store.get('nodes', name).spec as { taints?: unknown[] }).taints;

/** Makes another writer change node `name` right after the adapter's next read of it. */
function interleaveAfterNextRead(change: () => void): void {
  const get = h.server.store.get.bind(h.server.store);
  let done = false;
  vi.spyOn(h.server.store, 'get').mockImplementation((resource, name, namespace) => {
    const read = get(resource, name, namespace);
    if (!done) {
      done = true;
      change();
    }
    return read;
  });
}

describe('KubeCluster node taints and labels', () => {
  it("adds a taint next to other controllers' taints with a conditional merge patch", async () => {
    h.server.store.seed(
      'nodes',
      nodeManifest({ name: 'n1', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] }),
    );
    await h.cluster.taintNode('n1', { add: [disrupted] });
    expect(taintsOf('n1')).toEqual([{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, disrupted]);
    const patch = h.server.requests.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({ path: '/api/v1/nodes/n1', contentType: 'application/merge-patch+json' });
    expect(patch?.body).toMatchObject({ metadata: { resourceVersion: '1' } });
  });

  it('replaces a taint with the same key and effect, removes by key and effect, and skips no-op writes', async () => {
    h.server.store.seed(
      'nodes',
      nodeManifest({
        name: 'n1',
        taints: [
          { key: 'team', value: 'a', effect: 'NoSchedule' },
          { key: 'team', value: 'a', effect: 'NoExecute' },
        ],
      }),
    );
    await h.cluster.taintNode('n1', { add: [{ key: 'team', value: 'b', effect: 'NoSchedule' }] });
    expect(taintsOf('n1')).toEqual([
      { key: 'team', value: 'b', effect: 'NoSchedule' },
      { key: 'team', value: 'a', effect: 'NoExecute' },
    ]);
    await h.cluster.taintNode('n1', { remove: [{ key: 'team', effect: 'NoExecute' }] });
    expect(taintsOf('n1')).toEqual([{ key: 'team', value: 'b', effect: 'NoSchedule' }]);
    h.server.clearRequests();
    await h.cluster.taintNode('n1', { remove: [disrupted] });
    expect(h.server.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('re-reads on 409 and keeps a taint another writer added between our read and write', async () => {
    h.server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    interleaveAfterNextRead(() =>
      h.server.store.patch(
        'nodes',
        'n1',
        { spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] } },
        'application/merge-patch+json',
      ),
    );
    await h.cluster.taintNode('n1', { add: [disrupted] });
    expect(taintsOf('n1')).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      disrupted,
    ]);
    expect(h.server.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([409, 200]);
  });

  it('gives up after a bounded number of conflicts with a retryable CloudError', async () => {
    h.server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    h.server.failNext('patch', '/api/v1/nodes/n1', 409, { times: 10 });
    const error = await rejectionOf(h.cluster.taintNode('n1', { add: [disrupted] }));
    expect(isCloudError(error) && error.retryable).toBe(true);
    expect(error.message).toBe('tainting Node n1: still conflicting after 5 attempts');
    expect(h.server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(5);
  });

  it('fails with NotFoundError naming a missing node', async () => {
    const error = await rejectionOf(h.cluster.taintNode('ghost', { add: [disrupted] }));
    expect(isNotFoundError(error)).toBe(true);
    expect(error.message).toContain('Node ghost');
  });

  it('sets and removes labels with one merge patch, keeping the others', async () => {
    h.server.store.seed('nodes', nodeManifest({ name: 'n1', labels: { keep: 'me', drop: 'me' } }));
    await h.cluster.labelNode('n1', { 'karpenter.sh/initialized': 'true', drop: null });
    expect(h.server.store.get('nodes', 'n1').metadata.labels).toEqual({
      keep: 'me',
      'karpenter.sh/initialized': 'true',
    });
  });
});

describe('KubeCluster node finalizers and deletion', () => {
  it('adds and removes the termination finalizer, and deletes once it is gone', async () => {
    h.server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    await h.cluster.addNodeFinalizer('n1', 'karpenter.sh/termination');
    expect(h.server.store.get('nodes', 'n1').metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(await h.cluster.deleteNode('n1')).toBe(true);
    expect(h.server.store.get('nodes', 'n1').metadata.deletionTimestamp).toBeDefined();
    await h.cluster.removeNodeFinalizer('n1', 'karpenter.sh/termination');
    expect(h.server.store.find('nodes', 'n1')).toBeUndefined();
    expect(await h.cluster.deleteNode('n1')).toBe(false);
  });

  it('reports the API refusing a new finalizer on a deleting node as a CloudError', async () => {
    h.server.store.seed('nodes', {
      ...nodeManifest({ name: 'n1' }),
      metadata: { name: 'n1', finalizers: ['a/b'] },
    });
    h.server.store.delete('nodes', 'n1');
    const error = await rejectionOf(h.cluster.addNodeFinalizer('n1', 'karpenter.sh/termination'));
    expect(isCloudError(error)).toBe(true);
    expect(error.message).toContain('adding finalizer karpenter.sh/termination to Node n1: Invalid');
  });
});

describe('KubeCluster.addNodeOwnerReference', () => {
  const owner = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    name: 'default-abcde',
    uid: 'uid-claim',
    blockOwnerDeletion: true,
  };
  const ownersOf = (name: string) => h.server.store.get('nodes', name).metadata.ownerReferences;

  it('adds the reference next to the other owners, once, with a conditional merge patch', async () => {
    const other = { apiVersion: 'v1', kind: 'Other', name: 'o', uid: 'uid-other' };
    const seeded = nodeManifest({ name: 'n1' });
    h.server.store.seed('nodes', { ...seeded, metadata: { ...seeded.metadata, ownerReferences: [other] } });
    await h.cluster.addNodeOwnerReference('n1', owner);
    expect(ownersOf('n1')).toStrictEqual([other, owner]);
    const patch = h.server.requests.find((r) => r.method === 'PATCH');
    expect(patch?.body).toMatchObject({ metadata: { resourceVersion: '1' } });
    h.server.clearRequests();
    await h.cluster.addNodeOwnerReference('n1', { ...owner, name: 'renamed' });
    expect(h.server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    expect(ownersOf('n1')).toStrictEqual([other, owner]);
  });

  it('reads again when another writer changed the Node in between', async () => {
    h.server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    interleaveAfterNextRead(() =>
      h.server.store.update('nodes', { ...h.server.store.get('nodes', 'n1'), spec: { unschedulable: true } }),
    );
    await h.cluster.addNodeOwnerReference('n1', owner);
    expect(ownersOf('n1')).toStrictEqual([owner]);
    expect((h.server.store.get('nodes', 'n1').spec as { unschedulable?: boolean }).unschedulable).toBe(true);
  });

  it('throws NotFoundError for a Node that is gone', async () => {
    expect(isNotFoundError(await rejectionOf(h.cluster.addNodeOwnerReference('gone', owner)))).toBe(true);
  });
});
