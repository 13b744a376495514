import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';
import { AL2023_IMAGES } from '../../../../../sim/world/aws/region';

describe('FakeEc2 image states', () => {
  const pending = {
    id: 'ami-00000000000000c01',
    name: 'golden-v2',
    creationDate: '2025-02-01T00:00:00Z',
    state: 'pending',
  } as const;

  it('lists images in every state unless DescribeImages filters on state, as EC2 does', async () => {
    const { client } = ec2World({ images: [pending] });
    const all = await client.send(new DescribeImagesCommand({ Owners: ['self'] }));
    expect(all.Images?.map((i) => [i.ImageId, i.State])).toEqual([['ami-00000000000000c01', 'pending']]);

    const available = await client.send(
      new DescribeImagesCommand({ Owners: ['self'], Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(available.Images).toEqual([]);
    const byId = await client.send(new DescribeImagesCommand({ ImageIds: [pending.id] }));
    expect(byId.Images?.[0]?.State).toBe('pending');
  });

  it('moves an image to available when its registration completes', async () => {
    const { client, fake } = ec2World({ images: [pending] });
    fake.setImageState(pending.id, 'available');
    const available = await client.send(
      new DescribeImagesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(available.Images?.map((i) => i.ImageId)).toEqual([pending.id]);
    expect(() => fake.setImageState('ami-00000000000000fff', 'failed')).toThrow(
      'FakeEc2 has no image ami-00000000000000fff to move to failed',
    );
  });
});

describe('FakeEc2 Windows AMIs', () => {
  const windows = {
    id: 'ami-00000000000000e22',
    name: 'Windows_Server-2022-English-Core-EKS_Optimized-1.31-2025.12.01',
    creationDate: '2025-12-01T00:00:00Z',
    ownerAlias: 'amazon',
    platform: 'windows',
  } as const;

  it('describes a Windows AMI as EC2 does: platform windows, billed as Windows, booting from /dev/sda1', async () => {
    const { client } = ec2World({ images: [AL2023_IMAGES.amd64, windows] });
    const [image] =
      (await client.send(new DescribeImagesCommand({ Filters: [{ Name: 'platform', Values: ['windows'] }] })))
        .Images ?? [];
    expect(image).toMatchObject({
      ImageId: windows.id,
      Platform: 'windows',
      PlatformDetails: 'Windows',
      UsageOperation: 'RunInstances:0002',
      RootDeviceName: '/dev/sda1',
    });
    const linux = (await client.send(new DescribeImagesCommand({ ImageIds: [AL2023_IMAGES.amd64.id] })))
      .Images?.[0];
    expect([linux?.Platform, linux?.PlatformDetails, linux?.RootDeviceName]).toEqual([
      undefined,
      'Linux/UNIX',
      '/dev/xvda',
    ]);
  });

  it('launches Windows instances from it, which DescribeInstances lists under platform=windows', async () => {
    const { client } = ec2World({ images: [AL2023_IMAGES.amd64, windows] });
    const launch = async (imageId: string) => {
      const lt = await client.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: imageId,
          LaunchTemplateData: { ImageId: imageId },
        }),
      );
      const out = await client.send(
        new CreateFleetCommand({
          Type: 'instant',
          LaunchTemplateConfigs: [
            {
              LaunchTemplateSpecification: {
                LaunchTemplateId: lt.LaunchTemplate?.LaunchTemplateId,
                Version: '$Latest',
              },
              Overrides: [{ InstanceType: 'm5.large', SubnetId: 'subnet-0000000000000000a' }],
            },
          ],
          TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
        }),
      );
      return out.Instances?.[0]?.InstanceIds?.[0];
    };
    const win = await launch(windows.id);
    const linux = await launch(AL2023_IMAGES.amd64.id);
    const described = await client.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'platform', Values: ['windows'] }] }),
    );
    const instances = described.Reservations?.flatMap((r) => r.Instances ?? []) ?? [];
    expect(instances.map((i) => i.InstanceId)).toEqual([win]);
    expect(instances[0]).toMatchObject({
      Platform: 'windows',
      PlatformDetails: 'Windows',
      UsageOperation: 'RunInstances:0002',
      RootDeviceName: '/dev/sda1',
    });
    expect(linux).toBeDefined();
    const linuxInstance = (await client.send(new DescribeInstancesCommand({ InstanceIds: [linux!] })))
      .Reservations?.[0]?.Instances?.[0];
    expect(linuxInstance).toMatchObject({ PlatformDetails: 'Linux/UNIX', RootDeviceName: '/dev/xvda' });
    expect(linuxInstance?.Platform).toBeUndefined();
  });
});
