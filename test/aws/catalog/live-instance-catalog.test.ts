import { readFileSync } from 'node:fs';
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CATALOG_REFRESH_PERIODS,
  LiveInstanceCatalog,
  type LiveInstanceCatalogOptions,
} from '../../../shared/aws/catalog/live-instance-catalog';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import { BundledCatalog } from '../../../shared/core/catalog/bundled-catalog';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { isCloudError } from '../../../shared/core/model/errors';
import { type CatalogWorldOptions, catalogWorld, WORLD_TYPES } from '../../../sim/world/aws/catalog-world';

const DATA = '../../../shared/core/catalog/data/';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function liveCatalog(options: CatalogWorldOptions = {}, overrides: Partial<LiveInstanceCatalogOptions> = {}) {
  const world = catalogWorld(options);
  const catalog = new LiveInstanceCatalog({
    region: world.region,
    ec2: world.ec2,
    pricing: world.pricing,
    clock: world.clock,
    logger: world.logger,
    ...overrides,
  });
  /** Number of calls each operation got so far. */
  const calls = () => ({
    types: world.ec2Fake.callsTo('DescribeInstanceTypes').length,
    offerings: world.ec2Fake.callsTo('DescribeInstanceTypeOfferings').length,
    spot: world.ec2Fake.callsTo('DescribeSpotPriceHistory').length,
    products: world.pricingFake.callsTo('GetProducts').length,
  });
  return { ...world, catalog, calls };
}

const bundledUsEast1 = loadBundledCatalog('us-east-1').prices.onDemand;

