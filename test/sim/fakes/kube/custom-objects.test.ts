import {
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer, KubeObject } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { VirtualTime } from '../../../../sim/virtual-time';
import { nodeClaimManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

let server: FakeKubeApiServer;
let custom: CustomObjectsApi;

beforeEach(async () => {
  server = await startFakeKubeApiServer({ time: new VirtualTime(Date.parse('2026-11-21T10:00:00Z')) });
  custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
});
afterEach(() => server.close());

const nodeClaims = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' } as const;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('fake API server: karpenter custom resources', () => {
  it('answers a custom resource with every key sorted, as a real API server re-encodes unstructured JSON', async () => {
    await custom.createClusterCustomObject({
      ...nodeClaims,
      body: { ...nodeClaimManifest({ name: 'default-x7k2q' }), zeta: { b: 1, a: [{ y: 1, x: 2 }] } },
    });
    const read = (await custom.getClusterCustomObject({ ...nodeClaims, name: 'default-x7k2q' })) as Record<
      string,
      unknown
    >;
    const sortedEverywhere = (value: unknown): boolean => {
      if (Array.isArray(value)) return value.every(sortedEverywhere);
      if (typeof value !== 'object' || value === null) return true;
      const keys = Object.keys(value);
      return keys.join() === [...keys].sort().join() && Object.values(value).every(sortedEverywhere);
    };
    expect(Object.keys(read)).toStrictEqual(['apiVersion', 'kind', 'metadata', 'spec', 'zeta']);
    expect(read.zeta).toStrictEqual({ a: [{ x: 2, y: 1 }], b: 1 });
    expect(Object.keys(read.zeta as object)).toStrictEqual(['a', 'b']);
    expect(sortedEverywhere(read)).toBe(true);
  });

  it('creates a NodeClaim without the status it was sent and lists it by label', async () => {
    const created = (await custom.createClusterCustomObject({
      ...nodeClaims,
      body: {
        ...nodeClaimManifest({ name: 'default-x7k2q' }),
        status: { providerID: 'aws:///us-east-1a/i-0abc' },
      },
    })) as KubeObject;
    expect(created).toMatchObject({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { generation: 1 },
    });
    expect(created.status).toBeUndefined();
    const list = (await custom.listClusterCustomObject({
      ...nodeClaims,
      labelSelector: 'karpenter.sh/nodepool=default',
    })) as {
      kind: string;
      items: KubeObject[];
    };
    expect(list.kind).toBe('NodeClaimList');
    expect(list.items.map((i) => [i.kind, i.metadata.name])).toEqual([['NodeClaim', 'default-x7k2q']]);
  });

  it('changes only status through /status and ignores status in main updates', async () => {
    const created = server.store.create(
      'nodeclaims.karpenter.sh',
      nodeClaimManifest({ name: 'default-x7k2q' }),
    );
    const withStatus = (await custom.replaceClusterCustomObjectStatus({
      ...nodeClaims,
      name: 'default-x7k2q',
      body: {
        ...created,
        metadata: { ...created.metadata, labels: { ignored: 'yes' } },
        spec: { ignored: true },
        status: {
          providerID: 'aws:///us-east-1a/i-0abc',
          conditions: [{ type: 'Launched', status: 'True' }],
        },
      },
    })) as KubeObject;
    expect(withStatus.status).toEqual({
      providerID: 'aws:///us-east-1a/i-0abc',
      conditions: [{ type: 'Launched', status: 'True' }],
    });
    expect(withStatus.metadata.labels).toEqual(created.metadata.labels);
    expect(withStatus.spec).toEqual(created.spec);
    expect(withStatus.metadata.generation).toBe(1);

    const patched = (await custom.patchClusterCustomObject(
      {
        ...nodeClaims,
        name: 'default-x7k2q',
        body: { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] }, status: null },
      },
      mergePatch,
    )) as KubeObject;
    expect(patched.status).toEqual(withStatus.status);
    expect(patched.metadata.generation).toBe(2);

    const statusPatched = (await custom.patchClusterCustomObjectStatus({
      ...nodeClaims,
      name: 'default-x7k2q',
      body: [{ op: 'add', path: '/status/nodeName', value: 'ip-10-0-0-1' }],
    })) as KubeObject;
    expect(statusPatched.status).toMatchObject({ nodeName: 'ip-10-0-0-1' });
  });

  it('requires a resourceVersion on a custom resource update and rejects a stale one', async () => {
    const created = server.store.create(
      'nodeclaims.karpenter.sh',
      nodeClaimManifest({ name: 'default-x7k2q' }),
    );
    const { resourceVersion: _rv, ...withoutVersion } = created.metadata;
    const missing = await rejection(
      custom.replaceClusterCustomObject({
        ...nodeClaims,
        name: 'default-x7k2q',
        body: { ...created, metadata: withoutVersion },
      }),
    );
    expect(missing).toMatchObject({
      code: 422,
      status: { reason: 'Invalid', details: { causes: [{ field: 'metadata.resourceVersion' }] } },
    });
    server.store.patch(
      'nodeclaims.karpenter.sh',
      'default-x7k2q',
      { metadata: { labels: { touched: 'yes' } } },
      PatchStrategy.MergePatch,
    );
    const stale = await rejection(
      custom.replaceClusterCustomObject({ ...nodeClaims, name: 'default-x7k2q', body: created }),
    );
    expect(stale.status.message).toBe(
      'Operation cannot be fulfilled on nodeclaims.karpenter.sh "default-x7k2q": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('refuses strategic merge patches on custom resources with 415', async () => {
    server.store.create('nodepools.karpenter.sh', { metadata: { name: 'default' }, spec: {} });
    const refused = await rejection(
      custom.patchClusterCustomObject(
        {
          group: 'karpenter.sh',
          version: 'v1',
          plural: 'nodepools',
          name: 'default',
          body: { spec: { weight: 10 } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(refused).toMatchObject({ code: 415, status: { reason: 'UnsupportedMediaType' } });
  });

  it('deletes a NodeClaim with a termination finalizer only once the finalizer is gone', async () => {
    server.store.create('nodeclaims.karpenter.sh', {
      ...nodeClaimManifest({ name: 'default-x7k2q' }),
      metadata: { name: 'default-x7k2q', finalizers: ['karpenter.sh/termination'] },
    });
    await custom.deleteClusterCustomObject({ ...nodeClaims, name: 'default-x7k2q' });
    const terminating = server.store.get('nodeclaims.karpenter.sh', 'default-x7k2q');
    expect(terminating.metadata.deletionTimestamp).toBe('2026-11-21T10:00:00Z');
    await custom.patchClusterCustomObject(
      { ...nodeClaims, name: 'default-x7k2q', body: { metadata: { finalizers: null } } },
      mergePatch,
    );
    expect(
      await rejection(custom.getClusterCustomObject({ ...nodeClaims, name: 'default-x7k2q' })),
    ).toMatchObject({
      code: 404,
      status: {
        message: 'nodeclaims.karpenter.sh "default-x7k2q" not found',
        details: { group: 'karpenter.sh', kind: 'nodeclaims' },
      },
    });
  });

  it('serves EC2NodeClasses and answers discovery for KubernetesObjectApi', async () => {
    const objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    await objects.create({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: { amiSelectorTerms: [{ alias: 'al2023@latest' }] },
    });
    const read = (await custom.getClusterCustomObject({
      group: 'karpenter.k8s.aws',
      version: 'v1',
      plural: 'ec2nodeclasses',
      name: 'default',
    })) as KubeObject;
    expect(read.spec).toEqual({ amiSelectorTerms: [{ alias: 'al2023@latest' }] });
    expect(server.requests.map((r) => r.path)).toContain('/apis/karpenter.k8s.aws/v1');
  });
});

describe('fake API server: leases and daemonsets', () => {
  it('creates and renews a Lease, refusing a renewal from a stale read with 409', async () => {
    const coordination = server.kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await coordination.createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'podlift-disruption' },
        spec: { holderIdentity: 'fn-a', leaseDurationSeconds: 60 },
      },
    });
    const renewed = await coordination.replaceNamespacedLease({
      name: 'podlift-disruption',
      namespace: 'kube-system',
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'fn-a', leaseTransitions: 0 } },
    });
    expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(
      Number(lease.metadata?.resourceVersion),
    );
    const stolen = await rejection(
      coordination.replaceNamespacedLease({
        name: 'podlift-disruption',
        namespace: 'kube-system',
        body: { ...lease, spec: { ...lease.spec, holderIdentity: 'fn-b' } },
      }),
    );
    expect(stolen).toMatchObject({
      code: 409,
      status: {
        reason: 'Conflict',
        message: expect.stringContaining(
          'Operation cannot be fulfilled on leases.coordination.k8s.io "podlift-disruption"',
        ),
      },
    });
    expect(
      (await coordination.readNamespacedLease({ name: 'podlift-disruption', namespace: 'kube-system' })).spec
        ?.holderIdentity,
    ).toBe('fn-a');
  });

  it('lists DaemonSets across namespaces', async () => {
    server.store.seed('daemonsets.apps', {
      metadata: { name: 'aws-node', namespace: 'kube-system' },
      spec: { template: {} },
    });
    const apps = server.kubeConfig().makeApiClient(AppsV1Api);
    const list = await apps.listDaemonSetForAllNamespaces();
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['aws-node']);
  });
});
