import {
  CreateFleetCommand,
  type CreateFleetCommandInput,
  CreateLaunchTemplateCommand,
  DescribeInstancesCommand,
  type EC2Client,
  type FleetLaunchTemplateOverridesRequest,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { FakeIam } from '../../../../../sim/fakes/aws/fake-iam';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

const SUBNET_A = 'subnet-0000000000000000a';
const SUBNET_B = 'subnet-0000000000000000b';

async function launchTemplate(client: EC2Client, imageId?: string): Promise<string> {
  const out = await client.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'nodes',
      LaunchTemplateData: {
        ...(imageId === undefined ? {} : { ImageId: imageId }),
        SecurityGroupIds: ['sg-0000000000000000a'],
        IamInstanceProfile: { Name: 'node-profile' },
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'from-template', Value: 'yes' }] }],
      },
    }),
  );
  return out.LaunchTemplate!.LaunchTemplateId!;
}

function fleet(
  templateId: string,
  overrides: FleetLaunchTemplateOverridesRequest[],
  options: Partial<CreateFleetCommandInput> & { capacityType?: 'spot' | 'on-demand'; total?: number } = {},
): CreateFleetCommand {
  const { capacityType = 'on-demand', total = 1, ...rest } = options;
  return new CreateFleetCommand({
    Type: 'instant',
    LaunchTemplateConfigs: [
      {
        LaunchTemplateSpecification: { LaunchTemplateId: templateId, Version: '$Latest' },
        Overrides: overrides,
      },
    ],
    TargetCapacitySpecification: { TotalTargetCapacity: total, DefaultTargetCapacityType: capacityType },
    TagSpecifications: [
      { ResourceType: 'instance', Tags: [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] },
      { ResourceType: 'volume', Tags: [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] },
    ],
    ...rest,
  });
}

const everywhere: FleetLaunchTemplateOverridesRequest[] = [
  { InstanceType: 'c5.xlarge', SubnetId: SUBNET_A },
  { InstanceType: 'm5.large', SubnetId: SUBNET_A },
  { InstanceType: 'm5.large', SubnetId: SUBNET_B },
];

