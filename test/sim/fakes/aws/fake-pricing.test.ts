import { type Filter, GetProductsCommand, PricingClient, paginateGetProducts } from '@aws-sdk/client-pricing';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../sim/fakes/aws/client-config';
import { FakePricing } from '../../../../sim/fakes/aws/fake-pricing';
import { VirtualTime } from '../../../../sim/virtual-time';

const LINUX_SHARED: Filter[] = [
  { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' },
  { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
  { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Shared' },
  { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
  { Type: 'TERM_MATCH', Field: 'capacitystatus', Value: 'Used' },
];

function pricingWorld() {
  const fake = new FakePricing({ clock: new VirtualTime() });
  for (let i = 1; i <= 120; i += 1)
    fake.addOnDemandPrice({ instanceType: `m5.x${i}`, regionCode: 'us-east-1', usdPerHour: i / 100 });
  fake.addOnDemandPrice({ instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.096 });
  fake.addOnDemandPrice({
    instanceType: 'm5.large',
    regionCode: 'us-east-1',
    usdPerHour: 0.188,
    operatingSystem: 'Windows',
  });
  fake.addOnDemandPrice({
    instanceType: 'm5.large',
    regionCode: 'us-east-1',
    usdPerHour: 0.105,
    tenancy: 'Dedicated',
  });
  fake.addOnDemandPrice({
    instanceType: 'm5.large',
    regionCode: 'us-east-1',
    usdPerHour: 0.096,
    capacitystatus: 'UnusedCapacityReservation',
  });
  fake.addOnDemandPrice({ instanceType: 'm5.large', regionCode: 'eu-west-1', usdPerHour: 0.107 });
  const client = new PricingClient(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

describe('FakePricing', () => {
  it('returns price-list JSON for the matching Linux shared product only', async () => {
    const { client } = pricingWorld();
    const out = await client.send(
      new GetProductsCommand({
        ServiceCode: 'AmazonEC2',
        Filters: [...LINUX_SHARED, { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'm5.large' }],
      }),
    );
    expect(out.PriceList).toHaveLength(1);
    const product = JSON.parse(String((out.PriceList as string[])[0]));
    expect(product.product.attributes).toMatchObject({
      instanceType: 'm5.large',
      location: 'US East (N. Virginia)',
    });
    const [term] = Object.values(product.terms.OnDemand) as Array<{
      priceDimensions: Record<string, { pricePerUnit: { USD: string } }>;
    }>;
    expect(Number(Object.values(term!.priceDimensions)[0]!.pricePerUnit.USD)).toBe(0.096);
  });

  it('pages GetProducts at 100 per page through the SDK paginator', async () => {
    const { client } = pricingWorld();
    const sizes = [];
    for await (const page of paginateGetProducts(
      { client },
      { ServiceCode: 'AmazonEC2', Filters: LINUX_SHARED },
    )) {
      sizes.push(page.PriceList?.length);
    }
    expect(sizes).toEqual([100, 21]);
  });

  it('fails like an unresolvable endpoint while unreachable', async () => {
    const { client, fake } = pricingWorld();
    fake.setUnreachable(true, 'api.pricing.us-west-2.amazonaws.com');
    await expect(client.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2' }))).rejects.toMatchObject({
      code: 'ENOTFOUND',
      message: 'getaddrinfo ENOTFOUND api.pricing.us-west-2.amazonaws.com',
    });
  });
});
