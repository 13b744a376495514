import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCloudError } from '../../shared/core/model/errors';
import { retryOnConflict } from '../../shared/kube/retry-on-conflict';
import { nodeManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
let core: CoreV1Api;
beforeEach(async () => {
  h = await startHarness();
  core = h.server.kubeConfig().makeApiClient(CoreV1Api);
  h.server.store.seed('nodes', nodeManifest({ name: 'n1', labels: { count: '0' } }));
});
afterEach(() => h.server.close());

/** A read-modify-write that bumps the `count` label, conditional on the resourceVersion read. */
function bumpCount(onRead: (round: number) => void = () => {}) {
  let round = 0;
  return retryOnConflict(
    async () => {
      const node = await core.readNode({ name: 'n1' });
      onRead(round++);
      return node;
    },
    (node) => ({
      metadata: {
        labels: { count: String(Number(node.metadata?.labels?.count) + 1) },
        resourceVersion: node.metadata?.resourceVersion,
      },
    }),
    (patch) =>
      core.patchNode({ name: 'n1', body: patch }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
    { doing: 'bumping n1', attempts: 3 },
  );
}

const otherWriterBumps = () => {
  const labels = h.server.store.get('nodes', 'n1').metadata.labels ?? {};
  h.server.store.patch(
    'nodes',
    'n1',
    { metadata: { labels: { count: String(Number(labels.count) + 1) } } },
    PatchStrategy.MergePatch,
  );
};

describe('retryOnConflict', () => {
  it('re-reads after a concurrent write and applies the change on top of it, never over it', async () => {
    await bumpCount((round) => {
      if (round === 0) otherWriterBumps();
    });
    expect(h.server.store.get('nodes', 'n1').metadata.labels).toEqual({ count: '2' });
  });

  it('stops after the configured attempts with a retryable Conflict CloudError', async () => {
    const error = await rejectionOf(bumpCount(() => otherWriterBumps()));
    expect(isCloudError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'Conflict', retryable: true });
    expect(error.message).toBe('bumping n1: still conflicting after 3 attempts');
    expect(h.server.store.get('nodes', 'n1').metadata.labels).toEqual({ count: '3' });
  });

  it('writes nothing when the change is already there, and does not retry other errors', async () => {
    const unchanged = await retryOnConflict(
      () => core.readNode({ name: 'n1' }),
      () => undefined,
      () => Promise.reject(new Error('must not write')),
    );
    expect(unchanged.metadata?.name).toBe('n1');
    h.server.failNext('patch', '/api/v1/nodes/n1', 503);
    const error = await rejectionOf(bumpCount());
    expect(isCloudError(error)).toBe(false);
    expect(h.server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });
});
