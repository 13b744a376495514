import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  CreateTagsCommand,
  DeleteLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  EC2ServiceException,
  paginateDescribeInstances,
  paginateDescribeInstanceTypeOfferings,
  paginateDescribeInstanceTypes,
  paginateDescribeSpotPriceHistory,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../../sim/fakes/aws/client-config';
import { instanceTypeInfo } from '../../../../../sim/fakes/aws/ec2';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

const manyTypes = Array.from({ length: 12 }, (_, i) =>
  instanceTypeInfo({ name: `m5.${i + 1}xlarge`, vcpu: 4 * (i + 1), memoryMiB: 16384 * (i + 1) }),
);

describe('FakeEc2 instance types, offerings and spot prices', () => {
  it('pages DescribeInstanceTypes through the SDK paginator and honours filters', async () => {
    const { client } = ec2World({ instanceTypes: manyTypes });
    const pages = await collect(paginateDescribeInstanceTypes({ client, pageSize: 5 }, {}));
    expect(pages.map((p) => p.InstanceTypes?.length)).toEqual([5, 5, 2]);

    const big = await client.send(
      new DescribeInstanceTypesCommand({ Filters: [{ Name: 'instance-type', Values: ['m5.1?xlarge'] }] }),
    );
    expect(big.InstanceTypes?.map((t) => t.InstanceType)).toEqual([
      'm5.10xlarge',
      'm5.11xlarge',
      'm5.12xlarge',
    ]);
  });

  it('rejects unknown instance types, unknown filters and out-of-range MaxResults as EC2 does', async () => {
    const { client } = ec2World();
    await expect(
      client.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.huge' as 'm5.large'] })),
    ).rejects.toMatchObject({
      name: 'InvalidInstanceType',
    });
    await expect(
      client.send(new DescribeInstanceTypesCommand({ Filters: [{ Name: 'colour', Values: ['blue'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', message: "The filter 'colour' is invalid" });
    await expect(client.send(new DescribeInstanceTypesCommand({ MaxResults: 500 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
  });

  it('builds realistic InstanceTypeInfo from a compact spec', () => {
    const p4d = instanceTypeInfo({
      name: 'p4d.24xlarge',
      vcpu: 96,
      memoryMiB: 1179648,
      architecture: 'amd64',
      cpuManufacturer: 'intel',
      gpu: { count: 8, name: 'A100', manufacturer: 'NVIDIA', memoryMiB: 40960 },
      localNvmeGB: 8000,
      networkBandwidthMbps: 400000,
      ebsBandwidthMbps: 19000,
      eni: { maxInterfaces: 60, ipv4PerInterface: 50, networkCardMaxInterfaces: [15, 15, 15, 15] },
      efaMaxInterfaces: 4,
    });
    expect(p4d).toMatchObject({
      InstanceType: 'p4d.24xlarge',
      VCpuInfo: { DefaultVCpus: 96, DefaultCores: 48, DefaultThreadsPerCore: 2 },
      MemoryInfo: { SizeInMiB: 1179648 },
      ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'Intel' },
      GpuInfo: {
        Gpus: [{ Name: 'A100', Manufacturer: 'NVIDIA', Count: 8, MemoryInfo: { SizeInMiB: 40960 } }],
        TotalGpuMemoryInMiB: 327680,
      },
      InstanceStorageInfo: { TotalSizeInGB: 8000, NvmeSupport: 'required' },
      EbsInfo: { EbsOptimizedInfo: { BaselineBandwidthInMbps: 19000 } },
      NetworkInfo: {
        MaximumNetworkInterfaces: 60,
        Ipv4AddressesPerInterface: 50,
        MaximumNetworkCards: 4,
        DefaultNetworkCardIndex: 0,
        EfaSupported: true,
        EfaInfo: { MaximumEfaInterfaces: 4 },
      },
      Hypervisor: 'nitro',
      BareMetal: false,
      SupportedUsageClasses: ['on-demand', 'spot'],
    });
    expect(p4d.NetworkInfo?.NetworkCards?.map((c) => c.MaximumNetworkInterfaces)).toEqual([15, 15, 15, 15]);

    const graviton = instanceTypeInfo({ name: 'c7g.metal', vcpu: 64, memoryMiB: 131072 });
    expect(graviton.ProcessorInfo).toMatchObject({ SupportedArchitectures: ['arm64'], Manufacturer: 'AWS' });
    expect(graviton.BareMetal).toBe(true);
    expect(graviton.Hypervisor).toBeUndefined();

    const inf2 = instanceTypeInfo({
      name: 'inf2.xlarge',
      vcpu: 4,
      memoryMiB: 16384,
      accelerator: { count: 1, name: 'inferentia2', manufacturer: 'aws', neuronCores: 2, memoryMiB: 32768 },
    });
    expect(inf2.NeuronInfo?.NeuronDevices?.[0]).toMatchObject({
      Count: 1,
      Name: 'Inferentia2',
      CoreInfo: { Count: 2 },
    });
    expect(inf2.InferenceAcceleratorInfo?.Accelerators?.[0]).toMatchObject({ Count: 1, Manufacturer: 'AWS' });
    expect(inf2.ProcessorInfo?.Manufacturer).toBe('Intel');
  });

  it('lists offerings per Availability Zone, restricted by setOfferings, through the paginator', async () => {
    const { client, fake } = ec2World();
    fake.setOfferings([
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a' },
      { instanceType: 'm5.large', availabilityZone: 'us-east-1b' },
      { instanceType: 'c5.xlarge', availabilityZone: 'us-east-1c' },
    ]);
    const pages = await collect(
      paginateDescribeInstanceTypeOfferings(
        { client, pageSize: 5 },
        {
          LocationType: 'availability-zone',
          Filters: [{ Name: 'location', Values: ['us-east-1a', 'us-east-1b'] }],
        },
      ),
    );
    const offerings = pages.flatMap((p) => p.InstanceTypeOfferings ?? []);
    expect(offerings).toEqual([
      { InstanceType: 'm5.large', LocationType: 'availability-zone', Location: 'us-east-1a' },
      { InstanceType: 'm5.large', LocationType: 'availability-zone', Location: 'us-east-1b' },
    ]);
  });

  it('returns the spot price in effect at StartTime plus later changes, newest first', async () => {
    const { client, fake, clock } = ec2World();
    const start = clock.now();
    clock.advance(60_000);
    fake.addSpotPrice({ instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.05 });

    const pages = await collect(
      paginateDescribeSpotPriceHistory(
        { client },
        { InstanceTypes: ['m5.large'], ProductDescriptions: ['Linux/UNIX'], StartTime: new Date(start) },
      ),
    );
    const history = pages.flatMap((p) => p.SpotPriceHistory ?? []);
    expect(history.map((p) => [p.AvailabilityZone, p.SpotPrice])).toEqual([
      ['us-east-1a', '0.050000'],
      ['us-east-1a', '0.040000'],
      ['us-east-1b', '0.035000'],
    ]);
    expect(history[0]?.Timestamp).toEqual(new Date(start + 60_000));
  });
});

describe('FakeEc2 subnets, security groups and images', () => {
  it('selects subnets and security groups by tag, tag-key, id and wildcard', async () => {
    const { client, fake } = ec2World();
    fake.addSubnet({
      id: 'subnet-0000000000000000c',
      availabilityZone: 'us-east-1c',
      tags: { Name: 'private-c' },
    });

    const byTag = await client.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['de*'] }] }),
    );
    expect(byTag.Subnets?.map((s) => s.SubnetId)).toEqual([
      'subnet-0000000000000000a',
      'subnet-0000000000000000b',
    ]);
    const byKey = await client.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'tag-key', Values: ['Name'] }] }),
    );
    expect(byKey.Subnets?.map((s) => [s.SubnetId, s.AvailabilityZoneId])).toEqual([
      ['subnet-0000000000000000c', 'use1-az3'],
    ]);
    await expect(
      client.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-00000000000000fff'] })),
    ).rejects.toMatchObject({
      name: 'InvalidSubnetID.NotFound',
    });

    const groups = await client.send(
      new DescribeSecurityGroupsCommand({
        Filters: [
          { Name: 'group-name', Values: ['no*'] },
          { Name: 'vpc-id', Values: ['vpc-0000000000000000a'] },
        ],
      }),
    );
    expect(groups.SecurityGroups?.map((g) => g.GroupId)).toEqual(['sg-0000000000000000a']);
    await expect(
      client.send(new DescribeSecurityGroupsCommand({ GroupIds: ['sg-00000000000000fff'] })),
    ).rejects.toMatchObject({
      name: 'InvalidGroup.NotFound',
    });
  });

  it('filters images by owner and name and hides deprecated public AMIs unless asked', async () => {
    const { client, fake, clock } = ec2World();
    fake.addImage({
      id: 'ami-0000000000000000a',
      name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20251201',
      ownerAlias: 'amazon',
      creationDate: '2025-12-01T00:00:00Z',
    });
    fake.addImage({
      id: 'ami-0000000000000000b',
      name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20250101',
      ownerAlias: 'amazon',
      creationDate: '2025-01-01T00:00:00Z',
      deprecationTime: new Date(clock.now() - 1),
    });
    const query = {
      Owners: ['amazon'],
      Filters: [{ Name: 'name', Values: ['amazon-eks-node-al2023-*-1.31-*'] }],
    };

    const current = await client.send(new DescribeImagesCommand(query));
    expect(current.Images?.map((i) => [i.ImageId, i.OwnerId])).toEqual([
      ['ami-0000000000000000a', '137112412989'],
    ]);
    const all = await client.send(new DescribeImagesCommand({ ...query, IncludeDeprecated: true }));
    expect(all.Images?.map((i) => i.ImageId)).toEqual(['ami-0000000000000000a', 'ami-0000000000000000b']);
    const mine = await client.send(new DescribeImagesCommand({ Owners: ['self'] }));
    expect(mine.Images?.map((i) => i.Name)).toEqual(['al2023-x86', 'al2023-arm']);
    await expect(
      client.send(new DescribeImagesCommand({ ImageIds: ['ami-00000000000000fff'] })),
    ).rejects.toMatchObject({
      name: 'InvalidAMIID.NotFound',
    });
  });
});

