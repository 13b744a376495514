import { describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import { nodeClassNotReadyExplanation } from '../../../shared/core/model/ec2nodeclass-conditions';
import { nodeClassReady } from '../../../shared/core/model/ec2nodeclass-status';
import { AMAZON, al2023Path, amiParameter, nodeClassWorld } from '../../../sim/world/aws/node-class-world';
import { CLUSTER } from '../../../sim/world/aws/region';
import { nodeClass } from '../../../sim/world/builders';

const X86 = 'ami-000000000000000a1';

function world() {
  const w = nodeClassWorld({
    ec2: {
      images: [{ id: X86, name: 'al2023-x86', creationDate: '2025-11-01T00:00:00Z', ...AMAZON }],
      placementGroups: [
        { name: 'hpc', strategy: 'cluster' },
        { name: 'kafka', strategy: 'partition', partitionCount: 3 },
      ],
    },
    parameters: [amiParameter(al2023Path('x86_64', 'standard'), X86)],
  });
  return w;
}

function withSelector(selector: EC2NodeClass['placementGroupSelector']): EC2NodeClass {
  return {
    ...nodeClass({
      role: 'KarpenterNodeRole-demo',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
    }),
    ...(selector === undefined ? {} : { placementGroupSelector: selector }),
  };
}

const condition = (status: { conditions: readonly { type: string }[] }) =>
  status.conditions.find((c) => c.type === 'PlacementGroupReady');

describe('EC2NodeClassResolver: spec.placementGroupSelector', () => {
  it('resolves a group by name through DescribePlacementGroups with state=available, as Karpenter does', async () => {
    const { resolver, ec2Fake } = world();

    const status = await resolver.resolve(withSelector({ name: 'kafka' }));

    expect(status.placementGroup).toStrictEqual({
      id: expect.stringMatching(/^pg-[0-9a-f]{17}$/),
      name: 'kafka',
      strategy: 'partition',
      partitionCount: 3,
    });
    expect(condition(status)).toMatchObject({ status: 'True', reason: 'PlacementGroupReady' });
    expect(nodeClassReady(status)).toBe(true);
    expect(ec2Fake.callsTo('DescribePlacementGroups')).toStrictEqual([
      { Filters: [{ Name: 'state', Values: ['available'] }], GroupNames: ['kafka'] },
    ]);
  });

  it('resolves a group by id', async () => {
    const { resolver, ec2Fake } = world();
    const id = ec2Fake.addPlacementGroup({ name: 'spread-me', strategy: 'spread' }).GroupId!;

    const status = await resolver.resolve(withSelector({ id }));

    expect(status.placementGroup).toStrictEqual({
      id,
      name: 'spread-me',
      strategy: 'spread',
      spreadLevel: 'rack',
    });
  });

  it('is not Ready when the group does not exist or is not available, so nothing launches outside it', async () => {
    const { resolver, ec2Fake } = world();

    const unknown = await resolver.resolve(withSelector({ name: 'nope' }));
    expect(unknown.placementGroup).toBeUndefined();
    expect(condition(unknown)).toMatchObject({
      status: 'False',
      reason: 'PlacementGroupNotFound',
      message: 'Placement group "nope" not found',
    });
    expect(nodeClassReady(unknown)).toBe(false);
    expect(nodeClassNotReadyExplanation(unknown.conditions)).toBe(
      'PlacementGroupReady=False PlacementGroupNotFound: Placement group "nope" not found',
    );

    ec2Fake.setPlacementGroupState('hpc', 'deleting');
    const deleting = await resolver.resolve(withSelector({ name: 'hpc' }));
    expect(condition(deleting)).toMatchObject({ status: 'False', reason: 'PlacementGroupNotFound' });
    expect(nodeClassReady(deleting)).toBe(false);
  });

  it('asks EC2 nothing and reports no PlacementGroupReady without a selector', async () => {
    const { resolver, ec2Fake } = world();

    const status = await resolver.resolve(withSelector(undefined));

    expect(status.placementGroup).toBeUndefined();
    expect(condition(status)).toBeUndefined();
    expect(ec2Fake.callsTo('DescribePlacementGroups')).toStrictEqual([]);
  });
});
