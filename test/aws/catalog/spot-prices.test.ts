import { type DescribeSpotPriceHistoryCommandInput, EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { describeSpotPrices } from '../../../shared/aws/catalog/spot-prices';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEc2, type SpotPriceSeed } from '../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../sim/virtual-time';

const HOUR = 3_600_000;

function world(prices: readonly SpotPriceSeed[]) {
  const clock = new VirtualTime();
  const fake = new FakeEc2({ clock, spotPrices: prices });
  const client = new EC2Client(clientConfig);
  attachFake(client, fake);
  return { clock, fake, client };
}

describe('describeSpotPrices', () => {
  it('keeps the newest Linux price per type and zone, asking from the clock time', async () => {
    const start = new VirtualTime().now();
    const { clock, fake, client } = world([
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.05, timestamp: start - 5 * HOUR },
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.04, timestamp: start - 2 * HOUR },
      // The VPC product line reports the same pool; its newer observation wins over the older Linux/UNIX one.
      {
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        price: 0.042,
        timestamp: start - HOUR,
        productDescription: 'Linux/UNIX (Amazon VPC)',
      },
      { instanceType: 'm5.large', availabilityZone: 'us-east-1b', price: 0.035, timestamp: start - 3 * HOUR },
      { instanceType: 'c5.large', availabilityZone: 'us-east-1a', price: 0.03, timestamp: start - HOUR },
      {
        instanceType: 'c5.large',
        availabilityZone: 'us-east-1b',
        price: 0.2,
        timestamp: start - HOUR,
        productDescription: 'Windows',
      },
    ]);
    clock.advance(30 * 60_000);

    const prices = await describeSpotPrices(client, clock.now());

    expect(prices).toEqual(
      new Map([
        [
          'm5.large',
          new Map([
            ['us-east-1a', 0.042],
            ['us-east-1b', 0.035],
          ]),
        ],
        ['c5.large', new Map([['us-east-1a', 0.03]])],
      ]),
    );
    const [call] = fake.callsTo('DescribeSpotPriceHistory') as DescribeSpotPriceHistoryCommandInput[];
    expect(call.StartTime).toEqual(new Date(clock.now()));
    expect(call.ProductDescriptions).toEqual(['Linux/UNIX', 'Linux/UNIX (Amazon VPC)']);
  });

  it('pages through the price history', async () => {
    const start = new VirtualTime().now();
    const seeds = Array.from({ length: 1_200 }, (_, i) => ({
      instanceType: `m5.x${i}`,
      availabilityZone: 'us-east-1a',
      price: i / 1000,
      timestamp: start - 1000,
    }));
    const { fake, client } = world(seeds);
    const prices = await describeSpotPrices(client, start);
    expect(fake.callsTo('DescribeSpotPriceHistory')).toHaveLength(2);
    expect(prices.size).toBe(1_200);
    expect(prices.get('m5.x1199')?.get('us-east-1a')).toBe(1.199);
  });

  it('throws a CloudError when EC2 fails or has no price (Karpenter: no spot pricing found)', async () => {
    const { fake, client, clock } = world([
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.04 },
    ]);
    fake.throttle('DescribeSpotPriceHistory');
    await expect(describeSpotPrices(client, clock.now())).rejects.toMatchObject({
      name: 'CloudError',
      code: 'RequestLimitExceeded',
      retryable: true,
    });
    const empty = world([]);
    await expect(describeSpotPrices(empty.client, empty.clock.now())).rejects.toMatchObject({
      name: 'CloudError',
      message: expect.stringContaining('no Linux/UNIX spot price'),
    });
  });
});
