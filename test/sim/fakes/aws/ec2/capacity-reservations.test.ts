import { DescribeCapacityReservationsCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

/** FakeEc2's DescribeCapacityReservations, as unkind as EC2's. */

function world() {
  const w = ec2World({
    capacityReservations: [
      {
        id: 'cr-0000000000000000a',
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        totalInstanceCount: 4,
        tags: { team: 'ml' },
      },
      {
        id: 'cr-0000000000000000b',
        instanceType: 'c5.xlarge',
        availabilityZone: 'us-east-1b',
        totalInstanceCount: 2,
        availableInstanceCount: 1,
        instanceMatchCriteria: 'open',
        ownerId: '210987654321',
      },
      {
        id: 'cr-0000000000000000c',
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        totalInstanceCount: 1,
        state: 'cancelled',
      },
    ],
  });
  return w;
}

const ids = (out: { CapacityReservations?: { CapacityReservationId?: string }[] }) =>
  (out.CapacityReservations ?? []).map((r) => r.CapacityReservationId);

describe('FakeEc2 DescribeCapacityReservations', () => {
  it('lists by id and by filters (state, owner, tags, match criteria), with the free count', async () => {
    const { client } = world();
    const byId = await client.send(
      new DescribeCapacityReservationsCommand({ CapacityReservationIds: ['cr-0000000000000000b'] }),
    );
    expect(byId.CapacityReservations?.[0]).toMatchObject({
      InstanceType: 'c5.xlarge',
      AvailabilityZone: 'us-east-1b',
      TotalInstanceCount: 2,
      AvailableInstanceCount: 1,
      InstanceMatchCriteria: 'open',
      OwnerId: '210987654321',
      ReservationType: 'default',
      State: 'active',
    });
    const active = { Name: 'state', Values: ['active'] };
    const send = (Filters: { Name: string; Values: string[] }[]) =>
      client.send(new DescribeCapacityReservationsCommand({ Filters, MaxResults: 1000 })).then(ids);
    expect(await send([active])).toStrictEqual(['cr-0000000000000000a', 'cr-0000000000000000b']);
    expect(await send([active, { Name: 'tag:team', Values: ['ml'] }])).toStrictEqual([
      'cr-0000000000000000a',
    ]);
    expect(await send([active, { Name: 'tag-key', Values: ['team'] }])).toStrictEqual([
      'cr-0000000000000000a',
    ]);
    expect(await send([active, { Name: 'owner-id', Values: ['210987654321'] }])).toStrictEqual([
      'cr-0000000000000000b',
    ]);
    expect(await send([{ Name: 'instance-match-criteria', Values: ['targeted'] }])).toStrictEqual([
      'cr-0000000000000000a',
      'cr-0000000000000000c',
    ]);
  });

  it('fails on an unknown id, on ids with MaxResults and on an unknown filter, as EC2 does', async () => {
    const { client } = world();
    await expect(
      client.send(
        new DescribeCapacityReservationsCommand({ CapacityReservationIds: ['cr-0000000000000000f'] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidCapacityReservationId.NotFound' });
    await expect(
      client.send(
        new DescribeCapacityReservationsCommand({
          CapacityReservationIds: ['cr-0000000000000000a'],
          MaxResults: 10,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterCombination' });
    await expect(
      client.send(new DescribeCapacityReservationsCommand({ Filters: [{ Name: 'colour', Values: ['x'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});
