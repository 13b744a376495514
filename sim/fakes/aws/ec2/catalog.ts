import type {
  _InstanceType,
  DescribeInstanceTypeOfferingsCommandInput,
  DescribeInstanceTypeOfferingsCommandOutput,
  DescribeInstanceTypesCommandInput,
  DescribeInstanceTypesCommandOutput,
  DescribeSpotPriceHistoryCommandInput,
  DescribeSpotPriceHistoryCommandOutput,
  InstanceTypeInfo,
  InstanceTypeOffering,
  LocationType,
  SpotPrice,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import { type FilterFields, flag } from './filters';
import type { Pool } from './fleet-capacity';
import { filtered, PAGES, page } from './listing';

/** A spot price observation to seed. */
export interface SpotPriceSeed {
  readonly instanceType: string;
  readonly availabilityZone: string;
  /** USD per hour. */
  readonly price: number;
  /** @default the clock's time when seeded */
  readonly timestamp?: Date | number;
  /** @default 'Linux/UNIX' */
  readonly productDescription?: string;
}

/** Which instance type is offered in which zone. */
export type OfferingSeed = { readonly instanceType: string; readonly availabilityZone: string };

const INSTANCE_TYPE_FILTERS: FilterFields<InstanceTypeInfo> = {
  'instance-type': (t) => [t.InstanceType],
  'current-generation': (t) => [flag(t.CurrentGeneration)],
  'bare-metal': (t) => [flag(t.BareMetal)],
  hypervisor: (t) => [t.Hypervisor],
  'burstable-performance-supported': (t) => [flag(t.BurstablePerformanceSupported)],
  'free-tier-eligible': (t) => [flag(t.FreeTierEligible)],
  'instance-storage-supported': (t) => [flag(t.InstanceStorageSupported)],
  'processor-info.supported-architecture': (t) => t.ProcessorInfo?.SupportedArchitectures ?? [],
  'processor-info.manufacturer': (t) => [t.ProcessorInfo?.Manufacturer],
  'supported-usage-class': (t) => t.SupportedUsageClasses ?? [],
  'supported-root-device-type': (t) => t.SupportedRootDeviceTypes ?? [],
  'supported-virtualization-type': (t) => t.SupportedVirtualizationTypes ?? [],
  'supported-boot-mode': (t) => t.SupportedBootModes ?? [],
  'vcpu-info.default-vcpus': (t) => [t.VCpuInfo?.DefaultVCpus?.toString()],
  'memory-info.size-in-mib': (t) => [t.MemoryInfo?.SizeInMiB?.toString()],
  'network-info.efa-supported': (t) => [flag(t.NetworkInfo?.EfaSupported)],
  'network-info.ena-support': (t) => [t.NetworkInfo?.EnaSupport],
  'network-info.maximum-network-interfaces': (t) => [t.NetworkInfo?.MaximumNetworkInterfaces?.toString()],
};

const OFFERING_FILTERS: FilterFields<InstanceTypeOffering> = {
  'instance-type': (o) => [o.InstanceType],
  location: (o) => [o.Location],
};

const SPOT_PRICE_FILTERS: FilterFields<SpotPrice> = {
  'availability-zone': (p) => [p.AvailabilityZone],
  'instance-type': (p) => [p.InstanceType],
  'product-description': (p) => [p.ProductDescription],
  'spot-price': (p) => [p.SpotPrice],
};

/**
 * The region's catalog as EC2 answers for it: instance types, where they are offered, spot
 * price history and (for the fleet's lowest-price allocation) on-demand prices.
 */
export class Ec2Catalog {
  private readonly instanceTypes = new Map<string, InstanceTypeInfo>();
  private offeringSet: Set<string> | undefined;
  private readonly onDemandPrices = new Map<string, number>();
  private readonly spotPriceHistory: SpotPrice[] = [];

  constructor(private readonly context: Ec2Context) {}

  addInstanceTypes(types: readonly InstanceTypeInfo[]): void {
    for (const info of types) this.instanceTypes.set(info.InstanceType ?? '', structuredClone(info));
  }

  /** Restricts which instance types are offered in which zones (replacing "everything everywhere"). */
  setOfferings(offerings: readonly OfferingSeed[]): void {
    this.offeringSet = new Set(offerings.map((o) => `${o.instanceType}|${o.availabilityZone}`));
  }

  setOnDemandPrice(instanceType: string, usdPerHour: number): void {
    this.onDemandPrices.set(instanceType, usdPerHour);
  }

  /** Records a spot price observation; CreateFleet uses the latest one at or before now. */
  addSpotPrice(seed: SpotPriceSeed): void {
    const timestamp = seed.timestamp ?? this.context.clock.now();
    this.spotPriceHistory.push({
      AvailabilityZone: seed.availabilityZone,
      AvailabilityZoneId: this.context.zoneId(seed.availabilityZone),
      InstanceType: seed.instanceType as _InstanceType,
      ProductDescription: (seed.productDescription ?? 'Linux/UNIX') as SpotPrice['ProductDescription'],
      SpotPrice: seed.price.toFixed(6),
      Timestamp: new Date(timestamp),
    });
  }

  /** The instance type called `name`, if EC2 knows it. */
  info(name: string): InstanceTypeInfo | undefined {
    return this.instanceTypes.get(name);
  }

  isOffered(instanceType: string, zone: string): boolean {
    if (!this.instanceTypes.has(instanceType) || !this.context.availabilityZones.includes(zone)) return false;
    return this.offeringSet === undefined || this.offeringSet.has(`${instanceType}|${zone}`);
  }

  /** Spot: the latest observation at or before now (else the on-demand price); on-demand: the price table. */
  priceOf(pool: Pool): number {
    const onDemand = this.onDemandPrices.get(pool.instanceType) ?? Infinity;
    if (pool.capacityType === 'on-demand') return onDemand;
    const now = this.context.clock.now();
    let latest: SpotPrice | undefined;
    for (const price of this.spotPriceHistory) {
      if (
        price.InstanceType === pool.instanceType &&
        price.AvailabilityZone === pool.availabilityZone &&
        price.ProductDescription === 'Linux/UNIX' &&
        price.Timestamp!.getTime() <= now &&
        (latest === undefined || price.Timestamp! >= latest.Timestamp!)
      ) {
        latest = price;
      }
    }
    return latest === undefined ? onDemand : Number(latest.SpotPrice);
  }

  describeInstanceTypes(
    input: DescribeInstanceTypesCommandInput,
  ): OperationOutput<DescribeInstanceTypesCommandOutput> {
    const { fail } = this.context;
    const missing = (input.InstanceTypes ?? []).filter((type) => !this.instanceTypes.has(type));
    if (missing.length > 0) {
      throw fail(
        'InvalidInstanceType',
        `The following supplied instance types do not exist: [${missing.join(', ')}]`,
      );
    }
    const wanted = input.InstanceTypes === undefined ? undefined : new Set<string>(input.InstanceTypes);
    const types = filtered(
      fail,
      [...this.instanceTypes.values()],
      input.Filters,
      INSTANCE_TYPE_FILTERS,
    ).filter((t) => wanted === undefined || wanted.has(t.InstanceType ?? ''));
    const listed = page(fail, types, input, PAGES.instanceTypes, 'DescribeInstanceTypes');
    return { InstanceTypes: listed.items, NextToken: listed.nextToken };
  }

  describeInstanceTypeOfferings(
    input: DescribeInstanceTypeOfferingsCommandInput,
  ): OperationOutput<DescribeInstanceTypeOfferingsCommandOutput> {
    const locationType: LocationType = input.LocationType ?? 'region';
    const offerings: InstanceTypeOffering[] = [];
    for (const type of this.instanceTypes.keys()) {
      for (const location of this.locations(type, locationType)) {
        offerings.push({
          InstanceType: type as _InstanceType,
          LocationType: locationType,
          Location: location,
        });
      }
    }
    const { fail } = this.context;
    const listed = page(
      fail,
      filtered(fail, offerings, input.Filters, OFFERING_FILTERS),
      input,
      PAGES.offerings,
      'DescribeInstanceTypeOfferings',
    );
    return { InstanceTypeOfferings: listed.items, NextToken: listed.nextToken };
  }

  /**
   * Returns the observations between StartTime and EndTime plus, per pool, the price in
   * effect at StartTime, newest first, as the real API does.
   */
  describeSpotPriceHistory(
    input: DescribeSpotPriceHistoryCommandInput,
  ): OperationOutput<DescribeSpotPriceHistoryCommandOutput> {
    const start = input.StartTime?.getTime() ?? -Infinity;
    const end = input.EndTime?.getTime() ?? this.context.clock.now();
    const types = input.InstanceTypes === undefined ? undefined : new Set<string>(input.InstanceTypes);
    const products = input.ProductDescriptions === undefined ? undefined : new Set(input.ProductDescriptions);
    const { fail } = this.context;
    const candidates = filtered(fail, this.spotPriceHistory, input.Filters, SPOT_PRICE_FILTERS).filter(
      (p) =>
        (types === undefined || types.has(p.InstanceType ?? '')) &&
        (products === undefined || products.has(p.ProductDescription ?? '')) &&
        (input.AvailabilityZone === undefined || p.AvailabilityZone === input.AvailabilityZone) &&
        p.Timestamp!.getTime() <= end,
    );
    const inEffectAtStart = new Map<string, SpotPrice>();
    const selected: SpotPrice[] = [];
    for (const price of candidates) {
      if (price.Timestamp!.getTime() >= start) {
        selected.push(price);
        continue;
      }
      const key = `${price.InstanceType}|${price.AvailabilityZone}|${price.ProductDescription}`;
      const current = inEffectAtStart.get(key);
      if (current === undefined || current.Timestamp! < price.Timestamp!) inEffectAtStart.set(key, price);
    }
    selected.push(...inEffectAtStart.values());
    selected.sort((a, b) => b.Timestamp!.getTime() - a.Timestamp!.getTime());
    const listed = page(fail, selected, input, PAGES.spotPrices, 'DescribeSpotPriceHistory');
    return { SpotPriceHistory: listed.items, NextToken: listed.nextToken ?? '' };
  }

  /** Where `type` is offered, spelled as `locationType` asks. */
  private locations(type: string, locationType: LocationType): string[] {
    const zones = this.context.availabilityZones.filter((zone) => this.isOffered(type, zone));
    switch (locationType) {
      case 'region':
        return zones.length > 0 ? [this.context.region] : [];
      case 'availability-zone-id':
        return zones.map((zone) => this.context.zoneId(zone));
      case 'availability-zone':
        return zones;
      default:
        return [];
    }
  }
}
