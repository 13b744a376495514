import { type DescribeInstanceTypeOfferingsCommandInput, EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { describeZoneOfferings } from '../../../shared/aws/catalog/zone-offerings';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEc2, instanceTypeInfo } from '../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../sim/virtual-time';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'];

function world(typeCount: number, offered: (type: string, zone: string) => boolean) {
  const names = Array.from({ length: typeCount }, (_, i) => `m5.x${i + 1}`);
  const fake = new FakeEc2({
    clock: new VirtualTime(),
    availabilityZones: ZONES,
    instanceTypes: names.map((name) => instanceTypeInfo({ name, vcpu: 2, memoryMiB: 8192 })),
    offerings: names.flatMap((type) =>
      ZONES.filter((zone) => offered(type, zone)).map((zone) => ({
        instanceType: type,
        availabilityZone: zone,
      })),
    ),
  });
  const client = new EC2Client(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

describe('describeZoneOfferings', () => {
  it('collects the zones of every type across pages, by availability-zone name', async () => {
    // 450 types × 3 zones = 1,350 offerings: two pages of at most 1,000.
    const { fake, client } = world(
      450,
      (type, zone) => zone !== 'us-east-1d' && (type !== 'm5.x7' || zone === 'us-east-1b'),
    );

    const { typeZones, zones } = await describeZoneOfferings(client);

    const calls = fake.callsTo(
      'DescribeInstanceTypeOfferings',
    ) as DescribeInstanceTypeOfferingsCommandInput[];
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.LocationType)).toEqual(['availability-zone', 'availability-zone']);
    expect(typeZones.size).toBe(450);
    expect([...(typeZones.get('m5.x1') ?? [])].sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect([...(typeZones.get('m5.x7') ?? [])]).toEqual(['us-east-1b']);
    expect([...(typeZones.get('m5.x450') ?? [])].sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    // us-east-1d offers nothing, so it is not one of the region's zones as Karpenter discovers them.
    expect(zones).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
  });

  it('lists zones sorted whatever order EC2 returns them in', async () => {
    const { client } = world(2, (type, zone) =>
      type === 'm5.x1' ? zone === 'us-east-1d' : zone === 'us-east-1a',
    );
    const { zones } = await describeZoneOfferings(client);
    expect(zones).toEqual(['us-east-1a', 'us-east-1d']);
  });

  it('throws a CloudError when EC2 fails or offers nothing', async () => {
    const failing = world(1, () => true);
    failing.fake.failNext('DescribeInstanceTypeOfferings', 'InternalError');
    await expect(describeZoneOfferings(failing.client)).rejects.toMatchObject({
      name: 'CloudError',
      code: 'InternalError',
      retryable: true,
    });
    const empty = world(1, () => false);
    await expect(describeZoneOfferings(empty.client)).rejects.toMatchObject({
      name: 'CloudError',
      message: expect.stringContaining('no offering'),
    });
  });
});
