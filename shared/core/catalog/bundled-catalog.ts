import * as z from 'zod';
import type { CapacityType } from '../model/capacity-type';
import { PodliftError, ValidationError } from '../model/errors';
import type { Catalog, InstanceTypeInfo } from './instance-type';
import { estimateSpotPrices, type SpotAdvisorRegion } from './instance-type-resolution';
import { availabilityZones } from './regions';

/**
 * The bundled instance catalog's data model, from the raw JSON of shared/core/catalog/data (see
 * its README) however it reached the process: imported into the module graph
 * (`./bundled`, for the CLI, the simulator and tests) or read from the compressed file shipped
 * beside a Lambda bundle (shared/aws/catalog/bundled-catalog-asset.ts). No JSON is imported
 * here, so a function bundle that only needs this module does not carry 1.5 MB of catalog.
 */

/** A region the bundled data has no prices for. */
export class UnknownRegionError extends PodliftError {
  constructor(
    readonly region: string,
    readonly knownRegions: readonly string[],
  ) {
    super(
      `loading the bundled instance catalog for region ${JSON.stringify(region)}: unknown region (known: ${knownRegions.join(', ')})`,
    );
    this.name = 'UnknownRegionError';
  }
}

/** Whether `e` is an {@link UnknownRegionError}. */
export function isUnknownRegionError(e: unknown): e is UnknownRegionError {
  return e instanceof UnknownRegionError;
}

const nullableInt = z.number().int().nullable();

const instanceTypeSchema = z.object({
  name: z.string(),
  family: z.string(),
  category: z.string(),
  generation: z.number().int(),
  size: z.string(),
  vcpu: z.number().int().positive(),
  memoryMiB: z.number().int().positive(),
  architecture: z.enum(['amd64', 'arm64']),
  cpuManufacturer: z.string(),
  hypervisor: z.string().nullable(),
  bareMetal: z.boolean(),
  capabilityFlex: z.boolean(),
  encryptionInTransitSupported: z.boolean(),
  gpu: z
    .object({
      count: z.number().int(),
      name: z.string(),
      manufacturer: z.string(),
      memoryMiB: z.number().int(),
    })
    .nullable(),
  accelerator: z
    .object({
      count: z.number().int(),
      name: z.string(),
      manufacturer: z.string(),
      neuronCores: z.number().int().optional(),
    })
    .nullable(),
  localNvmeGB: nullableInt,
  networkBandwidthMbps: nullableInt,
  ebsBandwidthMbps: nullableInt,
  eni: z
    .object({
      maxInterfaces: z.number().int(),
      ipv4PerInterface: z.number().int(),
      defaultCardMaxInterfaces: z.number().int(),
      trunkingCompatible: z.boolean(),
      branchInterfaces: z.number().int(),
    })
    .nullable(),
  karpenterAllocatable: z.object({ efa: z.number().int().optional() }),
  capacityTypes: z.array(z.enum(['on-demand', 'spot', 'capacity-block'])).nullable(),
});

const instanceTypesSchema = z.object({ instanceTypes: z.array(instanceTypeSchema) });

interface InterruptionBucket {
  readonly index: number;
  readonly label: string;
  readonly maxPercent: number;
}

