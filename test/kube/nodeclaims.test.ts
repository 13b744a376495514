import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isNotFoundError, isValidationError } from '../../shared/core/model/errors';
import { TERMINATION_FINALIZER } from '../../shared/core/model/nodeclaim';
import type { NewNodeClaim } from '../../shared/core/ports/cluster';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

const claim: NewNodeClaim = {
  nodePool: 'default',
  nodePoolUid: 'np-uid-1',
  labels: { 'karpenter.sh/capacity-type': 'spot' },
  annotations: { 'karpenter.sh/nodepool-hash': '42' },
  spec: {
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    requirements: [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
      { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 1 },
    ],
    resources: { requests: { cpu: 1500, memory: 3 * 1024 ** 3, pods: 4 } },
    taints: [{ key: 'team', value: 'ml', effect: 'NoSchedule' }],
    startupTaints: [],
    expireAfter: '720h',
  },
};

const stored = (name: string) => h.server.store.get('nodeclaims.karpenter.sh', name);

describe('KubeCluster NodeClaim writes', () => {
  it('creates a NodeClaim named from its NodePool with label, finalizer, owner and quantity strings', async () => {
    const created = await h.cluster.createNodeClaim(claim);

    expect(created.name).toMatch(/^default-[a-z0-9]{5}$/);
    expect(created.finalizers).toEqual([TERMINATION_FINALIZER]);
    expect(created.labels).toEqual({
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/nodepool': 'default',
    });
    expect(created.spec.resources.requests).toEqual(claim.spec.resources.requests);
    const object = stored(created.name);
    expect(object.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        name: 'default',
        uid: 'np-uid-1',
        blockOwnerDeletion: true,
      },
    ]);
    expect(object.metadata.annotations).toEqual({ 'karpenter.sh/nodepool-hash': '42' });
    expect(object.spec).toMatchObject({
      resources: { requests: { cpu: '1500m', memory: '3Gi', pods: '4' } },
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
        { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 1 },
      ],
      taints: [{ key: 'team', value: 'ml', effect: 'NoSchedule' }],
      expireAfter: '720h',
    });
    expect(h.server.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/apis/karpenter.sh/v1/nodeclaims',
    });
  });

  it('writes status through the status subresource, quantities as strings', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    const updated = await h.cluster.updateNodeClaimStatus(name, {
      providerID: 'aws:///us-east-1a/i-0abc',
      imageID: 'ami-123',
      capacity: { cpu: 2000, memory: 8 * 1024 ** 3, pods: 29 },
      allocatable: { cpu: 1930, memory: 7 * 1024 ** 3, pods: 29 },
      conditions: [{ type: 'Launched', status: 'True' }],
    });

    expect(updated.status).toMatchObject({ providerID: 'aws:///us-east-1a/i-0abc', imageID: 'ami-123' });
    const status = stored(name).status as Record<string, unknown>;
    expect(status).toMatchObject({
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
      conditions: [
        {
          type: 'Launched',
          status: 'True',
          reason: 'Launched',
          message: '',
          lastTransitionTime: '2026-11-21T10:00:00Z',
          observedGeneration: 1,
        },
      ],
    });
    expect(h.server.requests.at(-1)).toMatchObject({
      method: 'PUT',
      path: `/apis/karpenter.sh/v1/nodeclaims/${name}/status`,
    });
    expect(stored(name).metadata.generation).toBe(1);
  });

  it('writes nothing when the status read back (keys sorted by the API server) already says it', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    const update = {
      providerID: 'aws:///us-east-1a/i-0abc',
      imageID: 'ami-123',
      capacity: { cpu: 2000, memory: 8 * 1024 ** 3, pods: 29 },
      conditions: [{ type: 'Launched', status: 'True' as const }],
    };
    await h.cluster.updateNodeClaimStatus(name, update);
    h.server.clearRequests();
    await h.cluster.updateNodeClaimStatus(name, update);
    expect(h.server.requests.filter((r) => r.method !== 'GET')).toStrictEqual([]);
  });

  it('moves lastTransitionTime only when a condition changes status', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    await h.cluster.updateNodeClaimStatus(name, {
      conditions: [
        { type: 'Launched', status: 'True' },
        { type: 'Registered', status: 'Unknown', reason: 'AwaitingRegistration', message: 'waiting' },
      ],
    });
    h.clock.advance(60_000);
    const after = await h.cluster.updateNodeClaimStatus(name, {
      nodeName: 'ip-10-0-0-1',
      conditions: [
        { type: 'Launched', status: 'True', message: 'still launched' },
        { type: 'Registered', status: 'True' },
        { type: 'Initialized', status: 'False', reason: 'NotReady', message: 'node not ready' },
      ],
    });
    const byType = new Map(after.status.conditions?.map((c) => [c.type, c]));
    expect(byType.get('Launched')).toMatchObject({
      lastTransitionTime: '2026-11-21T10:00:00Z',
      message: 'still launched',
    });
    expect(byType.get('Registered')).toMatchObject({
      status: 'True',
      reason: 'Registered',
      lastTransitionTime: '2026-11-21T10:01:00Z',
    });
    expect(byType.get('Initialized')).toMatchObject({
      status: 'False',
      lastTransitionTime: '2026-11-21T10:01:00Z',
    });
    expect(after.status.nodeName).toBe('ip-10-0-0-1');
  });

  it('removes a condition type altogether, and writes nothing when it is already gone', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    await h.cluster.updateNodeClaimStatus(name, {
      conditions: [
        { type: 'Launched', status: 'True' },
        { type: 'Drifted', status: 'True', reason: 'AMIDrift', message: 'AMI ami-1 is no longer selected' },
      ],
    });
    const after = await h.cluster.updateNodeClaimStatus(name, { removeConditions: ['Drifted'] });
    expect(after.status.conditions?.map((c) => c.type)).toEqual(['Launched']);
    expect((stored(name).status as { conditions: { type: string }[] }).conditions.map((c) => c.type)).toEqual(
      ['Launched'],
    );
    const version = stored(name).metadata.resourceVersion;
    await h.cluster.updateNodeClaimStatus(name, { removeConditions: ['Drifted'] });
    expect(stored(name).metadata.resourceVersion).toBe(version);
  });

  it('does not write when the status would not change', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    await h.cluster.updateNodeClaimStatus(name, { conditions: [{ type: 'Launched', status: 'True' }] });
    const version = stored(name).metadata.resourceVersion;
    h.clock.advance(5_000);
    await h.cluster.updateNodeClaimStatus(name, { conditions: [{ type: 'Launched', status: 'True' }] });
    expect(stored(name).metadata.resourceVersion).toBe(version);
  });

  it('re-reads and re-applies on 409, keeping the fields another writer set meanwhile', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    const get = h.server.store.get.bind(h.server.store);
    let injected = false;
    vi.spyOn(h.server.store, 'get').mockImplementation((resource, objectName, namespace) => {
      const read = get(resource, objectName, namespace);
      if (!injected && resource === h.server.store.resolve('nodeclaims.karpenter.sh')) {
        injected = true; // another controller writes status between our read and our write
        h.server.store.updateStatus('nodeclaims.karpenter.sh', {
          ...read,
          status: { providerID: 'aws:///us-east-1a/i-0abc' },
        });
      }
      return read;
    });

    await h.cluster.updateNodeClaimStatus(name, { nodeName: 'ip-10-0-0-1' });

    expect(stored(name).status).toEqual({ providerID: 'aws:///us-east-1a/i-0abc', nodeName: 'ip-10-0-0-1' });
    const puts = h.server.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([409, 200]);
  });

  it('reads NodeClaims back into core NodeClaims', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    await h.cluster.updateNodeClaimStatus(name, { allocatable: { cpu: 1930 } });
    const [read] = (await h.cluster.nodeClaims()).items;
    expect(read).toMatchObject({
      name,
      labels: { 'karpenter.sh/nodepool': 'default' },
      spec: {
        nodeClassRef: { name: 'default' },
        resources: { requests: { cpu: 1500, memory: 3 * 1024 ** 3 } },
        taints: [{ key: 'team', value: 'ml', effect: 'NoSchedule' }],
        expireAfter: '720h',
      },
      status: { allocatable: { cpu: 1930 } },
    });
    expect(read.uid).toBeDefined();
    expect((await h.cluster.nodeClaim(name)).name).toBe(name);
  });

  it('reports a NodeClaim it cannot read and a missing one with typed errors', async () => {
    h.server.store.create('nodeclaims.karpenter.sh', {
      metadata: { name: 'odd' },
      spec: { requirements: 'x' },
    });
    const list = await h.cluster.nodeClaims();
    expect(list.items).toEqual([]);
    expect(list.invalid[0].message).toContain('NodeClaim/odd');
    expect(isValidationError(await rejectionOf(h.cluster.nodeClaim('odd')))).toBe(true);
    const missing = await rejectionOf(h.cluster.nodeClaim('ghost'));
    expect(isNotFoundError(missing)).toBe(true);
    expect(missing.message).toBe('reading NodeClaim ghost: NodeClaim ghost not found');
  });

  it('adds and removes finalizers without touching the others, idempotently', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    await h.cluster.addNodeClaimFinalizer(name, 'example.com/audit');
    await h.cluster.addNodeClaimFinalizer(name, 'example.com/audit');
    expect(stored(name).metadata.finalizers).toEqual([TERMINATION_FINALIZER, 'example.com/audit']);
    await h.cluster.removeNodeClaimFinalizer(name, TERMINATION_FINALIZER);
    await h.cluster.removeNodeClaimFinalizer(name, TERMINATION_FINALIZER);
    expect(stored(name).metadata.finalizers).toEqual(['example.com/audit']);
    const patches = h.server.requests.filter((r) => r.method === 'PATCH');
    expect(patches).toHaveLength(2);
    expect(patches[0]).toMatchObject({ contentType: 'application/merge-patch+json' });
    expect(patches[0].body).toMatchObject({ metadata: { resourceVersion: expect.any(String) } });
  });

  it('deletes in two steps behind the finalizer, and a repeated delete succeeds', async () => {
    const { name } = await h.cluster.createNodeClaim(claim);
    expect(await h.cluster.deleteNodeClaim(name)).toBe(true);
    expect(stored(name).metadata.deletionTimestamp).toBe('2026-11-21T10:00:00Z');
    await h.cluster.removeNodeClaimFinalizer(name, TERMINATION_FINALIZER);
    expect(h.server.store.find('nodeclaims.karpenter.sh', name)).toBeUndefined();
    expect(await h.cluster.deleteNodeClaim(name)).toBe(false);
    await h.cluster.removeNodeClaimFinalizer(name, TERMINATION_FINALIZER);
  });
});
