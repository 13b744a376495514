import { CoreV1Api, PolicyV1Api, VersionApi } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { podManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

let server: FakeKubeApiServer;
afterEach(() => server.close());

const evict = (core: CoreV1Api, name: string) =>
  core.createNamespacedPodEviction({
    name,
    namespace: 'default',
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } },
  });

describe('fake API server: the Kubernetes version', () => {
  it('answers GET /version like an EKS build, and a set version from then on', async () => {
    server = await startFakeKubeApiServer({ kubernetesVersion: 'v1.29.4-eks-036c24b' });
    const version = server.kubeConfig().makeApiClient(VersionApi);
    expect(await version.getCode()).toMatchObject({
      major: '1',
      minor: '29+',
      gitVersion: 'v1.29.4-eks-036c24b',
      platform: 'linux/amd64',
    });
    server.setKubernetesVersion('v1.33.0');
    expect(await version.getCode()).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0' });
  });

  it('serves no policy/v1 PodDisruptionBudgets before 1.21: the policy group answers a Status 404', async () => {
    server = await startFakeKubeApiServer({ kubernetesVersion: 'v1.20.15' });
    const policy = server.kubeConfig().makeApiClient(PolicyV1Api);
    expect(await rejection(policy.listPodDisruptionBudgetForAllNamespaces())).toMatchObject({
      code: 404,
      status: {
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
        details: {},
      },
    });
    expect((await fetch(`${server.url}/apis/policy/v1`)).status).toBe(404);

    server.setKubernetesVersion('v1.21.14');
    expect((await policy.listPodDisruptionBudgetForAllNamespaces()).items).toEqual([]);
  });

  it('refuses a policy/v1 Eviction before 1.22 with the 400 the decoder answers', async () => {
    server = await startFakeKubeApiServer({ kubernetesVersion: 'v1.21.14' });
    server.store.seed('pods', podManifest({ name: 'web-1', nodeName: 'n1', ready: true }));
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    expect(await rejection(evict(core, 'web-1'))).toMatchObject({
      code: 400,
      status: {
        reason: 'BadRequest',
        message:
          'Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "policy/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
      },
    });
    expect(server.store.find('pods', 'web-1')).toBeDefined();

    server.setKubernetesVersion('v1.22.0');
    await evict(core, 'web-1');
    expect(server.store.get('pods', 'web-1').metadata.deletionTimestamp).toBeDefined();
  });
});
