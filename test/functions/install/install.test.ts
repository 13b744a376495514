import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InstallDeps, isInstallComplete, onInstallEvent } from '../../../functions/install/install';
import { renderManifests } from '../../../infra/parts/install-manifests';
import { CONFIG_DIGEST_ANNOTATION } from '../../../shared/core/install/install-objects';
import { NotFoundError } from '../../../shared/core/model/errors';
import { KubeClusterManifests, PODLIFT_FIELD_MANAGER } from '../../../shared/kube/cluster-manifests';
import { staticKubeConfig } from '../../../shared/kube/kubeconfig-source';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../sim/fakes/kube';
import { INSTALLER_IDENTITY, podliftAuthorization } from '../../../sim/world/kube-identities';
import { rejectionOf } from '../../kube/harness';
import { create, manifests, properties, remove, rolledOut, TestClock, update } from './install-fixtures';

/**
 * The installer's custom resource against the fake API server, which authenticates it as the
 * installer's access entry (AmazonEKSClusterAdminPolicy) and enforces RBAC for everyone else:
 * Create, Update (with prune) and Delete as CloudFormation sends them, and isComplete's polling.
 */

const base = renderManifests();

let server: FakeKubeApiServer;
let deps: InstallDeps;

function depsAs(token: string, clusterExists: () => Promise<void> = async () => undefined): InstallDeps {
  return {
    manifests: new KubeClusterManifests(staticKubeConfig(server.kubeConfig(token))),
    base,
    clusterExists,
    clock: new TestClock(Date.parse('2026-11-27T12:00:00Z')),
  };
}

beforeEach(async () => {
  server = await startFakeKubeApiServer({ authorization: podliftAuthorization() });
  deps = depsAs(INSTALLER_IDENTITY.token);
});
afterEach(() => server.close());

