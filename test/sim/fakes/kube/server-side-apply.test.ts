import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { rejectionOf } from '../../../kube/harness';

/**
 * Server-side apply on the fake API server through client-node's KubernetesObjectApi, as the
 * real server answers it (apiserver patch handler with `application/apply-patch+yaml`,
 * structured-merge-diff's apply): 201 creating, 200 merging, a field the manager stopped
 * applying removed, others' fields kept, a field manager required, conflicts without force.
 */

let server: FakeKubeApiServer;
let api: KubernetesObjectApi;
beforeEach(async () => {
  server = await startFakeKubeApiServer({});
  api = KubernetesObjectApi.makeApiClient(server.kubeConfig());
});
afterEach(() => server.close());

const configMap = (data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'podlift', labels },
  data,
});

const apply = (object: object, manager = 'podlift', force = true) =>
  api.patch(object as never, undefined, undefined, manager, force, PatchStrategy.ServerSideApply);

describe('server-side apply on the fake API server', () => {
  it('creates the object when absent (201) and merges into it after (200)', async () => {
    await apply(configMap({ A: '1' }));
    await apply(configMap({ A: '2', B: '3' }));

    expect(server.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([201, 200]);
    expect(server.store.get('configmaps', 'settings', 'podlift').data).toEqual({ A: '2', B: '3' });
  });

  it("removes what the manager applied before and no longer applies, keeping others' fields", async () => {
    await apply(configMap({ A: '1', B: '2' }, { owner: 'podlift' }));
    server.store.patch(
      'configmaps',
      'settings',
      { metadata: { labels: { team: 'platform' } }, data: { C: 'theirs' } },
      'application/merge-patch+json',
      { namespace: 'podlift' },
    );

    await apply(configMap({ A: '1' }));

    const live = server.store.get('configmaps', 'settings', 'podlift');
    expect(live.data).toEqual({ A: '1', C: 'theirs' });
    expect(live.metadata.labels).toEqual({ team: 'platform' });
  });

  it('refuses an apply without a field manager (422)', async () => {
    const error = await rejectionOf(apply(configMap({ A: '1' }), ''));

    expect(error).toMatchObject({ code: 422 });
    expect(String((error as { body?: unknown }).body)).toContain('fieldManager: Required value');
  });

  it('answers 409 when another manager set the field differently, unless forced', async () => {
    await apply(configMap({ A: '1' }), 'kubectl');

    const conflict = await rejectionOf(apply(configMap({ A: '2' }), 'podlift', false));
    expect(conflict).toMatchObject({ code: 409 });
    expect(String((conflict as { body?: unknown }).body)).toContain('Apply failed with 1 conflict');

    await apply(configMap({ A: '2' }), 'podlift', true);
    expect(server.store.get('configmaps', 'settings', 'podlift').data).toEqual({ A: '2' });
  });
});
