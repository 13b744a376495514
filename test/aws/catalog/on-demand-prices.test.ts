import { type GetProductsCommandInput, PricingClient } from '@aws-sdk/client-pricing';
import { describe, expect, it } from 'vitest';
import {
  fetchOnDemandPrices,
  onDemandPriceOf,
  pricingApiServes,
  pricingCurrency,
  pricingEndpointRegion,
} from '../../../shared/aws/catalog/on-demand-prices';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakePricing, type OnDemandPriceSeed } from '../../../sim/fakes/aws/fake-pricing';
import { VirtualTime } from '../../../sim/virtual-time';

function world(prices: readonly OnDemandPriceSeed[]) {
  const fake = new FakePricing({ clock: new VirtualTime(), prices });
  const client = new PricingClient(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

/** A price list entry shaped like GetProducts returns it. */
function priceListItem(instanceType: string | undefined, usd: string[], currency = 'USD'): string {
  return JSON.stringify({
    product: {
      productFamily: 'Compute Instance',
      attributes: { instanceType, operatingSystem: 'Linux' },
      sku: 'S',
    },
    terms: {
      OnDemand: {
        'S.JRTCKXETXF': {
          priceDimensions: Object.fromEntries(
            usd.map((price, i) => [
              `S.JRTCKXETXF.${i}`,
              { unit: 'Hrs', pricePerUnit: { [currency]: price } },
            ]),
          ),
        },
      },
    },
  });
}

describe('onDemandPriceOf', () => {
  it('reads the instance type and hourly price of a price list entry', () => {
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.0960000000']), 'USD')).toEqual({
      instanceType: 'm5.large',
      price: 0.096,
    });
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.7'], 'CNY'), 'CNY')).toEqual({
      instanceType: 'm5.large',
      price: 0.7,
    });
  });

  it('skips zero prices and keeps the last non-zero dimension, as Karpenter does', () => {
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.1', '0.0000000000']), 'USD')?.price).toBe(0.1);
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.1', '0.2']), 'USD')?.price).toBe(0.2);
  });

  it('returns undefined for entries it cannot read', () => {
    expect(onDemandPriceOf('{not json', 'USD')).toBeUndefined();
    expect(onDemandPriceOf(priceListItem(undefined, ['0.1']), 'USD')).toBeUndefined();
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.0000000000']), 'USD')).toBeUndefined();
    expect(onDemandPriceOf(priceListItem('m5.large', ['0.1']), 'CNY')).toBeUndefined();
    expect(onDemandPriceOf('[]', 'USD')).toBeUndefined();
  });
});

describe('pricing endpoint, currency and coverage', () => {
  it.each([
    ['us-west-2', 'us-east-1', 'USD', true],
    ['ca-central-1', 'us-east-1', 'USD', true],
    ['eu-west-1', 'eu-central-1', 'USD', true],
    ['ap-northeast-1', 'ap-south-1', 'USD', true],
    ['cn-north-1', 'cn-northwest-1', 'CNY', true],
    ['us-gov-west-1', 'us-east-1', 'USD', false],
  ])('%s is priced through %s in %s (served: %s)', (region, endpoint, currency, served) => {
    expect(pricingEndpointRegion(region)).toBe(endpoint);
    expect(pricingCurrency(region)).toBe(currency);
    expect(pricingApiServes(region)).toBe(served);
  });
});

describe('fetchOnDemandPrices', () => {
  it('pages through Linux shared-tenancy prices and bare-metal prices of the region only', async () => {
    const { fake, client } = world([
      ...Array.from({ length: 230 }, (_, i) => ({
        instanceType: `m5.x${i}`,
        regionCode: 'us-east-1',
        usdPerHour: (i + 1) / 100,
      })),
      { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.096 },
      { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.188, operatingSystem: 'Windows' },
      { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.105, tenancy: 'Dedicated' },
      { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.2, preInstalledSw: 'SQL Web' },
      {
        instanceType: 'm5.large',
        regionCode: 'us-east-1',
        usdPerHour: 0.3,
        capacitystatus: 'AllocatedCapacityReservation',
      },
      { instanceType: 'c5.large', regionCode: 'eu-west-1', usdPerHour: 0.096 },
      {
        instanceType: 'm5.metal',
        regionCode: 'us-east-1',
        usdPerHour: 4.608,
        tenancy: 'Dedicated',
        attributes: { productFamily: 'Compute Instance (bare metal)' },
      },
    ]);

    const { prices, unreadable } = await fetchOnDemandPrices(client, 'us-east-1');

    expect(prices.size).toBe(232);
    expect(prices.get('m5.large')).toBe(0.096);
    expect(prices.get('m5.metal')).toBe(4.608);
    expect(prices.get('m5.x229')).toBe(2.3);
    expect(prices.has('c5.large')).toBe(false);
    expect(unreadable).toBe(0);
    const calls = fake.callsTo('GetProducts') as GetProductsCommandInput[];
    // 231 shared products in pages of 100, and one page of bare metal.
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c.ServiceCode === 'AmazonEC2' && c.MaxResults === 100)).toBe(true);
    expect(calls[0].Filters).toEqual(
      expect.arrayContaining([
        { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' },
        { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
        { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Shared' },
        { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
        { Type: 'TERM_MATCH', Field: 'capacitystatus', Value: 'Used' },
      ]),
    );
  });

  // A name that does not resolve is not retried within the invocation (shared/aws/aws-error.ts);
  // the live catalog still tries the Pricing API again a minute later and falls back meanwhile.
  it('throws a CloudError naming the failure when the Pricing API cannot be reached', async () => {
    const { fake, client } = world([
      { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.096 },
    ]);
    fake.setUnreachable(true, 'api.pricing.us-east-1.amazonaws.com');
    await expect(fetchOnDemandPrices(client, 'us-east-1')).rejects.toMatchObject({
      name: 'CloudError',
      code: 'ENOTFOUND',
      retryable: false,
      message: expect.stringContaining(
        'getting on-demand prices for us-east-1 from the Pricing API: ENOTFOUND',
      ),
    });
  });

  it('throws when the price list has no shared-tenancy price for the region', async () => {
    const { client } = world([{ instanceType: 'm5.large', regionCode: 'eu-west-1', usdPerHour: 0.107 }]);
    await expect(fetchOnDemandPrices(client, 'us-east-1')).rejects.toMatchObject({
      name: 'CloudError',
      message: expect.stringContaining('no Linux shared-tenancy price'),
    });
  });
});