describe('LiveInstanceCatalog', () => {
  it('builds the region catalog from EC2 and the Pricing API', async () => {
    const { catalog, logger } = liveCatalog();

    const result = await catalog.catalog();

    expect(result.region).toBe('us-east-1');
    expect(result.types.map((t) => t.name).sort()).toEqual([...WORLD_TYPES].sort());
    // us-east-1d exists but offers nothing.
    expect(result.zones).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect([...(result.typeZones?.get('g5.xlarge') ?? [])].sort()).toEqual(['us-east-1a', 'us-east-1b']);
    expect(result.prices.spot.get('m5.xlarge')).toEqual(
      new Map([
        ['us-east-1a', 0.02],
        ['us-east-1b', 0.021],
        ['us-east-1c', 0.022],
      ]),
    );
    expect(result.prices.onDemand.get('m5.large')).toBe(0.1);
    expect(result.prices.onDemand.get('m5.metal')).toBe(4.7);
    // The Pricing API does not price g5.xlarge here: it keeps its bundled price.
    expect(result.prices.onDemand.get('g5.xlarge')).toBe(bundledUsEast1.get('g5.xlarge'));
    expect(logger.warnings).toEqual([]);

    const g5 = resolveInstanceTypes(result, undefined).find((it) => it.name === 'g5.xlarge');
    expect(g5?.offerings.map((o) => `${o.capacityType} ${o.zone} ${o.price}`)).toEqual([
      `on-demand us-east-1a ${bundledUsEast1.get('g5.xlarge')}`,
      'spot us-east-1a 0.4',
      `on-demand us-east-1b ${bundledUsEast1.get('g5.xlarge')}`,
    ]);
  });

  it('falls back to the bundled on-demand prices while the Pricing API is unreachable, and logs it', async () => {
    const { catalog, pricingFake, clock, logger, calls } = liveCatalog();
    pricingFake.setUnreachable(true, 'api.pricing.us-east-1.amazonaws.com');

    const first = await catalog.catalog();

    expect(first.prices.onDemand.get('m5.large')).toBe(0.096);
    expect(first.prices.onDemand).toEqual(bundledUsEast1);
    expect(logger.warnings).toEqual([
      {
        message: 'instance catalog: Pricing API unavailable, using bundled on-demand prices',
        fields: expect.objectContaining({ region: 'us-east-1', code: 'ENOTFOUND' }),
      },
    ]);
    expect(resolveInstanceTypes(first, undefined).length).toBe(WORLD_TYPES.length);

    // Not asked again before the retry delay...
    clock.advance(59_000);
    expect(await catalog.catalog()).toBe(first);
    const before = calls().products;
    // ...then asked again, and live prices replace the bundled ones in a new catalog.
    pricingFake.setUnreachable(false);
    clock.advance(1_000);
    const second = await catalog.catalog();
    expect(calls().products).toBeGreaterThan(before);
    expect(second).not.toBe(first);
    expect(second.prices.onDemand.get('m5.large')).toBe(0.1);
    expect(second.types).toBe(first.types);
  });

  it('keeps the last live on-demand prices when a later Pricing refresh fails', async () => {
    const { catalog, pricingFake, clock, logger } = liveCatalog();
    const first = await catalog.catalog();
    pricingFake.failNext('GetProducts', 'ThrottlingException', 10);
    clock.advance(12 * HOUR);

    const second = await catalog.catalog();

    expect(second.prices.onDemand.get('m5.large')).toBe(0.1);
    expect(second.prices.onDemand).toBe(first.prices.onDemand);
    expect(logger.warnings.map((w) => w.message)).toEqual([
      'instance catalog: Pricing API unavailable, keeping the last on-demand prices',
    ]);
  });

  it('returns the same catalog without calling AWS until a refresh period passes', async () => {
    const { catalog, clock, calls } = liveCatalog();
    const first = await catalog.catalog();
    expect(calls()).toEqual({ types: 1, offerings: 1, spot: 1, products: 2 });

    clock.advance(12 * HOUR - 1);
    expect(await catalog.catalog()).toBe(first);
    expect(calls()).toEqual({ types: 1, offerings: 1, spot: 1, products: 2 });

    clock.advance(1);
    const second = await catalog.catalog();
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(calls()).toEqual({ types: 2, offerings: 2, spot: 2, products: 4 });
    expect(await catalog.catalog()).toBe(second);
  });

  it("uses Karpenter's 12-hour periods by default and refreshes each part on its own period", async () => {
    expect(DEFAULT_CATALOG_REFRESH_PERIODS).toEqual({
      instanceTypes: 12 * HOUR,
      offerings: 12 * HOUR,
      spotPrices: 12 * HOUR,
      onDemandPrices: 12 * HOUR,
    });
    const { catalog, clock, calls, ec2Fake } = liveCatalog(
      {},
      { refreshPeriods: { spotPrices: 5 * MINUTE } },
    );
    const first = await catalog.catalog();
    clock.advance(5 * MINUTE);
    ec2Fake.addSpotPrice({ instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.5 });

    const second = await catalog.catalog();

    expect(calls()).toEqual({ types: 1, offerings: 1, spot: 2, products: 2 });
    expect(second).not.toBe(first);
    expect(second.types).toBe(first.types);
    expect(second.prices.spot.get('m5.large')?.get('us-east-1a')).toBe(0.5);
  });

  it('refreshes everything when asked, into a new catalog object', async () => {
    const { catalog, calls } = liveCatalog();
    const first = await catalog.catalog();
    const refreshed = await catalog.refresh();
    expect(refreshed).not.toBe(first);
    expect(calls()).toEqual({ types: 2, offerings: 2, spot: 2, products: 4 });
    expect(await catalog.catalog()).toBe(refreshed);
  });

  it('shares one in-flight refresh between concurrent callers', async () => {
    const { catalog, calls } = liveCatalog();
    const results = await Promise.all([
      catalog.catalog(),
      catalog.catalog(),
      catalog.refresh(),
      catalog.catalog(),
    ]);
    expect(new Set(results).size).toBe(1);
    expect(calls()).toEqual({ types: 1, offerings: 1, spot: 1, products: 2 });
  });

  it('lets refresh() wait for a partial refresh under way and then refresh everything once', async () => {
    const { catalog, clock, calls } = liveCatalog({}, { refreshPeriods: { spotPrices: MINUTE } });
    await catalog.catalog();
    clock.advance(MINUTE);
    const [partial, full1, full2] = await Promise.all([
      catalog.catalog(),
      catalog.refresh(),
      catalog.refresh(),
    ]);
    expect(full1).toBe(full2);
    expect(full1).not.toBe(partial);
    expect(calls()).toEqual({ types: 2, offerings: 2, spot: 3, products: 4 });
  });

  it('keeps the last good catalog when a refresh fails, logs it, and retries after a minute', async () => {
    const { catalog, clock, ec2Fake, logger, calls } = liveCatalog();
    const first = await catalog.catalog();
    ec2Fake.failNext('DescribeInstanceTypes', 'InternalError', 2);
    ec2Fake.failNext('DescribeInstanceTypeOfferings', 'InternalError', 1);
    ec2Fake.failNext('DescribeSpotPriceHistory', 'InternalError', 1);
    clock.advance(12 * HOUR);

    const second = await catalog.refresh();

    // Only the on-demand prices were refreshed.
    expect(second.types).toBe(first.types);
    expect(second.typeZones).toBe(first.typeZones);
    expect(second.prices.spot).toBe(first.prices.spot);
    expect(logger.warnings.map((w) => [w.message, w.fields.part, w.fields.code])).toEqual([
      ['instance catalog: refresh failed, keeping the last good data', 'instanceTypes', 'InternalError'],
      ['instance catalog: refresh failed, keeping the last good data', 'offerings', 'InternalError'],
      ['instance catalog: refresh failed, keeping the last good data', 'spotPrices', 'InternalError'],
    ]);

    // Within the retry delay nothing is asked; after it the failed parts are, and one fails again.
    clock.advance(MINUTE - 1);
    expect(await catalog.catalog()).toBe(second);
    expect(calls().types).toBe(2);
    clock.advance(1);
    const third = await catalog.catalog();
    expect(calls()).toEqual({ types: 3, offerings: 3, spot: 3, products: 4 });
    expect(third.types).toBe(first.types);
    expect(third.typeZones).not.toBe(first.typeZones);

    clock.advance(MINUTE);
    const fourth = await catalog.catalog();
    expect(fourth.types).not.toBe(first.types);
    expect(calls()).toEqual({ types: 4, offerings: 3, spot: 3, products: 4 });
  });

  it('returns the same catalog object when every due part fails', async () => {
    const { catalog, clock, ec2Fake } = liveCatalog({}, { refreshPeriods: { spotPrices: MINUTE } });
    const first = await catalog.catalog();
    ec2Fake.throttle('DescribeSpotPriceHistory');
    clock.advance(MINUTE);
    expect(await catalog.catalog()).toBe(first);
  });

  it('throws a CloudError when there is no last good catalog, and recovers on the next call', async () => {
    const { catalog, ec2Fake, calls, logger } = liveCatalog();
    ec2Fake.failNext('DescribeInstanceTypeOfferings', 'UnauthorizedOperation');

    const error = await catalog.catalog().catch((e: unknown) => e);

    expect(isCloudError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'UnauthorizedOperation',
      retryable: false,
      message: expect.stringMatching(
        /^loading the instance catalog for us-east-1: describing instance type offerings in us-east-1: UnauthorizedOperation/,
      ),
    });
    expect(logger.warnings).toEqual([]);
    // The parts that loaded are kept; only the missing one is fetched again, at once.
    const recovered = await catalog.catalog();
    expect(recovered.zones).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(calls()).toEqual({ types: 1, offerings: 2, spot: 1, products: 2 });
  });

  it("logs through Powertools' Logger", async () => {
    const world = liveCatalog();
    world.pricingFake.setUnreachable(true);
    const catalog = new LiveInstanceCatalog({
      region: world.region,
      ec2: world.ec2,
      pricing: world.pricing,
      clock: world.clock,
      logger: new Logger({ serviceName: 'catalog-test', logLevel: 'SILENT' }),
    });
    expect((await catalog.catalog()).prices.onDemand.get('m5.large')).toBe(0.096);
  });

  it('uses the bundled prices without calling the Pricing API in GovCloud and isolated VPCs', async () => {
    const gov = liveCatalog({ region: 'us-gov-west-1' });
    const govCatalog = await gov.catalog.catalog();
    expect(gov.calls().products).toBe(0);
    expect(govCatalog.prices.onDemand.get('m5.large')).toBe(
      loadBundledCatalog('us-gov-west-1').prices.onDemand.get('m5.large'),
    );

    const isolated = liveCatalog({}, { isolatedVpc: true });
    const isolatedCatalog = await isolated.catalog.catalog();
    expect(isolated.calls().products).toBe(0);
    expect(isolatedCatalog.prices.onDemand.get('m5.large')).toBe(0.096);
    expect(isolated.logger.warnings).toEqual([]);
  });

  it('asks for the bundled catalog on its first refresh, not when made', async () => {
    let reads = 0;
    const bundled = new BundledCatalog(
      JSON.parse(readFileSync(new URL(`${DATA}instance-types.json`, import.meta.url), 'utf8')),
      JSON.parse(readFileSync(new URL(`${DATA}prices.json`, import.meta.url), 'utf8')),
      { instanceTypes: 'instance-types.json', prices: 'prices.json' },
    );
    const { catalog } = liveCatalog(
      {},
      {
        bundled: () => {
          reads++;
          return bundled;
        },
      },
    );
    expect(reads).toBe(0);

    const first = await catalog.catalog();
    expect(reads).toBeGreaterThan(0);
    // The pod-ENI limits DescribeInstanceTypes lacks come from the bundled record.
    expect(first.types.find((t) => t.name === 'm5.large')?.eni?.branchInterfaces).toBe(
      bundled.instanceTypes().find((t) => t.name === 'm5.large')?.eni?.branchInterfaces,
    );
  });
});