interface PricesData {
  /** Region → type → USD per hour. */
  readonly onDemand: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly interruptionBuckets: readonly InterruptionBucket[];
  /** Region → Spot Advisor entries. */
  readonly spotAdvisor: ReadonlyMap<string, SpotAdvisorRegion>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
/** Advertised savings can be negative: the Advisor lists a few types whose spot price exceeds on-demand. */
const isSavings = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v <= 100;

/**
 * Checks prices.json by hand: its ~25,000 small entries are five times faster to walk in a loop
 * than through a zod record schema, and this runs on every cold start.
 */
function parsePrices(raw: unknown, source: string): PricesData {
  const issues: { field: string; value: unknown; message: string }[] = [];
  const onDemand = new Map<string, ReadonlyMap<string, number>>();
  const spotAdvisor = new Map<string, SpotAdvisorRegion>();
  let interruptionBuckets: InterruptionBucket[] = [];
  const root = isRecord(raw) ? raw : {};
  if (!isRecord(root.onDemand))
    issues.push({ field: 'onDemand', value: undefined, message: 'expected an object' });
  for (const [region, entry] of Object.entries(isRecord(root.onDemand) ? root.onDemand : {})) {
    const prices = isRecord(entry) ? entry.prices : undefined;
    if (!isRecord(prices)) {
      issues.push({ field: `onDemand.${region}.prices`, value: undefined, message: 'expected an object' });
      continue;
    }
    const map = new Map<string, number>();
    for (const [name, price] of Object.entries(prices)) {
      if (isPrice(price)) map.set(name, price);
      else
        issues.push({
          field: `onDemand.${region}.prices.${name}`,
          value: price,
          message: 'expected a price ≥ 0',
        });
    }
    onDemand.set(region, map);
  }
  const advisor = isRecord(root.spotAdvisor) ? root.spotAdvisor : {};
  if (Array.isArray(advisor.interruptionBuckets)) {
    interruptionBuckets = advisor.interruptionBuckets.filter(
      (b): b is InterruptionBucket =>
        isRecord(b) &&
        typeof b.index === 'number' &&
        typeof b.label === 'string' &&
        typeof b.maxPercent === 'number',
    );
  }
  if (interruptionBuckets.length === 0) {
    issues.push({
      field: 'spotAdvisor.interruptionBuckets',
      value: undefined,
      message: 'expected bucket objects',
    });
  }
  for (const [region, entries] of Object.entries(isRecord(advisor.regions) ? advisor.regions : {})) {
    const checked: Record<string, readonly [number, number]> = {};
    for (const [name, entry] of Object.entries(isRecord(entries) ? entries : {})) {
      if (Array.isArray(entry) && entry.length === 2 && isSavings(entry[0]) && Number.isInteger(entry[1])) {
        checked[name] = [entry[0], entry[1]];
      } else {
        issues.push({
          field: `spotAdvisor.regions.${region}.${name}`,
          value: entry,
          message: 'expected [savings %, bucket]',
        });
      }
    }
    spotAdvisor.set(region, checked);
  }
  if (issues.length > 0) throw new ValidationError(issues.slice(0, 10), { source });
  return { onDemand, interruptionBuckets, spotAdvisor };
}

function toInfo(raw: z.infer<typeof instanceTypeSchema>): InstanceTypeInfo {
  return {
    name: raw.name,
    family: raw.family,
    category: raw.category,
    generation: raw.generation,
    size: raw.size,
    vcpu: raw.vcpu,
    memoryMiB: raw.memoryMiB,
    architecture: raw.architecture,
    cpuManufacturer: raw.cpuManufacturer,
    hypervisor: raw.hypervisor,
    bareMetal: raw.bareMetal,
    gpu: raw.gpu,
    accelerator: raw.accelerator,
    localNvmeGB: raw.localNvmeGB,
    networkBandwidthMbps: raw.networkBandwidthMbps,
    ebsBandwidthMbps: raw.ebsBandwidthMbps,
    encryptionInTransitSupported: raw.encryptionInTransitSupported,
    capabilityFlex: raw.capabilityFlex,
    eni: raw.eni,
    efaCount: raw.karpenterAllocatable.efa ?? 0,
    // capacity-block is not a Karpenter capacity type; null stays "unknown: on-demand and spot".
    capacityTypes:
      raw.capacityTypes === null
        ? null
        : raw.capacityTypes.filter(
            (ct): ct is Extract<CapacityType, 'on-demand' | 'spot'> => ct !== 'capacity-block',
          ),
  };
}

function parseBundled<T>(schema: z.ZodType<T>, raw: unknown, file: string): T {
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ValidationError(
      result.error.issues.map((issue) => ({
        field: issue.path.join('.'),
        value: undefined,
        message: issue.message,
      })),
      { source: file },
    );
  }
  return result.data;
}

/** Spot Instance Advisor data of one type in one region. */
export interface SpotAdvice {
  /** Advertised savings versus on-demand, in percent. */
  readonly savingsPercent: number;
  /** Monthly interruption frequency bucket, e.g. "<5%" or ">20%". */
  readonly interruptionLabel: string;
  /** Upper bound of the bucket, in percent. */
  readonly interruptionMaxPercent: number;
}

/** Options of {@link BundledCatalog.catalog}. */
export interface BundledCatalogOptions {
  /**
   * Spot prices (USD per hour) that replace the estimates: per type (every zone), or per type
   * and zone (the zones listed; other zones keep their estimate). A type the Spot Advisor does
   * not list gets spot offerings only from here.
   * @default no overrides: spot = on-demand × (1 − Spot Advisor savings)
   */
  readonly spotPrices?: Readonly<Record<string, number | Readonly<Record<string, number>>>>;
}

function checkPrice(field: string, price: unknown): number {
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
    throw new ValidationError([
      { field, value: price, message: 'expected a price in USD per hour (a number ≥ 0)' },
    ]);
  }
  return price;
}

