import { DescribeClusterCommand, ResourceNotFoundException } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { FAKE_EKS_CA } from '../../../../sim/fakes/aws/fake-eks';
import { eksWorld } from '../../../../sim/world/aws/eks-world';

describe('FakeEks', () => {
  it('describes a seeded cluster as EKS does', async () => {
    const { eks } = eksWorld([{ name: 'prod', version: '1.30' }]);
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(cluster).toMatchObject({
      name: 'prod',
      arn: 'arn:aws:eks:us-east-1:123456789012:cluster/prod',
      version: '1.30',
      status: 'ACTIVE',
      certificateAuthority: { data: FAKE_EKS_CA },
      kubernetesNetworkConfig: { serviceIpv4Cidr: '10.100.0.0/16', ipFamily: 'ipv4' },
    });
    expect(cluster?.kubernetesNetworkConfig?.serviceIpv6Cidr).toBeUndefined();
  });

  it('answers ResourceNotFoundException for an unknown name', async () => {
    const { eks } = eksWorld();
    const error = await eks.send(new DescribeClusterCommand({ name: 'nope' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error).toMatchObject({ $fault: 'client', message: 'No cluster found for name: nope.' });
  });

  it('has no endpoint or CA while a cluster is CREATING', async () => {
    const { eks } = eksWorld([{ name: 'new', status: 'CREATING' }]);
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'new' }));
    expect(cluster?.status).toBe('CREATING');
    expect(cluster?.endpoint).toBeUndefined();
    expect(cluster?.certificateAuthority?.data).toBeUndefined();
  });
});
