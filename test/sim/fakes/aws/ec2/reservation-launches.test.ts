import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeCapacityReservationsCommand,
  DescribeInstancesCommand,
  type EC2Client,
  type RequestLaunchTemplateData,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';
import { SUBNET_A, SUBNET_B } from '../../../../../sim/world/aws/region';

/**
 * FakeEc2 launching into capacity reservations: a template targeting one takes its slots until
 * none is left, then CreateFleet reports ReservationCapacityExceeded with EC2's own text (the
 * error aws/karpenter-provider-aws pkg/errors/errors.go IsReservationCapacityExceeded matches and
 * its fake pkg/fake/ec2api.go CreateFleet returns per override).
 */

const BLOCK_END = 3 * 3_600_000;

function world() {
  const w = ec2World({
    capacityReservations: [
      {
        id: 'cr-0000000000000000a',
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        totalInstanceCount: 2,
      },
    ],
  });
  w.fake.addCapacityReservation({
    id: 'cr-0000000000000000b',
    instanceType: 'm5.large',
    availabilityZone: 'us-east-1a',
    totalInstanceCount: 1,
    reservationType: 'capacity-block',
    endDate: w.clock.now() + BLOCK_END,
  });
  return w;
}

let templates = 0;

async function launch(client: EC2Client, data: RequestLaunchTemplateData, subnet = SUBNET_A) {
  templates += 1;
  const template = await client.send(
    new CreateLaunchTemplateCommand({ LaunchTemplateName: `cr-${templates}`, LaunchTemplateData: data }),
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
          Overrides: [{ InstanceType: 'm5.large', SubnetId: subnet }],
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

const targeting = (id: string, marketType?: 'capacity-block'): RequestLaunchTemplateData => ({
  CapacityReservationSpecification: {
    CapacityReservationPreference: 'capacity-reservations-only',
    CapacityReservationTarget: { CapacityReservationId: id },
  },
  ...(marketType === undefined ? {} : { InstanceMarketOptions: { MarketType: marketType } }),
});

async function available(client: EC2Client, id: string) {
  const out = await client.send(new DescribeCapacityReservationsCommand({ CapacityReservationIds: [id] }));
  return [out.CapacityReservations?.[0]?.AvailableInstanceCount, out.CapacityReservations?.[0]?.State];
}

const EXCEEDED =
  'ReservationCapacityExceeded: The requested reservation does not have sufficient compatible and available capacity for this request.';

describe('FakeEc2 launches into capacity reservations', () => {
  it('fills a reservation up to its count, refuses the next launch, and frees a slot on termination', async () => {
    const { client, clock } = world();
    const first = await launch(client, targeting('cr-0000000000000000a'));
    const second = await launch(client, targeting('cr-0000000000000000a'));
    expect([first.errors, second.errors]).toStrictEqual([[], []]);
    expect(await available(client, 'cr-0000000000000000a')).toStrictEqual([0, 'active']);
    const third = await launch(client, targeting('cr-0000000000000000a'));
    expect(third).toStrictEqual({ instanceIds: [], errors: [EXCEEDED] });

    const described = await client.send(new DescribeInstancesCommand({ InstanceIds: first.instanceIds }));
    expect(described.Reservations?.[0]?.Instances?.[0]).toMatchObject({
      CapacityReservationId: 'cr-0000000000000000a',
      CapacityReservationSpecification: { CapacityReservationPreference: 'capacity-reservations-only' },
    });
    await client.send(new TerminateInstancesCommand({ InstanceIds: first.instanceIds }));
    expect(await available(client, 'cr-0000000000000000a')).toStrictEqual([0, 'active']);
    // The slot comes back once the instance is terminated, not while it shuts down.
    clock.advance(30_000);
    expect(await available(client, 'cr-0000000000000000a')).toStrictEqual([1, 'active']);
    expect((await launch(client, targeting('cr-0000000000000000a'))).errors).toStrictEqual([]);
  });

  it('refuses another instance type or zone than the reservation, and an unknown id', async () => {
    const { client } = world();
    expect((await launch(client, targeting('cr-0000000000000000a'), SUBNET_B)).errors).toStrictEqual([
      EXCEEDED,
    ]);
    expect((await launch(client, targeting('cr-0000000000000000f'))).errors).toStrictEqual([
      "InvalidCapacityReservationId.NotFound: The capacity reservation ID 'cr-0000000000000000f' does not exist",
    ]);
    expect(await available(client, 'cr-0000000000000000a')).toStrictEqual([2, 'active']);
  });

  it('launches into a Capacity Block only with the capacity-block market type, and reclaims it before the end', async () => {
    const { client, clock } = world();
    const plain = await launch(client, targeting('cr-0000000000000000b'));
    expect(plain.errors[0]).toMatch(/^InvalidParameterCombination: /);
    const block = await launch(client, targeting('cr-0000000000000000b', 'capacity-block'));
    expect(block.errors).toStrictEqual([]);
    const instance = async () =>
      (await client.send(new DescribeInstancesCommand({ InstanceIds: block.instanceIds }))).Reservations?.[0]
        ?.Instances?.[0];
    expect(await instance()).toMatchObject({
      InstanceLifecycle: 'capacity-block',
      State: { Name: 'pending' },
    });
    clock.advance(BLOCK_END - 30 * 60_000 - 1);
    expect((await instance())?.State?.Name).toBe('running');
    clock.advance(1);
    expect((await instance())?.State?.Name).toBe('shutting-down');
    clock.advance(30 * 60_000);
    expect(await available(client, 'cr-0000000000000000b')).toStrictEqual([1, 'expired']);
  });

  it('puts an untargeted on-demand launch in a matching open reservation, unless its preference is none', async () => {
    const { client, fake } = world();
    fake.addCapacityReservation({
      id: 'cr-0000000000000000c',
      instanceType: 'm5.large',
      availabilityZone: 'us-east-1a',
      totalInstanceCount: 1,
      instanceMatchCriteria: 'open',
    });
    const none = await launch(client, {
      CapacityReservationSpecification: { CapacityReservationPreference: 'none' },
    });
    expect(await available(client, 'cr-0000000000000000c')).toStrictEqual([1, 'active']);
    const open = await launch(client, {});
    expect(await available(client, 'cr-0000000000000000c')).toStrictEqual([0, 'active']);
    const described = await client.send(
      new DescribeInstancesCommand({ InstanceIds: [...none.instanceIds, ...open.instanceIds] }),
    );
    const instances = (described.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    expect(instances.map((i) => [i.CapacityReservationId, i.CapacityReservationSpecification])).toStrictEqual(
      [
        [undefined, undefined],
        ['cr-0000000000000000c', { CapacityReservationPreference: 'open' }],
      ],
    );
  });
});
