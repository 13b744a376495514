import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { defaultResources, startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { nodeManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

let server: FakeKubeApiServer;
afterEach(() => server.close());

describe('fake API server: test controls', () => {
  it('records the bearer token of every request and answers 401 without the required one', async () => {
    server = await startFakeKubeApiServer({ requireToken: 'k8s-aws-v1.good' });
    await server.kubeConfig().makeApiClient(CoreV1Api).listNode();
    const refused = await rejection(server.kubeConfig('k8s-aws-v1.bad').makeApiClient(CoreV1Api).listNode());
    expect(refused.code).toBe(401);
    expect(server.requests.map((r) => [r.token, r.status])).toEqual([
      ['k8s-aws-v1.good', 200],
      ['k8s-aws-v1.bad', 401],
    ]);
  });

  it('fails the next matching requests with the injected status, then recovers', async () => {
    server = await startFakeKubeApiServer();
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    server.store.seed('nodes', nodeManifest({ name: 'n1' }));
    server.failNext('get', /^\/api\/v1\/nodes\//, 503, { times: 2, retryAfterSeconds: 1 });
    server.failNext('list', '*', 429);
    const first = await rejection(core.readNode({ name: 'n1' }));
    expect(first).toMatchObject({
      code: 503,
      status: { reason: 'ServiceUnavailable', details: { retryAfterSeconds: 1 } },
    });
    expect((await rejection(core.readNode({ name: 'n1' }))).code).toBe(503);
    expect((await core.readNode({ name: 'n1' })).metadata?.name).toBe('n1');
    expect((await rejection(core.listNode())).status.reason).toBe('TooManyRequests');
    expect((await core.listNode()).items).toHaveLength(1);
    expect(server.store.get('nodes', 'n1').metadata.resourceVersion).toBe('1');
  });

  it("answers a path no web service claims with Go's plain-text 404, as the real server's last delegate does", async () => {
    server = await startFakeKubeApiServer({
      resources: defaultResources.filter((r) => r.group !== 'karpenter.sh'),
    });
    for (const path of ['/apis/example.com/v1/widgets', '/apis/karpenter.sh/v1/nodepools']) {
      const unknown = await fetch(`${server.url}${path}`);
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await unknown.text()).toBe('404 page not found\n');
    }
  });

  it('answers an unserved resource or version of a built-in group with a Status 404 that names no object', async () => {
    server = await startFakeKubeApiServer();
    for (const path of ['/api/v1/widgets', '/apis/policy/v1beta7/poddisruptionbudgets']) {
      const unknown = await fetch(`${server.url}${path}`);
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toBe('application/json');
      expect(await unknown.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
  });

  it('answers unsupported methods and undecodable bodies with Status bodies', async () => {
    server = await startFakeKubeApiServer();
    const collectionDelete = await fetch(`${server.url}/api/v1/nodes`, { method: 'DELETE' });
    expect(collectionDelete.status).toBe(405);
    const badJson = await fetch(`${server.url}/api/v1/nodes`, {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(await badJson.json()).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  it('serves discovery documents for the core group and the custom resource groups', async () => {
    server = await startFakeKubeApiServer();
    const groups = (await (await fetch(`${server.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(['karpenter.sh', 'karpenter.k8s.aws', 'policy', 'apps', 'coordination.k8s.io']),
    );
    const core = (await (await fetch(`${server.url}/api/v1`)).json()) as { resources: { name: string }[] };
    expect(core.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(['pods', 'pods/status', 'pods/eviction', 'nodes']),
    );
  });
});