describe('FakeEc2 launch templates', () => {
  it('creates, finds, rejects duplicates and deletes launch templates with the real error codes', async () => {
    const { client } = ec2World();
    const created = await client.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: 'karpenter.k8s.aws/123',
        LaunchTemplateData: { ImageId: 'ami-00000000000000001' },
        TagSpecifications: [
          { ResourceType: 'launch-template', Tags: [{ Key: 'karpenter.k8s.aws/cluster', Value: 'demo' }] },
        ],
      }),
    );
    expect(created.LaunchTemplate).toMatchObject({
      LaunchTemplateName: 'karpenter.k8s.aws/123',
      DefaultVersionNumber: 1,
    });
    await expect(
      client.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: 'karpenter.k8s.aws/123',
          LaunchTemplateData: {},
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidLaunchTemplateName.AlreadyExistsException' });

    const byTag = await client.send(
      new DescribeLaunchTemplatesCommand({
        Filters: [{ Name: 'tag:karpenter.k8s.aws/cluster', Values: ['demo'] }],
      }),
    );
    expect(byTag.LaunchTemplates?.map((t) => t.LaunchTemplateId)).toEqual([
      created.LaunchTemplate?.LaunchTemplateId,
    ]);
    await expect(
      client.send(new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: ['karpenter.k8s.aws/missing'] })),
    ).rejects.toMatchObject({ name: 'InvalidLaunchTemplateName.NotFoundException' });

    await client.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: 'karpenter.k8s.aws/123' }));
    await expect(
      client.send(
        new DeleteLaunchTemplateCommand({ LaunchTemplateId: created.LaunchTemplate?.LaunchTemplateId }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidLaunchTemplateId.NotFound' });
  });
});

