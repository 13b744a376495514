import { afterEach, describe, expect, it } from 'vitest';
import { isNotFoundError } from '../../shared/core/model/errors';
import { isResourceNotServedError } from '../../shared/kube/resource-not-served-error';
import { defaultResources } from '../../sim/fakes/kube';
import { podManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
afterEach(() => h.server.close());

/** A cluster where podlift's CRDs were never applied. */
const withoutCrds = () => startHarness({ resources: defaultResources.filter((r) => !r.custom) });

describe("KubeCluster on a cluster without podlift's CRDs", () => {
  it('reports NodePools as not served, naming the CRD to install, not as an object not found', async () => {
    h = await withoutCrds();
    const error = await rejectionOf(h.cluster.nodePools());
    expect(isResourceNotServedError(error)).toBe(true);
    expect(isNotFoundError(error)).toBe(false);
    expect(error.message).toBe(
      'listing NodePools: the API server does not serve nodepools.karpenter.sh/v1: its CustomResourceDefinition nodepools.karpenter.sh is not installed (kubectl apply -k manifests/)',
    );
    expect(error).toMatchObject({
      retryable: false,
      resource: { plural: 'nodepools', group: 'karpenter.sh' },
    });
  });

  it('does not take a missing CRD for a NodeClaim that is already gone', async () => {
    h = await withoutCrds();
    const deleting = await rejectionOf(h.cluster.deleteNodeClaim('default-x7k2q'));
    expect(isResourceNotServedError(deleting)).toBe(true);
    expect(deleting.message).toMatch(
      /^deleting NodeClaim default-x7k2q: the API server does not serve nodeclaims\.karpenter\.sh\/v1/,
    );
    expect(isResourceNotServedError(await rejectionOf(h.cluster.nodeClaim('default-x7k2q')))).toBe(true);
    expect(isResourceNotServedError(await rejectionOf(h.cluster.nodeClasses()))).toBe(true);
  });

  it('still reads a 404 that names the object as that object not found', async () => {
    h = await startHarness();
    expect(await h.cluster.deleteNodeClaim('default-x7k2q')).toBe(false);
    expect(isNotFoundError(await rejectionOf(h.cluster.nodeClaim('default-x7k2q')))).toBe(true);
  });
});

describe('KubeCluster on a cluster older than podlift supports', () => {
  it('reports policy/v1 PodDisruptionBudgets as not served before 1.21, with the likely cause', async () => {
    h = await startHarness({ kubernetesVersion: 'v1.20.15-eks-1bc4a5c' });
    const error = await rejectionOf(h.cluster.podDisruptionBudgets());
    expect(isResourceNotServedError(error)).toBe(true);
    expect(error.message).toBe(
      'listing PodDisruptionBudgets: the API server does not serve poddisruptionbudgets.policy/v1: it is served from Kubernetes 1.21; the cluster may be older than podlift supports (Kubernetes 1.25 or newer)',
    );
  });

  it('reports the 400 a server before 1.22 answers a policy/v1 Eviction as evictions not served', async () => {
    h = await startHarness({ kubernetesVersion: 'v1.21.14' });
    h.server.store.seed('pods', podManifest({ name: 'web-1', nodeName: 'n1', ready: true }));
    const error = await rejectionOf(h.cluster.evictPod({ namespace: 'default', name: 'web-1' }));
    expect(isResourceNotServedError(error)).toBe(true);
    expect(error.message).toMatch(
      /^evicting pod default\/web-1: the API server does not serve evictions\.policy\/v1: it is served from Kubernetes 1\.22/,
    );
  });
});
