import type { DescribeSecurityGroupsCommandInput, DescribeSubnetsCommandInput } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { isCloudError } from '../../../shared/core/model/errors';
import { nodeClassWorld } from '../../../sim/world/aws/node-class-world';
import { CLUSTER } from '../../../sim/world/aws/region';
import { nodeClass } from '../../../sim/world/builders';

const condition = (conditions: readonly { type: string }[], type: string) =>
  conditions.find((c) => c.type === type);

describe('EC2NodeClassResolver subnets', () => {
  it('resolves tag terms to subnets with zone, zone id and free IPs, most free IPs first', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }] }),
    );
    expect(status.subnets).toEqual([
      {
        id: 'subnet-0000000000000000b',
        zone: 'us-east-1b',
        zoneID: 'use1-az2',
        availableIpAddressCount: 4000,
      },
      {
        id: 'subnet-0000000000000000a',
        zone: 'us-east-1a',
        zoneID: 'use1-az1',
        availableIpAddressCount: 100,
      },
    ]);
    expect(condition(status.conditions, 'SubnetsReady')).toMatchObject({
      status: 'True',
      reason: 'SubnetsReady',
    });
  });

  it('turns a tag value of * into a tag-key filter that matches any value', async () => {
    const { resolver, ec2Fake } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '*' } }] }),
    );
    expect(status.subnets.map((s) => s.id).sort()).toEqual([
      'subnet-0000000000000000a',
      'subnet-0000000000000000b',
      'subnet-0000000000000000c',
    ]);
    expect(ec2Fake.callsTo('DescribeSubnets')).toEqual([
      { Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/discovery'] }] },
    ]);
  });

  it('ANDs the fields of one term', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '*', tier: 'public' } }] }),
    );
    expect(status.subnets.map((s) => s.id)).toEqual(['subnet-0000000000000000c']);
  });

  it('ORs terms: one call per tag term, every id term in one subnet-id call', async () => {
    const { resolver, ec2Fake } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({
        subnetSelectorTerms: [
          { id: 'subnet-0000000000000000d' },
          { tags: { tier: 'public' } },
          { id: 'subnet-0000000000000000a' },
        ],
      }),
    );
    expect(status.subnets.map((s) => s.id)).toEqual([
      'subnet-0000000000000000c',
      'subnet-0000000000000000a',
      'subnet-0000000000000000d',
    ]);
    const calls = ec2Fake.callsTo('DescribeSubnets') as DescribeSubnetsCommandInput[];
    expect(calls.map((c) => c.Filters)).toEqual([
      [{ Name: 'tag:tier', Values: ['public'] }],
      [{ Name: 'subnet-id', Values: ['subnet-0000000000000000d', 'subnet-0000000000000000a'] }],
    ]);
  });

  it('reports SubnetsNotFound with Karpenter message when nothing matches', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ subnetSelectorTerms: [{ id: 'subnet-00000000000000099' }] }),
    );
    expect(status.subnets).toEqual([]);
    expect(condition(status.conditions, 'SubnetsReady')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
      message: 'SubnetSelector did not match any Subnets',
    });
  });

  it('turns a permission error into a False condition naming the call and the node class', async () => {
    const { resolver, ec2Fake } = nodeClassWorld();
    ec2Fake.failNext('DescribeSubnets', 'UnauthorizedOperation', { message: 'You are not authorized' });
    const status = await resolver.resolve(
      nodeClass({ name: 'gpu', subnetSelectorTerms: [{ tags: { tier: 'private' } }] }),
    );
    const subnetsReady = condition(status.conditions, 'SubnetsReady');
    expect(subnetsReady).toMatchObject({ status: 'False', reason: 'UnauthorizedOperation' });
    expect(subnetsReady).toHaveProperty(
      'message',
      expect.stringContaining('describing subnets for EC2NodeClass gpu'),
    );
  });

  it('throws a retryable CloudError when EC2 throttles, so no status is written', async () => {
    const { resolver, ec2Fake } = nodeClassWorld();
    ec2Fake.throttle('DescribeSubnets');
    const failure = await resolver
      .resolve(nodeClass({ subnetSelectorTerms: [{ tags: { tier: 'private' } }] }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isCloudError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'RequestLimitExceeded', retryable: true });
  });
});

describe('EC2NodeClassResolver security groups', () => {
  it('resolves tag, id and name terms, sorted by id, with names', async () => {
    const { resolver, ec2Fake } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({
        securityGroupSelectorTerms: [
          { name: 'web' },
          { tags: { 'karpenter.sh/discovery': CLUSTER } },
          { id: 'sg-0000000000000000b' },
        ],
      }),
    );
    expect(status.securityGroups).toEqual([
      { id: 'sg-0000000000000000a', name: 'nodes' },
      { id: 'sg-0000000000000000b', name: 'ml' },
      { id: 'sg-0000000000000000c', name: 'web' },
    ]);
    const calls = ec2Fake.callsTo('DescribeSecurityGroups') as DescribeSecurityGroupsCommandInput[];
    expect(calls.map((c) => c.Filters)).toEqual([
      [{ Name: 'tag:karpenter.sh/discovery', Values: [CLUSTER] }],
      [{ Name: 'group-id', Values: ['sg-0000000000000000b'] }],
      [{ Name: 'group-name', Values: ['web'] }],
    ]);
    expect(condition(status.conditions, 'SecurityGroupsReady')).toMatchObject({ status: 'True' });
  });

  it('matches any value of a tag given as *', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ securityGroupSelectorTerms: [{ tags: { team: '*' } }] }),
    );
    expect(status.securityGroups).toEqual([{ id: 'sg-0000000000000000b', name: 'ml' }]);
  });

  it('reports SecurityGroupsNotFound with Karpenter message when nothing matches', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(
      nodeClass({ securityGroupSelectorTerms: [{ tags: { team: 'web' } }] }),
    );
    expect(condition(status.conditions, 'SecurityGroupsReady')).toMatchObject({
      status: 'False',
      reason: 'SecurityGroupsNotFound',
      message: 'SecurityGroupSelector did not match any SecurityGroups',
    });
  });
});