describe('FakeEc2 instances', () => {
  async function launch(world: ReturnType<typeof ec2World>, count: number, tag: string): Promise<string[]> {
    const name = `lt-${tag}`;
    await world.client.send(
      new CreateLaunchTemplateCommand({ LaunchTemplateName: name, LaunchTemplateData: {} }),
    );
    const out = await world.client.send(
      new CreateFleetCommand({
        Type: 'instant',
        LaunchTemplateConfigs: [
          {
            LaunchTemplateSpecification: { LaunchTemplateName: name },
            Overrides: [{ InstanceType: 'm5.large', SubnetId: 'subnet-0000000000000000a' }],
          },
        ],
        TargetCapacitySpecification: { TotalTargetCapacity: count, DefaultTargetCapacityType: 'on-demand' },
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'pool', Value: tag }] }],
      }),
    );
    return out.Instances!.flatMap((i) => i.InstanceIds ?? []);
  }

  it('filters by tag and state and pages Reservations[].Instances[] through the paginator', async () => {
    const world = ec2World();
    const blue = await launch(world, 7, 'blue');
    await launch(world, 2, 'green');
    world.clock.advance(20_000);
    await world.client.send(new TerminateInstancesCommand({ InstanceIds: [blue[0]!] }));

    const pages = await collect(
      paginateDescribeInstances(
        { client: world.client, pageSize: 5 },
        {
          Filters: [
            { Name: 'tag:pool', Values: ['blue'] },
            { Name: 'instance-state-name', Values: ['pending', 'running'] },
          ],
        },
      ),
    );
    expect(pages).toHaveLength(2);
    const ids = pages
      .flatMap((p) => p.Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .map((i) => i.InstanceId);
    expect(ids).toEqual(blue.slice(1));
    expect(pages[0]?.Reservations?.[0]?.ReservationId).toMatch(/^r-/);
  });

  it('fails DescribeInstances and TerminateInstances for unknown ids with InvalidInstanceID.NotFound and terminates nothing', async () => {
    const world = ec2World();
    const [id] = await launch(world, 1, 'blue');
    const error = await world.client
      .send(new TerminateInstancesCommand({ InstanceIds: [id!, 'i-00000000000000fff'] }))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(EC2ServiceException);
    expect(error).toMatchObject({
      name: 'InvalidInstanceID.NotFound',
      message: "The instance ID 'i-00000000000000fff' does not exist",
    });
    expect(world.fake.instance(id!)?.State?.Name).toBe('pending');
    await expect(
      world.client.send(new DescribeInstancesCommand({ InstanceIds: ['i-00000000000000fff'] })),
    ).rejects.toMatchObject({
      name: 'InvalidInstanceID.NotFound',
    });
    await expect(
      world.client.send(new DescribeInstancesCommand({ InstanceIds: ['bogus'] })),
    ).rejects.toMatchObject({
      name: 'InvalidInstanceID.Malformed',
    });
  });

  it('tags instances with CreateTags and refuses aws: keys', async () => {
    const world = ec2World();
    const [id] = await launch(world, 1, 'blue');
    await world.client.send(
      new CreateTagsCommand({
        Resources: [id!],
        Tags: [{ Key: 'karpenter.sh/nodeclaim', Value: 'default-x7k2' }],
      }),
    );

    const out = await world.client.send(
      new DescribeInstancesCommand({
        Filters: [{ Name: 'tag:karpenter.sh/nodeclaim', Values: ['default-x7k2'] }],
      }),
    );
    expect(out.Reservations?.[0]?.Instances?.[0]?.InstanceId).toBe(id);
    await expect(
      world.client.send(
        new CreateTagsCommand({ Resources: [id!], Tags: [{ Key: 'aws:secret', Value: 'x' }] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});

describe('FakeEc2 faults and the call log', () => {
  it('fails the next calls with an injected error and then recovers', async () => {
    const { client, fake } = ec2World();
    fake.failNext('CreateFleet', 'InsufficientInstanceCapacity', { times: 2 });
    const send = () =>
      client.send(
        new CreateFleetCommand({
          Type: 'instant',
          LaunchTemplateConfigs: [],
          TargetCapacitySpecification: { TotalTargetCapacity: 1 },
        }),
      );

    await expect(send()).rejects.toMatchObject({
      name: 'InsufficientInstanceCapacity',
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
    });
    await expect(send()).rejects.toMatchObject({ name: 'InsufficientInstanceCapacity' });
    await expect(send()).rejects.toMatchObject({ name: 'MissingParameter' });
  });

  it('throttles with RequestLimitExceeded, surfaced on the first attempt, and logs every call', async () => {
    const { client, fake } = ec2World();
    fake.throttle('DescribeSubnets', 1);

    await expect(client.send(new DescribeSubnetsCommand({}))).rejects.toMatchObject({
      name: 'RequestLimitExceeded',
    });
    await client.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0000000000000000a'] }));

    expect(fake.calls.map((c) => [c.operation, c.error?.name])).toEqual([
      ['DescribeSubnets', 'RequestLimitExceeded'],
      ['DescribeSubnets', undefined],
    ]);
    expect(fake.callsTo('DescribeSubnets')[1]).toEqual({ SubnetIds: ['subnet-0000000000000000a'] });
  });

  it('names the operation when a command is not modelled, and refuses a fake attached to the wrong client', async () => {
    const { client, fake } = ec2World();
    await expect(client.send(new DescribeVpcsCommand({}))).rejects.toThrow(
      /FakeEc2 does not model DescribeVpcs/,
    );
    expect(() => fake.failNext('DescribeVpcs', 'InternalError')).toThrow(/has no operation DescribeVpcs/);

    const ssm = new SSMClient(clientConfig);
    attachFake(ssm, fake);
    await expect(ssm.send(new GetParameterCommand({ Name: '/x' }))).rejects.toThrow(
      /answers EC2Client, but it is attached to a SSMClient/,
    );
  });

  it('fails every call like a DNS failure while unreachable', async () => {
    const { client, fake } = ec2World();
    fake.setUnreachable(true);
    await expect(client.send(new DescribeSubnetsCommand({}))).rejects.toMatchObject({ code: 'ENOTFOUND' });
    fake.setUnreachable(false);
    await expect(client.send(new DescribeSubnetsCommand({}))).resolves.toHaveProperty('Subnets');
  });
});