describe('FakeEc2 CreateFleet (instant)', () => {
  it('refuses tags EC2 refuses, before launching anything', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    const reserved = fleet(lt, everywhere, {
      TagSpecifications: [
        { ResourceType: 'instance', Tags: [{ Key: 'aws:cloudformation:stack', Value: 'x' }] },
      ],
    });
    await expect(client.send(reserved)).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    const tooMany = fleet(lt, everywhere, {
      TagSpecifications: [
        {
          ResourceType: 'instance',
          Tags: Array.from({ length: 51 }, (_, i) => ({ Key: `k${i}`, Value: 'v' })),
        },
      ],
    });
    await expect(client.send(tooMany)).rejects.toMatchObject({ name: 'TagLimitExceeded' });
    expect(fake.listInstances()).toEqual([]);
  });

  it('launches the cheapest on-demand override under lowest-price, tagged and placed in its subnet', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);

    const out = await client.send(fleet(lt, everywhere));

    expect(out.Errors).toEqual([]);
    expect(out.Instances).toHaveLength(1);
    const [launched] = out.Instances!;
    expect(launched).toMatchObject({
      Lifecycle: 'on-demand',
      InstanceType: 'm5.large',
      LaunchTemplateAndOverrides: {
        LaunchTemplateSpecification: { LaunchTemplateId: lt, Version: '$Latest' },
        Overrides: { InstanceType: 'm5.large', SubnetId: SUBNET_A },
      },
    });
    const instance = fake.instance(launched!.InstanceIds![0]!)!;
    expect(instance.Placement?.AvailabilityZone).toBe('us-east-1a');
    expect(instance.SubnetId).toBe(SUBNET_A);
    expect(instance.PrivateDnsName).toMatch(/^ip-10-0-\d+-\d+\.ec2\.internal$/);
    expect(instance.InstanceLifecycle).toBeUndefined();
    expect(instance.IamInstanceProfile?.Arn).toBe('arn:aws:iam::123456789012:instance-profile/node-profile');
    expect(instance.Tags).toEqual(
      expect.arrayContaining([
        { Key: 'from-template', Value: 'yes' },
        { Key: 'karpenter.sh/nodepool', Value: 'default' },
        { Key: 'aws:ec2:fleet-id', Value: out.FleetId },
      ]),
    );
    expect(fake.volumeTags(instance.InstanceId!)).toEqual([
      { Key: 'karpenter.sh/nodepool', Value: 'default' },
    ]);
  });

  const pco = (lt: string) =>
    fleet(lt, everywhere, {
      capacityType: 'spot',
      SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
    });
  const launchedPool = (out: {
    Instances?: {
      InstanceType?: string;
      LaunchTemplateAndOverrides?: { Overrides?: { SubnetId?: string } };
    }[];
  }) =>
    `${out.Instances?.[0]?.InstanceType} ${out.Instances?.[0]?.LaunchTemplateAndOverrides?.Overrides?.SubnetId}`;

  it('launches spot in the pool with the deepest spare capacity under price-capacity-optimized, even a dearer one', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacityScore({}, 0);
    fake.capacity.setCapacityScore({ instanceType: 'c5.xlarge' }, 1);

    const out = await client.send(pco(lt));

    expect(out.Errors).toStrictEqual([]);
    expect(out.Instances?.[0]).toMatchObject({ Lifecycle: 'spot', InstanceType: 'c5.xlarge' });
    const instance = fake.instance(out.Instances![0]!.InstanceIds![0]!)!;
    expect(instance.InstanceLifecycle).toBe('spot');
    expect(instance.SpotInstanceRequestId).toMatch(/^sir-/);
  });

  it('takes the cheapest of equally deep pools, and passes over exhausted ones without reporting them', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacityScore({}, 1);
    fake.capacity.setCapacity(
      { instanceType: 'm5.large', availabilityZone: 'us-east-1b', capacityType: 'spot' },
      0,
    );

    const out = await client.send(pco(lt));

    expect(out.Errors).toStrictEqual([]);
    expect(launchedPool(out)).toBe(`m5.large ${SUBNET_A}`);
  });

  it('chooses by seeded capacity scores, deterministically and not by price', async () => {
    const choose = async (strategy: string, capacitySeed?: number) => {
      const { client } = ec2World(capacitySeed === undefined ? {} : { capacitySeed });
      const lt = await launchTemplate(client);
      return launchedPool(
        await client.send(
          fleet(lt, everywhere, {
            capacityType: 'spot',
            SpotOptions: { AllocationStrategy: strategy as 'lowest-price' },
          }),
        ),
      );
    };
    // lowest-price takes m5.large in us-east-1b (0.035); price-capacity-optimized, with the
    // default seed, the deeper m5.large pool in us-east-1a (0.04).
    expect(await choose('lowest-price')).toBe(`m5.large ${SUBNET_B}`);
    expect(await choose('price-capacity-optimized')).toBe(`m5.large ${SUBNET_A}`);
    expect(await choose('price-capacity-optimized')).toBe(await choose('price-capacity-optimized', 1));
  });

  it('reports an ICE for each exhausted cheaper pool under lowest-price and launches in the next one', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.injectLaunchError({ instanceType: 'm5.large', availabilityZone: 'us-east-1b' });

    const out = await client.send(fleet(lt, everywhere, { capacityType: 'spot' }));

    expect(out.Errors).toEqual([
      expect.objectContaining({
        ErrorCode: 'InsufficientInstanceCapacity',
        ErrorMessage: 'There is no Spot capacity available that matches your request.',
        Lifecycle: 'spot',
        LaunchTemplateAndOverrides: expect.objectContaining({
          Overrides: { InstanceType: 'm5.large', SubnetId: SUBNET_B },
        }),
      }),
    ]);
    expect(out.Instances?.[0]?.LaunchTemplateAndOverrides?.Overrides).toEqual({
      InstanceType: 'm5.large',
      SubnetId: SUBNET_A,
    });
  });

  it('returns no instances and one error per override when every pool is out of capacity', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacity({ capacityType: 'on-demand' }, 0);

    const out = await client.send(fleet(lt, everywhere));

    expect(out.Instances).toEqual([]);
    expect(
      out.Errors?.map((e) => [e.ErrorCode, e.LaunchTemplateAndOverrides?.Overrides?.InstanceType]),
    ).toEqual([
      ['InsufficientInstanceCapacity', 'm5.large'],
      ['InsufficientInstanceCapacity', 'm5.large'],
      ['InsufficientInstanceCapacity', 'c5.xlarge'],
    ]);
    expect(out.Errors?.[0]?.ErrorMessage).toContain('We currently do not have sufficient m5.large capacity');
  });

  it('fulfils partially when capacity runs out, spilling into the next pool and reporting the exhausted one', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacity({ instanceType: 'm5.large' }, 2);

    const out = await client.send(
      fleet(lt, [{ InstanceType: 'm5.large', SubnetId: SUBNET_A }], { total: 5 }),
    );

    expect(out.Instances?.[0]?.InstanceIds).toHaveLength(2);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual(['InsufficientInstanceCapacity']);

    const more = await client.send(fleet(lt, everywhere, { total: 3 }));
    expect(more.Instances?.map((i) => [i.InstanceType, i.InstanceIds?.length])).toEqual([
      ['m5.large', 2],
      ['c5.xlarge', 1],
    ]);
    // us-east-1a is full already; us-east-1b gives its 2 and runs out too; c5.xlarge makes up the rest.
    expect(more.Errors?.map((e) => e.LaunchTemplateAndOverrides?.Overrides?.SubnetId)).toEqual([
      SUBNET_A,
      SUBNET_B,
    ]);
  });

  it('frees pool capacity when an instance terminates', async () => {
    const { client, fake, clock } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacity({ instanceType: 'm5.large', availabilityZone: 'us-east-1a' }, 1);
    const only = [{ InstanceType: 'm5.large' as const, SubnetId: SUBNET_A }];
    const first = await client.send(fleet(lt, only));
    expect((await client.send(fleet(lt, only))).Errors?.[0]?.ErrorCode).toBe('InsufficientInstanceCapacity');

    await client.send(new TerminateInstancesCommand({ InstanceIds: first.Instances![0]!.InstanceIds }));
    clock.advance(60_000);

    expect((await client.send(fleet(lt, only))).Instances?.[0]?.InstanceIds).toHaveLength(1);
  });

  it('launches on-demand by priority under the prioritized strategy', async () => {
    const { client } = ec2World();
    const lt = await launchTemplate(client);
    const out = await client.send(
      fleet(
        lt,
        [
          { InstanceType: 'm5.large', SubnetId: SUBNET_A, Priority: 2 },
          { InstanceType: 'c5.xlarge', SubnetId: SUBNET_A, Priority: 1 },
        ],
        { OnDemandOptions: { AllocationStrategy: 'prioritized' } },
      ),
    );
    expect(out.Instances?.[0]?.InstanceType).toBe('c5.xlarge');
  });

  it('splits the target between on-demand and spot', async () => {
    const { client } = ec2World();
    const lt = await launchTemplate(client);
    const out = await client.send(
      new CreateFleetCommand({
        Type: 'instant',
        LaunchTemplateConfigs: [
          { LaunchTemplateSpecification: { LaunchTemplateId: lt }, Overrides: everywhere },
        ],
        TargetCapacitySpecification: {
          TotalTargetCapacity: 3,
          OnDemandTargetCapacity: 1,
          DefaultTargetCapacityType: 'spot',
        },
      }),
    );
    expect(out.Instances?.map((i) => [i.Lifecycle, i.InstanceIds?.length])).toEqual([
      ['on-demand', 1],
      ['spot', 2],
    ]);
  });

  it('answers a retried request with the same ClientToken with the first result and launches nothing new', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    const first = await client.send(fleet(lt, everywhere, { ClientToken: 'nodeclaim-default-x7k2' }));
    const again = await client.send(fleet(lt, everywhere, { ClientToken: 'nodeclaim-default-x7k2' }));

    expect(again.FleetId).toBe(first.FleetId);
    expect(again.Instances).toEqual(first.Instances);
    expect(fake.listInstances()).toHaveLength(1);
  });

  it('remembers the token of a fleet that launched nothing and repeats its errors', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacity({ capacityType: 'on-demand' }, 0);
    const refused = await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }));
    expect(refused.Instances).toStrictEqual([]);
    fake.capacity.setCapacity({ capacityType: 'on-demand' }, Infinity);

    const again = await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }));

    expect(again.FleetId).toBe(refused.FleetId);
    expect(again.Errors).toStrictEqual(refused.Errors);
    expect(fake.listInstances()).toEqual([]);
    await expect(
      client.send(fleet(lt, everywhere.slice(1), { ClientToken: 'token-1' })),
    ).rejects.toMatchObject({ name: 'IdempotentParameterMismatch' });
  });

  it('forgets a token 24 hours after its fleet ended: the request then launches anew', async () => {
    const { client, fake, clock } = ec2World();
    const lt = await launchTemplate(client);
    const first = await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }));
    const id = first.Instances![0]!.InstanceIds![0]!;

    // While the instance lives, and for 24 hours after it terminated, the token stands.
    clock.advance(48 * 3_600_000);
    expect((await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }))).FleetId).toBe(
      first.FleetId,
    );
    await client.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    clock.advance(30_000 + 24 * 3_600_000 - 1);
    expect((await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }))).FleetId).toBe(
      first.FleetId,
    );

    clock.advance(1);
    const anew = await client.send(fleet(lt, everywhere.slice(1), { ClientToken: 'token-1' }));
    expect(anew.FleetId).not.toBe(first.FleetId);
    expect(anew.Instances?.[0]?.InstanceIds).toHaveLength(1);
    expect(fake.listInstances().filter((i) => i.State?.Name !== 'terminated')).toHaveLength(1);
  });

  it('rejects a ClientToken reused with different parameters with IdempotentParameterMismatch', async () => {
    const { client } = ec2World();
    const lt = await launchTemplate(client);
    await client.send(fleet(lt, everywhere, { ClientToken: 'token-1' }));

    await expect(
      client.send(fleet(lt, everywhere, { ClientToken: 'token-1', total: 2 })),
    ).rejects.toMatchObject({
      name: 'IdempotentParameterMismatch',
      $fault: 'client',
    });
  });

  it('reports per-override errors for unsupported zones, unknown types, missing subnets and mismatched AMIs', async () => {
    const { client, fake } = ec2World();
    fake.setOfferings([
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a' },
      { instanceType: 'm6g.large', availabilityZone: 'us-east-1a' },
    ]);
    const lt = await launchTemplate(client, 'ami-00000000000000001');

    const out = await client.send(
      fleet(lt, [
        { InstanceType: 'm5.large', SubnetId: SUBNET_B },
        { InstanceType: 'm5.nope' as 'm5.large', SubnetId: SUBNET_A },
        { InstanceType: 'm5.large', SubnetId: 'subnet-00000000000000fff' },
        { InstanceType: 'm6g.large', SubnetId: SUBNET_A },
      ]),
    );

    expect(out.Instances).toEqual([]);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual([
      'Unsupported',
      'InvalidParameterValue',
      'InvalidSubnetID.NotFound',
      'InvalidParameterValue',
    ]);
    expect(out.Errors?.[3]?.ErrorMessage).toContain("architecture 'arm64'");
  });

  const missingTemplateFleet = () =>
    new CreateFleetCommand({
      Type: 'instant',
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: { LaunchTemplateName: 'gone', Version: '$Latest' },
          Overrides: everywhere,
        },
      ],
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
    });

  it('fails the whole request for a missing launch template by default, as EC2 answers Karpenter', async () => {
    const { client, fake } = ec2World();
    await expect(client.send(missingTemplateFleet())).rejects.toMatchObject({
      name: 'InvalidLaunchTemplateName.NotFoundException',
      message: 'The specified launch template, with template name gone, does not exist.',
    });
    expect(fake.listInstances()).toEqual([]);
  });

  it('can report a missing launch template per override as InvalidLaunchTemplateName.NotFoundException instead', async () => {
    const { client } = ec2World({ missingLaunchTemplate: 'fleet-errors' });
    const out = await client.send(missingTemplateFleet());
    expect(out.Instances).toStrictEqual([]);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual(
      Array(3).fill('InvalidLaunchTemplateName.NotFoundException'),
    );
  });

  it("refuses an override whose subnet is in another VPC than the template's security groups", async () => {
    const { client, fake } = ec2World();
    fake.addSecurityGroup({ id: 'sg-00000000000000e1e', name: 'elsewhere', vpcId: 'vpc-0000000000000000e' });
    const out = await client.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: 'other-vpc',
        LaunchTemplateData: { SecurityGroupIds: ['sg-00000000000000e1e'] },
      }),
    );

    const refused = await client.send(fleet(out.LaunchTemplate!.LaunchTemplateId!, [everywhere[1]!]));

    expect(refused.Instances).toStrictEqual([]);
    expect(refused.Errors?.map((e) => [e.ErrorCode, e.ErrorMessage])).toStrictEqual([
      [
        'InvalidParameter',
        `Security group sg-00000000000000e1e and subnet ${SUBNET_A} belong to different networks.`,
      ],
    ]);
  });

  it('refuses a template naming an instance profile the account does not have, once it knows IAM', async () => {
    const { client, fake, clock } = ec2World();
    const lt = await launchTemplate(client);
    const iam = new FakeIam({ clock });
    fake.useIam(iam);

    const refused = await client.send(fleet(lt, [everywhere[1]!]));
    iam.createInstanceProfile({ InstanceProfileName: 'node-profile' });
    const launched = await client.send(fleet(lt, [everywhere[1]!]));

    expect(refused.Errors?.map((e) => [e.ErrorCode, e.ErrorMessage])).toStrictEqual([
      [
        'InvalidParameterValue',
        'Value (node-profile) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name',
      ],
    ]);
    expect(launched.Instances?.[0]?.InstanceIds).toHaveLength(1);
  });

  it('stops at the spot vCPU quota with MaxSpotInstanceCountExceeded', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setVcpuLimit({ spot: 4 });

    const out = await client.send(
      fleet(lt, [{ InstanceType: 'm5.large', SubnetId: SUBNET_A }], { capacityType: 'spot', total: 3 }),
    );

    expect(out.Instances?.[0]?.InstanceIds).toHaveLength(2);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual(['MaxSpotInstanceCountExceeded']);
  });

  it('launches nothing and reports UnfulfillableCapacity when MinTargetCapacity cannot be met', async () => {
    const { client, fake } = ec2World();
    const lt = await launchTemplate(client);
    fake.capacity.setCapacity({ capacityType: 'spot' }, 1);

    const out = await client.send(
      fleet(lt, [{ InstanceType: 'm5.large', SubnetId: SUBNET_A }], {
        capacityType: 'spot',
        total: 2,
        SpotOptions: { MinTargetCapacity: 2, SingleInstanceType: true },
      }),
    );

    expect(out.Instances).toEqual([]);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual(['UnfulfillableCapacity']);
    expect(fake.listInstances()).toEqual([]);
  });

  it('moves instances pending → running → shutting-down → terminated on the injected clock, then forgets them', async () => {
    const { client, clock } = ec2World();
    const lt = await launchTemplate(client);
    const out = await client.send(fleet(lt, everywhere));
    const id = out.Instances![0]!.InstanceIds![0]!;
    const state = async () =>
      (await client.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]
        ?.Instances?.[0]?.State?.Name;

    expect(await state()).toBe('pending');
    clock.advance(15_000);
    expect(await state()).toBe('running');

    const terminated = await client.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    expect(terminated.TerminatingInstances).toEqual([
      {
        InstanceId: id,
        PreviousState: { Code: 16, Name: 'running' },
        CurrentState: { Code: 32, Name: 'shutting-down' },
      },
    ]);
    clock.advance(30_000);
    expect(await state()).toBe('terminated');
    clock.advance(3_600_000);
    await expect(client.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).rejects.toMatchObject({
      name: 'InvalidInstanceID.NotFound',
    });
  });

  it('reclaims a spot instance after the two-minute notice with a spot termination reason', async () => {
    const { client, fake, clock } = ec2World();
    const lt = await launchTemplate(client);
    const out = await client.send(fleet(lt, everywhere, { capacityType: 'spot' }));
    const id = out.Instances![0]!.InstanceIds![0]!;

    const reclaim = fake.reclaimSpot(id);
    clock.advance(119_000);
    expect(fake.instance(id)?.State?.Name).toBe('running');
    clock.advance(1_000);

    expect(reclaim.terminationTime - reclaim.noticeTime).toBe(120_000);
    expect(fake.instance(id)?.State?.Name).toBe('shutting-down');
    expect(fake.instance(id)?.StateReason?.Code).toBe('Server.SpotInstanceTermination');
  });
});