function applySpotOverrides(
  spot: Map<string, Map<string, number>>,
  overrides: NonNullable<BundledCatalogOptions['spotPrices']>,
  zones: readonly string[],
): void {
  for (const [name, override] of Object.entries(overrides)) {
    const byZone = new Map(spot.get(name));
    if (typeof override === 'object' && override !== null) {
      for (const [zone, price] of Object.entries(override)) {
        if (!zones.includes(zone)) {
          throw new ValidationError([
            {
              field: `spotPrices.${name}.${zone}`,
              value: zone,
              message: `not a zone of the region (${zones.join(', ')})`,
            },
          ]);
        }
        byZone.set(zone, checkPrice(`spotPrices.${name}.${zone}`, price));
      }
    } else {
      const price = checkPrice(`spotPrices.${name}`, override);
      for (const zone of zones) byZone.set(zone, price);
    }
    spot.set(name, byZone);
  }
}

/** Where the raw JSON came from, named in validation errors. */
export interface BundledCatalogSources {
  /** e.g. `shared/core/catalog/data/instance-types.json` */
  readonly instanceTypes: string;
  /** e.g. `shared/core/catalog/data/prices.json` */
  readonly prices: string;
}

/**
 * The bundled instance types, on-demand prices and Spot Advisor data, validated once when made.
 * Catalogs built without options are memoised per region, so instance types resolved from
 * them stay memoised too.
 */
export class BundledCatalog {
  private readonly types: readonly InstanceTypeInfo[];
  private readonly prices: PricesData;
  private readonly catalogs = new Map<string, Catalog>();

  /**
   * @param instanceTypesJson the parsed instance-types.json
   * @param pricesJson the parsed prices.json
   * @throws ValidationError naming the source file and field of the first malformed entries.
   */
  constructor(instanceTypesJson: unknown, pricesJson: unknown, sources: BundledCatalogSources) {
    this.types = parseBundled(
      instanceTypesSchema,
      instanceTypesJson,
      sources.instanceTypes,
    ).instanceTypes.map(toInfo);
    this.prices = parsePrices(pricesJson, sources.prices);
  }

  /** Every instance type (the 1,363 complete records; partial ones are skipped). */
  instanceTypes(): readonly InstanceTypeInfo[] {
    return this.types;
  }

  /** The regions with on-demand prices, sorted. */
  regions(): string[] {
    return [...this.prices.onDemand.keys()].sort();
  }

  /** The Spot Instance Advisor snapshot for `region` by type; empty for regions it does not cover (us-gov-*). */
  spotAdvisor(region: string): ReadonlyMap<string, SpotAdvice> {
    const { spotAdvisor, interruptionBuckets } = this.prices;
    const buckets = new Map(interruptionBuckets.map((b) => [b.index, b]));
    const advice = new Map<string, SpotAdvice>();
    for (const [name, [savingsPercent, bucket]] of Object.entries(spotAdvisor.get(region) ?? {})) {
      const b = buckets.get(bucket);
      advice.set(name, {
        savingsPercent,
        interruptionLabel: b?.label ?? `bucket ${bucket}`,
        interruptionMaxPercent: b?.maxPercent ?? 100,
      });
    }
    return advice;
  }

  /**
   * The {@link Catalog} of `region`: its default zone names, every instance type, on-demand
   * prices, and spot prices estimated from the Spot Instance Advisor (none in the GovCloud
   * regions, which the Advisor does not cover) unless overridden.
   *
   * Without options the same Catalog object is returned on every call.
   *
   * @throws UnknownRegionError for a region without prices.
   * @throws ValidationError for a malformed spot price override.
   */
  catalog(region: string, options?: BundledCatalogOptions): Catalog {
    const cacheable = options?.spotPrices === undefined;
    const cached = cacheable ? this.catalogs.get(region) : undefined;
    if (cached !== undefined) return cached;

    const regionPrices = this.prices.onDemand.get(region);
    const zones = availabilityZones(region);
    if (regionPrices === undefined || zones === undefined) {
      throw new UnknownRegionError(region, this.regions());
    }
    const onDemand = new Map(regionPrices);
    const advisor = this.prices.spotAdvisor.get(region) ?? {};
    const spot = estimateSpotPrices(onDemand, advisor, zones);
    if (options?.spotPrices !== undefined) applySpotOverrides(spot, options.spotPrices, zones);

    const catalog: Catalog = { region, zones, types: this.types, prices: { onDemand, spot } };
    if (cacheable) this.catalogs.set(region, catalog);
    return catalog;
  }
}
