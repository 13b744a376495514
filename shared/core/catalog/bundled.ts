import * as z from 'zod';
import type { CapacityType } from '../model/capacity-type';
import { PodliftError, ValidationError } from '../model/errors';
import instanceTypesJson from './data/instance-types.json' with { type: 'json' };
import pricesJson from './data/prices.json' with { type: 'json' };
import type { Catalog, InstanceTypeInfo } from './instance-type';
import { estimateSpotPrices, type SpotAdvisorRegion } from './instance-type-resolution';
import { availabilityZones } from './regions';

/**
 * The instance catalog bundled with podlift (shared/core/catalog/data, see its README): 1,363 EC2 instance
 * types, Linux on-demand prices for 28 regions and the Spot Instance Advisor's savings for 26.
 * It lets the simulator, the CLI and tests plan without an AWS account; the live EC2 adapter
 * builds the same {@link Catalog} from DescribeInstanceTypes and the pricing API.
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
function parsePrices(raw: unknown): PricesData {
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
  if (issues.length > 0)
    throw new ValidationError(issues.slice(0, 10), { source: 'shared/core/catalog/data/prices.json' });
  return { onDemand, interruptionBuckets, spotAdvisor };
}

interface BundledData {
  readonly types: readonly InstanceTypeInfo[];
  readonly prices: PricesData;
}

let bundled: BundledData | undefined;

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

/** Validates the JSON once, on first use. */
function data(): BundledData {
  if (bundled === undefined) {
    const types = parseBundled(
      instanceTypesSchema,
      instanceTypesJson,
      'shared/core/catalog/data/instance-types.json',
    );
    const prices = parsePrices(pricesJson);
    bundled = { types: types.instanceTypes.map(toInfo), prices };
  }
  return bundled;
}

/** Every instance type of the bundled catalog (the 1,363 complete records; partial ones are skipped). */
export function bundledInstanceTypes(): readonly InstanceTypeInfo[] {
  return data().types;
}

/** The regions the bundled data has on-demand prices for, sorted. */
export function bundledRegions(): string[] {
  return [...data().prices.onDemand.keys()].sort();
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

/** The Spot Instance Advisor snapshot for `region` by type; empty for regions it does not cover (us-gov-*). */
export function bundledSpotAdvisor(region: string): ReadonlyMap<string, SpotAdvice> {
  const { spotAdvisor, interruptionBuckets } = data().prices;
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

/** Options of {@link loadBundledCatalog}. */
export interface BundledCatalogOptions {
  /**
   * Spot prices (USD per hour) that replace the estimates: per type (every zone), or per type
   * and zone (the zones listed; other zones keep their estimate). A type the Spot Advisor does
   * not list gets spot offerings only from here.
   * @default no overrides: spot = on-demand × (1 − Spot Advisor savings)
   */
  readonly spotPrices?: Readonly<Record<string, number | Readonly<Record<string, number>>>>;
}

const catalogs = new Map<string, Catalog>();

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

/**
 * The bundled {@link Catalog} of `region`: its default zone names, every bundled instance type,
 * on-demand prices, and spot prices estimated from the Spot Instance Advisor (none in the
 * GovCloud regions, which the Advisor does not cover) unless overridden.
 *
 * Without options the same Catalog object is returned on every call, so instance types resolved
 * from it stay memoised.
 *
 * @throws UnknownRegionError for a region without bundled prices.
 * @throws ValidationError for a malformed spot price override.
 */
export function loadBundledCatalog(region: string, options?: BundledCatalogOptions): Catalog {
  const cacheable = options?.spotPrices === undefined;
  const cached = cacheable ? catalogs.get(region) : undefined;
  if (cached !== undefined) return cached;

  const { types, prices } = data();
  const regionPrices = prices.onDemand.get(region);
  const zones = availabilityZones(region);
  if (regionPrices === undefined || zones === undefined) {
    throw new UnknownRegionError(region, bundledRegions());
  }
  const onDemand = new Map(regionPrices);
  const advisor = prices.spotAdvisor.get(region) ?? {};
  const spot = estimateSpotPrices(onDemand, advisor, zones);
  if (options?.spotPrices !== undefined) applySpotOverrides(spot, options.spotPrices, zones);

  const catalog: Catalog = { region, zones, types, prices: { onDemand, spot } };
  if (cacheable) catalogs.set(region, catalog);
  return catalog;
}
