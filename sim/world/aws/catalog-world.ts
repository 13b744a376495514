import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import type { CatalogLogger } from '../../../shared/aws/catalog/live-instance-catalog';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { FakeEc2, instanceTypeInfo, type SpotPriceSeed } from '../../fakes/aws/ec2';
import { FakePricing, type OnDemandPriceSeed } from '../../fakes/aws/fake-pricing';
import { VirtualTime } from '../../virtual-time';
import { bundledSpec } from './bundled-spec';
import { REGION } from './region';

/** A logger that keeps what it is told, for assertions. */
export class RecordingLogger implements CatalogLogger {
  readonly warnings: { readonly message: string; readonly fields: Readonly<Record<string, unknown>> }[] = [];

  warn(message: string, fields: Readonly<Record<string, unknown>>): void {
    this.warnings.push({ message, fields });
  }
}

/** Options of {@link catalogWorld}. */
export interface CatalogWorldOptions {
  /** @default 'us-east-1' */
  readonly region?: string;
  /** Bundled type names EC2 describes. @default WORLD_TYPES */
  readonly types?: readonly string[];
  /** @default every type in zones a to c, g5.xlarge only in a and b; zone d offers nothing */
  readonly offerings?: ReadonlyArray<{ readonly instanceType: string; readonly availabilityZone: string }>;
  /** @default defaultSpotPrices(region) */
  readonly spotPrices?: readonly SpotPriceSeed[];
  /** @default PRICING_PRODUCTS */
  readonly onDemandPrices?: readonly OnDemandPriceSeed[];
}

/** The bundled types the default world describes. */
export const WORLD_TYPES = ['m5.large', 'm5.xlarge', 'c5.large', 'm6g.large', 'm5.metal', 'g5.xlarge'];

/** Observed at the clock's start (2026-01-01) in zones a to c; g5.xlarge only has a spot price in zone a. */
export function defaultSpotPrices(region: string): SpotPriceSeed[] {
  return [
    ...['m5.large', 'm5.xlarge', 'c5.large', 'm6g.large', 'm5.metal'].flatMap((type, t) =>
      ['a', 'b', 'c'].map((zone, z) => ({
        instanceType: type,
        availabilityZone: `${region}${zone}`,
        price: 0.01 * (t + 1) + 0.001 * z,
      })),
    ),
    { instanceType: 'g5.xlarge', availabilityZone: `${region}a`, price: 0.4 },
  ];
}

/**
 * Pricing API products: m5.large at 0.1 (the bundled table says 0.096, so the test can tell
 * them apart), m5.metal as the bare-metal product, and g5.xlarge missing (bundled fallback).
 */
export const PRICING_PRODUCTS: readonly OnDemandPriceSeed[] = [
  { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.1 },
  { instanceType: 'm5.xlarge', regionCode: 'us-east-1', usdPerHour: 0.2 },
  { instanceType: 'c5.large', regionCode: 'us-east-1', usdPerHour: 0.09 },
  { instanceType: 'm6g.large', regionCode: 'us-east-1', usdPerHour: 0.08 },
  {
    instanceType: 'm5.metal',
    regionCode: 'us-east-1',
    usdPerHour: 4.7,
    tenancy: 'Dedicated',
    attributes: { productFamily: 'Compute Instance (bare metal)' },
  },
  { instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.188, operatingSystem: 'Windows' },
  { instanceType: 'm5.large', regionCode: 'eu-west-1', usdPerHour: 0.107 },
];

/** What {@link catalogWorld} builds. */
export interface CatalogWorld {
  readonly clock: VirtualTime;
  readonly region: string;
  /** A real EC2Client answered by `ec2Fake`. */
  readonly ec2: EC2Client;
  /** A real PricingClient answered by `pricingFake`. */
  readonly pricing: PricingClient;
  readonly ec2Fake: FakeEc2;
  readonly pricingFake: FakePricing;
  readonly logger: RecordingLogger;
}

/** A FakeEc2 and FakePricing behind real SDK clients, with bundled types, offerings and prices. */
export function catalogWorld(options: CatalogWorldOptions = {}): CatalogWorld {
  const region = options.region ?? REGION;
  const clock = new VirtualTime();
  const types = options.types ?? WORLD_TYPES;
  const offerings =
    options.offerings ??
    types.flatMap((type) =>
      ['a', 'b', 'c']
        .filter((zone) => type !== 'g5.xlarge' || zone !== 'c')
        .map((zone) => ({ instanceType: type, availabilityZone: `${region}${zone}` })),
    );
  const ec2Fake = new FakeEc2({
    clock,
    region,
    availabilityZones: ['a', 'b', 'c', 'd'].map((z) => `${region}${z}`),
    instanceTypes: types.map((name) => instanceTypeInfo(bundledSpec(name))),
    offerings,
    spotPrices: options.spotPrices ?? defaultSpotPrices(region),
  });
  const pricingFake = new FakePricing({ clock, prices: options.onDemandPrices ?? PRICING_PRODUCTS });
  const ec2 = withFake(new EC2Client({ ...clientConfig, region }), ec2Fake);
  const pricing = withFake(new PricingClient(clientConfig), pricingFake);
  return { clock, region, ec2, pricing, ec2Fake, pricingFake, logger: new RecordingLogger() };
}