describe('the installer custom resource', () => {
  it('applies every object of manifests/ with the stack values, as field manager podlift', async () => {
    const response = await onInstallEvent(create(), deps);

    expect(response).toEqual({
      PhysicalResourceId: 'podlift-manifests-demo',
      Data: {
        Applied: manifests.objects.length,
        Pruned: 0,
        Deleted: 0,
        StartedAt: '2026-11-27T12:00:00.000Z',
        ApplyPending: false,
      },
    });
    for (const crd of [
      'nodepools.karpenter.sh',
      'nodeclaims.karpenter.sh',
      'ec2nodeclasses.karpenter.k8s.aws',
    ]) {
      expect(server.store.find('customresourcedefinitions.apiextensions.k8s.io', crd)).toBeDefined();
    }
    expect(server.store.find('clusterroles.rbac.authorization.k8s.io', 'podlift-functions')).toBeDefined();
    expect(
      server.store.find('rolebindings.rbac.authorization.k8s.io', 'podlift-functions-lease', 'podlift'),
    ).toBeDefined();
    expect(server.store.get('configmaps', 'podlift-watcher', 'podlift').data).toMatchObject({
      CLUSTER_NAME: 'demo',
      EVENT_BUS_NAME: 'podlift-demo',
      AWS_REGION: 'eu-west-1',
      BATCH_IDLE_MS: '1000',
    });
    const deployment = server.store.get('deployments.apps', 'podlift-watcher', 'podlift') as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]?.image).toBe(properties().WatcherImage);
    const applies = server.requests.filter((r) => r.method === 'PATCH');
    expect(applies).toHaveLength(manifests.objects.length);
    expect(
      applies.every((r) => r.query.fieldManager === PODLIFT_FIELD_MANAGER && r.query.force === 'true'),
    ).toBe(true);
    expect(applies.every((r) => r.contentType === 'application/apply-patch+yaml')).toBe(true);
    // The Namespace and the CRDs before anything that needs them, the Deployment last.
    expect(applies[0]?.path).toBe('/api/v1/namespaces/podlift');
    expect(applies.at(-1)?.path).toBe('/apis/apps/v1/namespaces/podlift/deployments/podlift-watcher');
  });

  it('is complete only once the watcher has rolled out (kubectl rollout status)', async () => {
    await onInstallEvent(create(), deps);
    expect(await isInstallComplete(create(), deps)).toEqual({
      IsComplete: false,
      Message: 'Waiting for deployment spec update to be observed...',
    });

    rolledOut(server);

    expect(await isInstallComplete(create(), deps)).toEqual({
      IsComplete: true,
      Message: 'deployment "podlift-watcher" successfully rolled out',
    });
  });

  it('fails the rollout for good when the Deployment exceeded its progress deadline', async () => {
    await onInstallEvent(create(), deps);
    const live = server.store.get('deployments.apps', 'podlift-watcher', 'podlift');
    server.store.updateStatus(
      'deployments.apps',
      {
        ...live,
        status: {
          observedGeneration: live.metadata.generation,
          replicas: 1,
          updatedReplicas: 1,
          unavailableReplicas: 1,
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "podlift-watcher-5d8" has timed out progressing.',
            },
          ],
        },
      },
      { namespace: 'podlift' },
    );

    const error = await rejectionOf(isInstallComplete(create(), deps));

    expect(error.message).toBe(
      'deployment "podlift-watcher" exceeded its progress deadline: ReplicaSet "podlift-watcher-5d8" has timed out progressing.',
    );
  });

  it("re-applies on Update: a changed value rolls the watcher, status and others' fields stay", async () => {
    await onInstallEvent(create(), deps);
    rolledOut(server);
    // Another client's label (kubectl label, a policy engine) is not podlift's to remove.
    server.store.patch(
      'deployments.apps',
      'podlift-watcher',
      { metadata: { labels: { team: 'platform' } } },
      'application/merge-patch+json',
      { namespace: 'podlift' },
    );
    const before = server.store.get('deployments.apps', 'podlift-watcher', 'podlift');
    const next = properties({ EventBusName: 'podlift-demo-2' });

    await onInstallEvent(update(next, properties()), deps);

    expect(server.store.get('configmaps', 'podlift-watcher', 'podlift').data).toMatchObject({
      EVENT_BUS_NAME: 'podlift-demo-2',
    });
    const after = server.store.get('deployments.apps', 'podlift-watcher', 'podlift') as typeof before & {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    const annotation = (o: typeof after) => o.spec.template.metadata.annotations[CONFIG_DIGEST_ANNOTATION];
    expect(annotation(after)).not.toBe(annotation(before as typeof after));
    expect(after.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.labels).toMatchObject({
      team: 'platform',
      'app.kubernetes.io/name': 'podlift-watcher',
    });
    expect(after.status).toEqual(before.status);
    // The controller has not observed the new generation yet: not complete.
    expect(await isInstallComplete(update(next, properties()), deps)).toMatchObject({ IsComplete: false });
  });

  it('prunes on Update what the previous version applied and this one has not, never a CRD', async () => {
    await onInstallEvent(create(), deps);
    const old = 'rbac.authorization.k8s.io/v1 ClusterRole podlift-old';
    const oldCrd = 'apiextensions.k8s.io/v1 CustomResourceDefinition olds.karpenter.sh';
    server.store.create('clusterroles.rbac.authorization.k8s.io', {
      metadata: { name: 'podlift-old' },
      rules: [],
    });
    server.store.create('customresourcedefinitions.apiextensions.k8s.io', {
      metadata: { name: 'olds.karpenter.sh' },
    });
    const previous = properties({ Objects: [...manifests.objects, old, oldCrd], ManifestsDigest: 'before' });

    const response = await onInstallEvent(update(properties(), previous), deps);

    expect(response.Data.Pruned).toBe(1);
    expect(server.store.find('clusterroles.rbac.authorization.k8s.io', 'podlift-old')).toBeUndefined();
    expect(
      server.store.find('customresourcedefinitions.apiextensions.k8s.io', 'olds.karpenter.sh'),
    ).toBeDefined();
  });

  it('removes everything on Delete but the CRDs, so NodePools and NodeClaims survive', async () => {
    await onInstallEvent(create(), deps);
    server.store.create('nodepools.karpenter.sh', { metadata: { name: 'default' }, spec: {} });

    const response = await onInstallEvent(remove(), deps);

    expect(response.Data.Deleted).toBe(manifests.objects.length - 3);
    expect(server.store.find('deployments.apps', 'podlift-watcher', 'podlift')).toBeUndefined();
    expect(server.store.find('clusterroles.rbac.authorization.k8s.io', 'podlift-watcher')).toBeUndefined();
    expect(server.store.find('namespaces', 'podlift')).toBeUndefined();
    expect(
      server.store.list('customresourcedefinitions.apiextensions.k8s.io').items.map((o) => o.metadata.name),
    ).toEqual(['ec2nodeclasses.karpenter.k8s.aws', 'nodeclaims.karpenter.sh', 'nodepools.karpenter.sh']);
    expect(server.store.find('nodepools.karpenter.sh', 'default')).toBeDefined();
    const deletes = server.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.some((r) => r.path.includes('customresourcedefinitions'))).toBe(false);
    // The watcher stops first, the Namespace goes last.
    expect(deletes[0]?.path).toBe('/apis/apps/v1/namespaces/podlift/deployments/podlift-watcher');
    expect(deletes.at(-1)?.path).toBe('/api/v1/namespaces/podlift');
    expect(await isInstallComplete(remove(), deps)).toMatchObject({ IsComplete: true });
  });

  it('deletes idempotently: a second Delete finds nothing left and succeeds', async () => {
    await onInstallEvent(create(), deps);
    await onInstallEvent(remove(), deps);

    expect((await onInstallEvent(remove(), deps)).Data.Deleted).toBe(0);
  });

  it('succeeds a Delete without a request when the cluster itself is gone', async () => {
    const gone = depsAs(INSTALLER_IDENTITY.token, async () => {
      throw new NotFoundError('cluster', 'describing EKS cluster demo: cluster not found');
    });

    await expect(onInstallEvent(remove(), gone)).resolves.toMatchObject({ Data: { Deleted: 0 } });
    expect(server.requests).toHaveLength(0);
  });
});
