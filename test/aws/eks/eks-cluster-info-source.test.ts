import { afterEach, describe, expect, it } from 'vitest';
import {
  clearEksClusterInfoCache,
  EksClusterInfoSource,
} from '../../../shared/aws/eks/eks-cluster-info-source';
import { TtlCache } from '../../../shared/aws/ttl-cache';
import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import { CloudError, NotFoundError } from '../../../shared/core/model/errors';
import { FAKE_EKS_CA } from '../../../sim/fakes/aws/fake-eks';
import { eksWorld } from '../../../sim/world/aws/eks-world';

const MINUTE = 60_000;

function infoSource(world: ReturnType<typeof eksWorld>, clusterName = 'prod', shared = false) {
  return new EksClusterInfoSource({
    eks: world.eks,
    clusterName,
    clock: world.clock,
    ...(shared ? {} : { cache: new TtlCache<ClusterInfo>() }),
  });
}

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

afterEach(() => clearEksClusterInfoCache());

describe('EksClusterInfoSource', () => {
  it('maps an IPv4 cluster from DescribeCluster, with the cluster DNS at the 10th service address', async () => {
    const world = eksWorld([{ name: 'prod', version: '1.32', serviceIpv4Cidr: '172.20.0.0/16' }]);
    const info = await infoSource(world).get();
    expect(info).toEqual({
      name: 'prod',
      endpoint: expect.stringMatching(/^https:\/\/[0-9A-F]{32}\.gr7\.us-east-1\.eks\.amazonaws\.com$/),
      certificateAuthority: FAKE_EKS_CA,
      kubernetesVersion: '1.32',
      serviceCidr: '172.20.0.0/16',
      ipFamily: 'ipv4',
      clusterDns: '172.20.0.10',
    });
    expect(world.fake.callsTo('DescribeCluster')).toEqual([{ name: 'prod' }]);
  });

  it('takes the IPv6 service CIDR of an IPv6 cluster', async () => {
    const world = eksWorld([{ name: 'v6', ipFamily: 'ipv6' }]);
    const info = await infoSource(world, 'v6').get();
    expect(info).toMatchObject({
      ipFamily: 'ipv6',
      serviceCidr: 'fd30:1c53:5f8a::/108',
      clusterDns: 'fd30:1c53:5f8a::a',
    });
  });

  it('reuses the answer for the TTL of the injected clock, then describes again', async () => {
    const world = eksWorld();
    const source = infoSource(world);
    const first = await source.get();
    world.fake.setClusterVersion('prod', '1.32');
    world.clock.advance(5 * MINUTE - 1);
    expect(await source.get()).toBe(first);
    expect(world.fake.callsTo('DescribeCluster')).toHaveLength(1);
    world.clock.advance(1);
    expect((await source.get()).kubernetesVersion).toBe('1.32');
    expect(world.fake.callsTo('DescribeCluster')).toHaveLength(2);
  });

  it('shares the module-scope cache between sources of one Lambda instance', async () => {
    const world = eksWorld();
    await infoSource(world, 'prod', true).get();
    await infoSource(world, 'prod', true).get();
    expect(world.fake.callsTo('DescribeCluster')).toHaveLength(1);
    clearEksClusterInfoCache();
    await infoSource(world, 'prod', true).get();
    expect(world.fake.callsTo('DescribeCluster')).toHaveLength(2);
  });

  it('throws a NotFoundError naming the cluster when EKS has no such cluster', async () => {
    const error = await errorOf(infoSource(eksWorld(), 'nope').get());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      resource: 'EKS cluster nope',
      message: 'describing EKS cluster nope in us-east-1: no cluster named nope (ResourceNotFoundException)',
    });
  });

  it('throws a retryable CloudError while the cluster is CREATING, and does not cache it', async () => {
    const world = eksWorld([{ name: 'prod', status: 'CREATING' }]);
    const source = infoSource(world);
    const error = await errorOf(source.get());
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({
      code: 'ClusterStatus.CREATING',
      retryable: true,
      message: 'describing EKS cluster prod in us-east-1: cluster status is CREATING, not ACTIVE',
    });
    world.fake.setClusterStatus('prod', 'ACTIVE');
    expect((await source.get()).endpoint).toMatch(/^https:/);
  });

  it('throws a final CloudError for a DELETING or FAILED cluster', async () => {
    for (const status of ['DELETING', 'FAILED'] as const) {
      const error = await errorOf(infoSource(eksWorld([{ name: 'prod', status }])).get());
      expect(error).toBeInstanceOf(CloudError);
      expect(error).toMatchObject({ code: `ClusterStatus.${status}`, retryable: false });
    }
  });

  it('serves an UPDATING cluster: EKS keeps the control plane up during upgrades', async () => {
    const info = await infoSource(eksWorld([{ name: 'prod', status: 'UPDATING' }])).get();
    expect(info.kubernetesVersion).toBe('1.31');
  });

  it('turns throttling into a retryable CloudError that names the call', async () => {
    const world = eksWorld();
    world.fake.throttle('DescribeCluster');
    const error = await errorOf(infoSource(world).get());
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({
      code: 'ThrottlingException',
      retryable: true,
      message: 'describing EKS cluster prod in us-east-1: ThrottlingException: Rate exceeded',
    });
  });
});
