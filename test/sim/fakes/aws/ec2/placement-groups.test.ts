import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribePlacementGroupsCommand,
  type EC2Client,
  type LaunchTemplatePlacementRequest,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { instanceTypeInfo } from '../../../../../sim/fakes/aws/ec2';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';
import { SUBNET_A, SUBNET_B } from '../../../../../sim/world/aws/region';

/** FakeEc2's placement groups: DescribePlacementGroups, and what CreateFleet refuses of a template's Placement. */

let templates = 0;

async function launch(
  client: EC2Client,
  placement: LaunchTemplatePlacementRequest,
  instanceType: string,
  subnet = SUBNET_A,
) {
  templates += 1;
  const name = `placement-${templates}`;
  const template = await client.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: name,
      LaunchTemplateData: { Placement: placement },
    }),
  );
  const out = await client.send(
    new CreateFleetCommand({
      Type: 'instant',
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: {
            LaunchTemplateId: template.LaunchTemplate!.LaunchTemplateId!,
            Version: '$Latest',
          },
          Overrides: [{ InstanceType: instanceType as 'm5.large', SubnetId: subnet }],
        },
      ],
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
    }),
  );
  return {
    instanceIds: (out.Instances ?? []).flatMap((i) => i.InstanceIds ?? []),
    errors: (out.Errors ?? []).map((e) => `${e.ErrorCode}: ${e.ErrorMessage}`),
  };
}

describe('FakeEc2 placement groups', () => {
  it('describes groups by name, id and filter, and fails on a name or id it does not know, as EC2 does', async () => {
    const { fake, client } = ec2World({
      placementGroups: [
        { name: 'hpc', strategy: 'cluster' },
        { name: 'old', strategy: 'spread', state: 'deleted' },
      ],
    });
    const kafka = fake.addPlacementGroup({ name: 'kafka', strategy: 'partition', partitionCount: 4 });

    const byName = await client.send(new DescribePlacementGroupsCommand({ GroupNames: ['hpc'] }));
    expect(byName.PlacementGroups?.map((g) => [g.GroupName, g.Strategy, g.State])).toStrictEqual([
      ['hpc', 'cluster', 'available'],
    ]);
    const byId = await client.send(new DescribePlacementGroupsCommand({ GroupIds: [kafka.GroupId!] }));
    expect(byId.PlacementGroups?.[0]).toMatchObject({ GroupName: 'kafka', PartitionCount: 4 });
    const available = await client.send(
      new DescribePlacementGroupsCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(available.PlacementGroups?.map((g) => g.GroupName)).toStrictEqual(['hpc', 'kafka']);

    await expect(
      client.send(new DescribePlacementGroupsCommand({ GroupNames: ['nope'] })),
    ).rejects.toMatchObject({
      name: 'InvalidPlacementGroup.Unknown',
      message: "The Placement Group 'nope' is unknown.",
    });
    await expect(
      client.send(new DescribePlacementGroupsCommand({ GroupIds: ['pg-0123456789abcdef0'] })),
    ).rejects.toMatchObject({ name: 'InvalidPlacementGroup.Unknown' });
    await expect(
      client.send(new DescribePlacementGroupsCommand({ Filters: [{ Name: 'colour', Values: ['x'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('launches into a group and reports it on the instance; a partition group spreads over its partitions', async () => {
    const { fake, client } = ec2World({
      placementGroups: [{ name: 'kafka', strategy: 'partition', partitionCount: 2 }],
    });

    const first = await launch(client, { GroupName: 'kafka' }, 'm5.large');
    const second = await launch(client, { GroupName: 'kafka' }, 'm5.large', SUBNET_B);
    const pinned = await launch(client, { GroupName: 'kafka', PartitionNumber: 2 }, 'c5.xlarge');

    const placements = [first, second, pinned].map((l) => fake.instance(l.instanceIds[0]!)?.Placement);
    expect(placements.map((p) => [p?.GroupName, p?.PartitionNumber])).toStrictEqual([
      ['kafka', 1],
      ['kafka', 2],
      ['kafka', 2],
    ]);
    expect(
      (await launch(client, { GroupName: 'kafka', PartitionNumber: 3 }, 'm5.large')).errors,
    ).toStrictEqual(["InvalidParameterValue: Partition number 3 is invalid for placement group 'kafka'."]);
  });

  it('refuses an unknown group, a type the strategy does not take, and a cluster group in another zone', async () => {
    const { fake, client } = ec2World({ placementGroups: [{ name: 'hpc', strategy: 'cluster' }] });
    fake.addInstanceTypes([instanceTypeInfo({ name: 't3.large', vcpu: 2, memoryMiB: 8192 })]);

    expect((await launch(client, { GroupName: 'nope' }, 'm5.large')).errors).toStrictEqual([
      "InvalidPlacementGroup.Unknown: The Placement Group 'nope' is unknown.",
    ]);
    expect((await launch(client, { GroupName: 'hpc' }, 't3.large')).errors).toStrictEqual([
      'InvalidParameterCombination: The instance type t3.large is not supported in a cluster placement group.',
    ]);
    const inA = await launch(client, { GroupName: 'hpc' }, 'm5.large');
    expect(inA.errors).toStrictEqual([]);
    expect((await launch(client, { GroupName: 'hpc' }, 'c5.xlarge', SUBNET_B)).errors).toStrictEqual([
      "InvalidPlacementGroup.InUse: The placement group 'hpc' is in use in another availability zone: us-east-1a",
    ]);
    expect((await launch(client, { GroupName: 'hpc' }, 'c5.xlarge')).errors).toStrictEqual([]);
  });

  it('takes seven instances per zone in a rack spread group, then answers with the capacity error Karpenter recognises', async () => {
    const { client } = ec2World({ placementGroups: [{ name: 'spread', strategy: 'spread' }] });
    for (let i = 0; i < 7; i += 1)
      expect((await launch(client, { GroupName: 'spread' }, 'm5.large')).errors).toStrictEqual([]);

    expect((await launch(client, { GroupName: 'spread' }, 'm5.large')).errors).toStrictEqual([
      "InsufficientInstanceCapacity: You've reached the limit of instances in this spread placement group. A spread placement group can have up to seven instances per Availability Zone.",
    ]);
    expect((await launch(client, { GroupName: 'spread' }, 'm5.large', SUBNET_B)).errors).toStrictEqual([]);
  });
});
