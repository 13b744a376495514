import { describe, expect, it } from 'vitest';
import {
  nodeClassNotReadyExplanation,
  toStatusManifest,
} from '../../../shared/core/model/ec2nodeclass-conditions';
import { nodeClassReady } from '../../../shared/core/model/ec2nodeclass-status';
import { AMAZON, al2023Path, amiParameter, nodeClassWorld } from '../../../sim/world/aws/node-class-world';
import { CLUSTER } from '../../../sim/world/aws/region';
import type { NodeClassOptions } from '../../../sim/world/builders';
import { nodeClass } from '../../../sim/world/builders';

const X86 = 'ami-000000000000000a1';
const ARM = 'ami-000000000000000a4';

/** A world where Karpenter's getting-started EC2NodeClass resolves fully. */
function readyWorld() {
  return nodeClassWorld({
    ec2: {
      images: [
        { id: X86, name: 'al2023-x86', creationDate: '2025-11-01T00:00:00Z', ...AMAZON },
        {
          id: ARM,
          name: 'al2023-arm',
          architecture: 'arm64',
          creationDate: '2025-12-01T00:00:00Z',
          ...AMAZON,
        },
      ],
    },
    parameters: [
      amiParameter(al2023Path('x86_64', 'standard'), X86),
      amiParameter(al2023Path('arm64', 'standard'), ARM),
    ],
  });
}

function gettingStarted(options: NodeClassOptions = {}) {
  return nodeClass({
    role: 'KarpenterNodeRole-demo',
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    ...options,
  });
}

const NOW = '2026-01-01T00:00:00Z';

describe('EC2NodeClassResolver status', () => {
  it('is Ready when every part resolves, with conditions as Karpenter writes them', async () => {
    const { resolver } = readyWorld();
    const status = await resolver.resolve(gettingStarted());
    expect(nodeClassReady(status)).toBe(true);
    expect(status.conditions).toEqual([
      { type: 'AMIsReady', status: 'True', reason: 'AMIsReady', message: '', lastTransitionTime: NOW },
      {
        type: 'InstanceProfileReady',
        status: 'True',
        reason: 'InstanceProfileReady',
        message: '',
        lastTransitionTime: NOW,
      },
      { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: NOW },
      {
        type: 'SecurityGroupsReady',
        status: 'True',
        reason: 'SecurityGroupsReady',
        message: '',
        lastTransitionTime: NOW,
      },
      { type: 'SubnetsReady', status: 'True', reason: 'SubnetsReady', message: '', lastTransitionTime: NOW },
    ]);
    expect(nodeClassNotReadyExplanation(status.conditions)).toBeUndefined();
  });

  it('is not Ready when selectors match nothing, naming each unhealthy dependent', async () => {
    const { resolver } = readyWorld();
    const status = await resolver.resolve(
      gettingStarted({
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'nobody' } }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'nobody' } }],
      }),
    );
    expect(nodeClassReady(status)).toBe(false);
    expect(status.conditions.find((c) => c.type === 'SubnetsReady')).toEqual({
      type: 'SubnetsReady',
      status: 'False',
      reason: 'SubnetsNotFound',
      message: 'SubnetSelector did not match any Subnets',
      lastTransitionTime: NOW,
    });
    expect(status.conditions.find((c) => c.type === 'Ready')).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'UnhealthyDependents',
      message: 'SubnetsReady=False, SecurityGroupsReady=False',
      lastTransitionTime: NOW,
    });
    expect(nodeClassNotReadyExplanation(status.conditions)).toBe(
      'SubnetsReady=False SubnetsNotFound: SubnetSelector did not match any Subnets; ' +
        'SecurityGroupsReady=False SecurityGroupsNotFound: SecurityGroupSelector did not match any SecurityGroups',
    );
  });

  it('keeps lastTransitionTime from the status read from the cluster until a condition changes', async () => {
    const { resolver } = readyWorld();
    const earlier = '2025-12-24T10:00:00Z';
    const previous = {
      conditions: [
        {
          type: 'SubnetsReady',
          status: 'True',
          reason: 'SubnetsReady',
          message: '',
          lastTransitionTime: earlier,
        },
        {
          type: 'AMIsReady',
          status: 'False',
          reason: 'AMINotFound',
          message: 'AMISelector did not match any AMIs',
          lastTransitionTime: earlier,
        },
      ],
    };
    const status = await resolver.resolve(gettingStarted({ status: previous }));
    const time = (type: string) => status.conditions.find((c) => c.type === type)?.lastTransitionTime;
    expect(time('SubnetsReady')).toBe(earlier);
    expect(time('AMIsReady')).toBe(NOW);
  });

  it('produces the CRD status object Karpenter writes', async () => {
    const { resolver } = readyWorld();
    const manifest = toStatusManifest(await resolver.resolve(gettingStarted()));
    expect(manifest.subnets).toEqual([
      { id: 'subnet-0000000000000000b', zone: 'us-east-1b', zoneID: 'use1-az2' },
      { id: 'subnet-0000000000000000a', zone: 'us-east-1a', zoneID: 'use1-az1' },
    ]);
    expect(manifest.securityGroups).toEqual([{ id: 'sg-0000000000000000a', name: 'nodes' }]);
    expect(manifest.amis).toEqual([
      {
        id: ARM,
        name: 'al2023-arm',
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
          { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' },
          { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' },
        ],
      },
      {
        id: X86,
        name: 'al2023-x86',
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' },
          { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' },
        ],
      },
    ]);
    expect(manifest.instanceProfile).toMatch(/^demo_\d+$/);
    expect(manifest.conditions.map((c) => c.type)).toEqual([
      'AMIsReady',
      'InstanceProfileReady',
      'Ready',
      'SecurityGroupsReady',
      'SubnetsReady',
    ]);
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
  });

  it('writes empty lists and a null profile for what did not resolve, so a merge patch clears them', () => {
    const manifest = toStatusManifest({ subnets: [], securityGroups: [], amis: [], conditions: [] });
    expect(manifest).toEqual({
      subnets: [],
      securityGroups: [],
      amis: [],
      instanceProfile: null,
      conditions: [],
    });
  });
});

