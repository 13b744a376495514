import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EC2NodeClassStatus } from '../../shared/core/model/ec2nodeclass-status';
import { isNotFoundError } from '../../shared/core/model/errors';
import { ec2NodeClassManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

const ready = {
  type: 'Ready',
  status: 'True',
  reason: 'Ready',
  message: '',
  lastTransitionTime: '2026-11-21T09:00:00Z',
} as const;

const status: EC2NodeClassStatus = {
  subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1', availableIpAddressCount: 100 }],
  securityGroups: [{ id: 'sg-1', name: 'nodes' }],
  amis: [
    {
      id: 'ami-1',
      name: 'al2023',
      deprecated: false,
      requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
    },
  ],
  instanceProfile: 'podlift-profile',
  conditions: [ready],
};

describe('KubeCluster.writeNodeClassStatus', () => {
  it("writes Karpenter's status shape through the status subresource, leaving spec alone", async () => {
    h.server.store.create('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest({ name: 'default' }));
    await h.cluster.writeNodeClassStatus('default', status);
    const stored = h.server.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default');
    expect(stored.status).toEqual({
      subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1' }],
      securityGroups: [{ id: 'sg-1', name: 'nodes' }],
      amis: [
        {
          id: 'ami-1',
          name: 'al2023',
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
        },
      ],
      instanceProfile: 'podlift-profile',
      conditions: [ready],
    });
    expect(stored.metadata.generation).toBe(1);
    expect(h.server.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status',
      contentType: 'application/merge-patch+json',
    });
    expect((await h.cluster.nodeClasses()).conditions.get('default')).toEqual([ready]);
  });

  it('removes an instance profile that no longer resolves and replaces the lists', async () => {
    h.server.store.create('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest({ name: 'default' }));
    await h.cluster.writeNodeClassStatus('default', status);
    const { instanceProfile: _p, ...withoutProfile } = status;
    await h.cluster.writeNodeClassStatus('default', { ...withoutProfile, subnets: [] });
    const stored = h.server.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default').status as Record<
      string,
      unknown
    >;
    expect(stored.instanceProfile).toBeUndefined();
    expect(stored.subnets).toEqual([]);
  });

  it('fails with NotFoundError for a missing EC2NodeClass', async () => {
    const error = await rejectionOf(h.cluster.writeNodeClassStatus('ghost', status));
    expect(isNotFoundError(error)).toBe(true);
    expect(error.message).toBe('writing the status of EC2NodeClass ghost: EC2NodeClass ghost not found');
  });
});

describe('KubeCluster.writeNodeClassConditions', () => {
  const invalid = {
    type: 'ValidationSucceeded',
    status: 'False',
    reason: 'ValidationFailed',
    message: 'spec.amiSelectorTerms: required',
  } as const;
  const classes = 'ec2nodeclasses.karpenter.k8s.aws';

  it('reads with a metadata.name list and merge-patches the conditions at the version read, keeping the others', async () => {
    h.server.store.create(classes, ec2NodeClassManifest({ name: 'default' }));
    await h.cluster.writeNodeClassStatus('default', status);
    await h.cluster.writeNodeClassConditions('default', [invalid]);
    const conditions = (h.server.store.get(classes, 'default').status as { conditions: { type: string }[] })
      .conditions;
    expect(conditions.map((c) => c.type).sort()).toEqual(['Ready', 'ValidationSucceeded']);
    const [read, write] = h.server.requests.slice(-2);
    expect(read).toMatchObject({ method: 'GET', path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses' });
    expect(read.query.fieldSelector).toBe('metadata.name=default');
    expect(write).toMatchObject({
      method: 'PATCH',
      path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status',
      contentType: 'application/merge-patch+json',
    });
    expect((write.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBeDefined();
    // Unchanged: read, nothing written.
    const before = h.server.requests.length;
    await h.cluster.writeNodeClassConditions('default', [invalid]);
    expect(h.server.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
  });

  it('reads again after a conflict', async () => {
    h.server.store.create(classes, ec2NodeClassManifest({ name: 'default' }));
    h.server.failNext('patch', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status', 409);
    await h.cluster.writeNodeClassConditions('default', [invalid]);
    expect(h.server.requests.filter((r) => r.method === 'GET').length).toBe(2);
    expect(
      (h.server.store.get(classes, 'default').status as { conditions: { type: string }[] }).conditions,
    ).toMatchObject([{ type: 'ValidationSucceeded', status: 'False' }]);
  });

  it('fails with NotFoundError for a missing EC2NodeClass', async () => {
    const error = await rejectionOf(h.cluster.writeNodeClassConditions('ghost', [invalid]));
    expect(isNotFoundError(error)).toBe(true);
    expect(error.message).toBe('writing the conditions of EC2NodeClass ghost: EC2NodeClass ghost not found');
  });
});