describe('EC2NodeClassResolver cache', () => {
  const reads = (world: ReturnType<typeof readyWorld>) =>
    world.ec2Fake.calls.length + world.ssmFake.calls.length + world.iamFake.calls.length;

  it('reuses a resolution for 60 s, then asks AWS again', async () => {
    const world = readyWorld();
    await world.resolver.resolve(gettingStarted());
    const first = reads(world);
    expect(first).toBeGreaterThan(0);

    world.clock.advance(59_000);
    await world.resolver.resolve(gettingStarted());
    expect(reads(world)).toBe(first);

    world.clock.advance(2_000);
    await world.resolver.resolve(gettingStarted());
    expect(world.ec2Fake.callsTo('DescribeSubnets')).toHaveLength(2);
    expect(world.ec2Fake.callsTo('DescribeSecurityGroups')).toHaveLength(2);
    expect(world.ec2Fake.callsTo('DescribeImages')).toHaveLength(2);
    expect(world.ssmFake.callsTo('GetParameters')).toHaveLength(2);
    // The instance profile is trusted for 15 minutes.
    expect(world.iamFake.callsTo('GetInstanceProfile')).toHaveLength(1);
  });

  it('sees a new subnet once the TTL has passed', async () => {
    const world = readyWorld();
    await world.resolver.resolve(gettingStarted());
    world.ec2Fake.addSubnet({
      id: 'subnet-0000000000000000e',
      availabilityZone: 'us-east-1c',
      tags: { 'karpenter.sh/discovery': CLUSTER },
    });
    expect((await world.resolver.resolve(gettingStarted())).subnets).toHaveLength(2);
    world.clock.advance(60_000);
    expect((await world.resolver.resolve(gettingStarted())).subnets).toHaveLength(3);
  });

  it('resolves a changed spec at once, and only the parts that changed', async () => {
    const world = readyWorld();
    await world.resolver.resolve(gettingStarted());
    const status = await world.resolver.resolve(
      gettingStarted({ subnetSelectorTerms: [{ id: 'subnet-0000000000000000d' }] }),
    );
    expect(status.subnets.map((s) => s.id)).toEqual(['subnet-0000000000000000d']);
    expect(world.ec2Fake.callsTo('DescribeSubnets')).toHaveLength(2);
    expect(world.ec2Fake.callsTo('DescribeSecurityGroups')).toHaveLength(1);
  });

  it('shares one lookup between concurrent resolves of the same node class', async () => {
    const world = readyWorld();
    await Promise.all([world.resolver.resolve(gettingStarted()), world.resolver.resolve(gettingStarted())]);
    expect(world.ec2Fake.callsTo('DescribeSubnets')).toHaveLength(1);
    expect(world.iamFake.callsTo('CreateInstanceProfile')).toHaveLength(1);
  });

  it('does not cache a failed call', async () => {
    const world = readyWorld();
    world.ec2Fake.throttle('DescribeSubnets');
    await expect(world.resolver.resolve(gettingStarted())).rejects.toThrow(/RequestLimitExceeded/);
    const status = await world.resolver.resolve(gettingStarted());
    expect(nodeClassReady(status)).toBe(true);
  });
});
