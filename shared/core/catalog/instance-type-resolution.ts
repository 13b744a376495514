import type { CapacityType } from '../model/capacity-type';
import { type AmiFamily, DEFAULT_ROOT_VOLUME_BYTES, type EC2NodeClass } from '../model/ec2nodeclass';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_CAPABILITY_FLEX,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_TENANCY,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_REGION,
  LABEL_WINDOWS_BUILD,
  LABEL_ZONE,
} from '../model/labels';
import { Requirement, Requirements } from '../model/requirements';
import { allocatableOf, capacityOf, overheadOf } from './allocatable';
import type { Catalog, InstanceType, InstanceTypeInfo, Offering } from './instance-type';
import { type CompatibilityNodeClass, compatibleWithNodeClass } from './nodeclass-compatibility';
import { isOfferingUnavailable } from './unavailable-offerings';

/**
 * Instance types as the scheduler sees them for one node class: requirements (labels),
 * capacity, overhead, allocatable and priced offerings, resolved from a {@link Catalog} the way
 * Karpenter's AWS provider does (aws/karpenter-provider-aws
 * `pkg/providers/instancetype/types.go` computeRequirements / NewInstanceType).
 */

/** node.kubernetes.io/windows-build of Karpenter's Windows AMI families. */
const WINDOWS_BUILDS: Partial<Record<AmiFamily, string>> = {
  Windows2019: '10.0.17763',
  Windows2022: '10.0.20348',
  Windows2025: '10.0.26100',
};

/** The node class settings that change instance types. */
export type InstanceTypeNodeClass = Pick<EC2NodeClass, 'kubelet' | 'rootVolumeBytes' | 'amiFamily'> &
  Partial<Pick<EC2NodeClass, 'instanceStorePolicy'>> &
  CompatibilityNodeClass;

/** EC2 uses lower kebab case for label values ("Radeon Pro V520" → "radeon-pro-v520"). */
function lowerKebabCase(value: string): string {
  return value.replaceAll(' ', '-').toLowerCase();
}

/**
 * The labels Karpenter gives an instance type, as requirements. A label Karpenter defines but
 * this type has no value for (no GPU, no local NVMe, bandwidth unknown) is `DoesNotExist`, so
 * `Exists`/`NotIn` selectors behave as they do with Karpenter.
 *
 * @param zones zones of the type's offerings (topology.kubernetes.io/zone In zones)
 * @param capacityTypes capacity types of its offerings (karpenter.sh/capacity-type In ...)
 */
export function instanceTypeRequirements(
  info: InstanceTypeInfo,
  region: string,
  zones: readonly string[],
  capacityTypes: readonly CapacityType[],
  amiFamily: AmiFamily = 'AL2023',
): Requirements {
  const inOrAbsent = (key: string, value: string | number | null | undefined): Requirement =>
    value === null || value === undefined
      ? Requirement.of(key, 'DoesNotExist')
      : Requirement.of(key, 'In', [String(value)]);
  const windowsBuild = WINDOWS_BUILDS[amiFamily];
  // Windows AMIs only run on amd64; an arm64 type then has no OS at all and matches nothing.
  const os = windowsBuild === undefined ? ['linux'] : info.architecture === 'amd64' ? ['windows'] : [];
  const gpu = info.gpu;
  const accelerator = info.accelerator;
  return Requirements.EMPTY.with(
    Requirement.of(LABEL_INSTANCE_TYPE, 'In', [info.name]),
    Requirement.of(LABEL_ARCH, 'In', [info.architecture]),
    Requirement.of(LABEL_OS, 'In', os),
    Requirement.of(LABEL_ZONE, 'In', zones),
    Requirement.of(LABEL_REGION, 'In', [region]),
    inOrAbsent(LABEL_WINDOWS_BUILD, windowsBuild),
    Requirement.of(LABEL_CAPACITY_TYPE, 'In', capacityTypes),
    inOrAbsent(LABEL_INSTANCE_CPU, info.vcpu),
    inOrAbsent(LABEL_INSTANCE_CPU_MANUFACTURER, lowerKebabCase(info.cpuManufacturer)),
    inOrAbsent(LABEL_INSTANCE_MEMORY, info.memoryMiB),
    inOrAbsent(LABEL_INSTANCE_EBS_BANDWIDTH, info.ebsBandwidthMbps),
    inOrAbsent(LABEL_INSTANCE_NETWORK_BANDWIDTH, info.networkBandwidthMbps),
    inOrAbsent(LABEL_INSTANCE_CATEGORY, info.category),
    inOrAbsent(LABEL_INSTANCE_CAPABILITY_FLEX, String(info.capabilityFlex)),
    inOrAbsent(LABEL_INSTANCE_FAMILY, info.family),
    inOrAbsent(LABEL_INSTANCE_GENERATION, info.generation),
    inOrAbsent(LABEL_INSTANCE_LOCAL_NVME, info.localNvmeGB),
    inOrAbsent(LABEL_INSTANCE_SIZE, info.size),
    inOrAbsent(LABEL_INSTANCE_GPU_NAME, gpu && lowerKebabCase(gpu.name)),
    inOrAbsent(LABEL_INSTANCE_GPU_MANUFACTURER, gpu && lowerKebabCase(gpu.manufacturer)),
    inOrAbsent(LABEL_INSTANCE_GPU_COUNT, gpu?.count),
    // Per GPU, as DescribeInstanceTypes' GpuInfo.Gpus[0].MemoryInfo.SizeInMiB.
    inOrAbsent(LABEL_INSTANCE_GPU_MEMORY, gpu?.memoryMiB),
    inOrAbsent(LABEL_INSTANCE_ACCELERATOR_NAME, accelerator && lowerKebabCase(accelerator.name)),
    inOrAbsent(
      LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
      accelerator && lowerKebabCase(accelerator.manufacturer),
    ),
    inOrAbsent(LABEL_INSTANCE_ACCELERATOR_COUNT, accelerator?.count),
    // Bare metal has an empty hypervisor, and Karpenter still sets the label (to "").
    Requirement.of(LABEL_INSTANCE_HYPERVISOR, 'In', [info.hypervisor ?? '']),
    Requirement.of(LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT, 'In', [String(info.encryptionInTransitSupported)]),
    // Every type can run on shared or dedicated hardware (Karpenter's computeRequirements).
    Requirement.of(LABEL_INSTANCE_TENANCY, 'In', ['default', 'dedicated']),
  );
}

/** Capacity types EC2 can sell the type as, among those podlift launches (capacity-block is skipped, as in Karpenter). */
function purchasableCapacityTypes(info: InstanceTypeInfo): readonly CapacityType[] {
  const all: readonly CapacityType[] = ['on-demand', 'spot'];
  return info.capacityTypes === null ? all : all.filter((ct) => info.capacityTypes?.includes(ct));
}

/**
 * The offerings of one type in the catalog's region: one per zone (limited by
 * `catalog.typeZones` when present) and capacity type that has a price. On-demand needs an
 * on-demand price, spot a spot price for that zone. Offerings in `unavailable` (keys of
 * UnavailableOfferings, whole capacity types included) are kept but marked unavailable.
 */
export function instanceTypeOfferings(
  catalog: Catalog,
  info: InstanceTypeInfo,
  unavailable?: ReadonlySet<string>,
): Offering[] {
  const typeZones = catalog.typeZones;
  const allowed = typeZones === undefined ? undefined : (typeZones.get(info.name) ?? new Set<string>());
  const onDemand = catalog.prices.onDemand.get(info.name);
  const spot = catalog.prices.spot.get(info.name);
  const capacityTypes = purchasableCapacityTypes(info);
  const offerings: Offering[] = [];
  for (const zone of catalog.zones) {
    if (allowed !== undefined && !allowed.has(zone)) continue;
    for (const capacityType of capacityTypes) {
      const price = capacityType === 'on-demand' ? onDemand : spot?.get(zone);
      if (price === undefined) continue;
      const available =
        unavailable === undefined || !isOfferingUnavailable(unavailable, info.name, zone, capacityType);
      offerings.push({ zone, capacityType, price, available });
    }
  }
  return offerings;
}

/** What a type looks like in a catalog regardless of kubelet settings: its offerings and labels. */
interface Placement {
  readonly offerings: Offering[];
  readonly requirements: Requirements;
}

/** Per catalog and AMI family (labels depend on nothing else), so node classes share the work. */
const placementsByCatalog = new WeakMap<Catalog, Map<AmiFamily, Map<string, Placement | null>>>();

function placementOf(catalog: Catalog, info: InstanceTypeInfo, amiFamily: AmiFamily): Placement | null {
  let byFamily = placementsByCatalog.get(catalog);
  if (byFamily === undefined) {
    byFamily = new Map();
    placementsByCatalog.set(catalog, byFamily);
  }
  let byName = byFamily.get(amiFamily);
  if (byName === undefined) {
    byName = new Map();
    byFamily.set(amiFamily, byName);
  }
  let placement = byName.get(info.name);
  if (placement === undefined) {
    const offerings = instanceTypeOfferings(catalog, info);
    const zones = [...new Set(offerings.map((o) => o.zone))];
    const capacityTypes = [...new Set(offerings.map((o) => o.capacityType))];
    placement =
      offerings.length === 0
        ? null
        : {
            offerings,
            requirements: instanceTypeRequirements(info, catalog.region, zones, capacityTypes, amiFamily),
          };
    byName.set(info.name, placement);
  }
  return placement;
}

function resolveOne(
  catalog: Catalog,
  info: InstanceTypeInfo,
  nodeClass: InstanceTypeNodeClass | undefined,
): InstanceType | undefined {
  const amiFamily = nodeClass?.amiFamily ?? 'AL2023';
  if (nodeClass !== undefined && !compatibleWithNodeClass(info, nodeClass)) return undefined;
  const placement = placementOf(catalog, info, amiFamily);
  if (placement === null) return undefined;
  const kubelet = nodeClass?.kubelet;
  // RAID0 puts ephemeral-storage on the instance store (Karpenter: InstanceStorageInfo.TotalSizeInGB, decimal GB).
  const storage =
    nodeClass?.instanceStorePolicy === 'RAID0' && info.localNvmeGB !== null
      ? info.localNvmeGB * 1e9
      : (nodeClass?.rootVolumeBytes ?? DEFAULT_ROOT_VOLUME_BYTES);
  const capacity = capacityOf(info, kubelet, storage, amiFamily);
  const overhead = overheadOf(info, capacity, kubelet, amiFamily);
  return {
    name: info.name,
    info,
    requirements: placement.requirements,
    capacity,
    overhead,
    allocatable: allocatableOf(capacity, overhead),
    offerings: placement.offerings,
  };
}

/** A JSON rendering with sorted keys, so equal settings give equal cache keys. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

interface Resolved {
  /** Every offering available. */
  readonly all: InstanceType[];
  /** By the sorted contents of an unavailable set; a few entries at most. */
  readonly withUnavailable: Map<string, InstanceType[]>;
}

const MAX_UNAVAILABLE_VARIANTS = 8;
const resolvedByCatalog = new WeakMap<Catalog, Map<string, Resolved>>();

function markUnavailable(types: readonly InstanceType[], unavailable: ReadonlySet<string>): InstanceType[] {
  return types.map((it) => {
    const marked = (o: Offering) => isOfferingUnavailable(unavailable, it.name, o.zone, o.capacityType);
    if (!it.offerings.some(marked)) return it;
    const offerings = it.offerings.map((o) => (marked(o) ? { ...o, available: false } : o));
    return { ...it, offerings };
  });
}

/**
 * The catalog's instance types under a node class's settings (AL2023 with a 20Gi root volume
 * when `nodeClass` is undefined). Types without any priced offering in the region are left out.
 *
 * Requirements list every priced offering's zone and capacity type, available or not (as
 * Karpenter does, so marking an offering unavailable never changes labels); the scheduler
 * checks `available` on the offerings.
 *
 * Memoised per catalog object and node class settings, and per contents of `unavailable`: the
 * same inputs return the same array, so callers may resolve on every invocation.
 */
export function resolveInstanceTypes(
  catalog: Catalog,
  nodeClass: InstanceTypeNodeClass | undefined,
  unavailable?: ReadonlySet<string>,
): InstanceType[] {
  let byNodeClass = resolvedByCatalog.get(catalog);
  if (byNodeClass === undefined) {
    byNodeClass = new Map();
    resolvedByCatalog.set(catalog, byNodeClass);
  }
  const key = canonicalJson({
    kubelet: nodeClass?.kubelet ?? null,
    rootVolumeBytes: nodeClass?.rootVolumeBytes ?? DEFAULT_ROOT_VOLUME_BYTES,
    amiFamily: nodeClass?.amiFamily ?? 'AL2023',
    instanceStorePolicy: nodeClass?.instanceStorePolicy ?? null,
    connectionTracking: nodeClass?.connectionTracking !== undefined,
    networkInterfaces: nodeClass?.networkInterfaces ?? null,
  });
  let resolved = byNodeClass.get(key);
  if (resolved === undefined) {
    const all = catalog.types.flatMap((info) => resolveOne(catalog, info, nodeClass) ?? []);
    resolved = { all, withUnavailable: new Map() };
    byNodeClass.set(key, resolved);
  }
  if (unavailable === undefined || unavailable.size === 0) return resolved.all;
  const variantKey = [...unavailable].sort().join('\n');
  let variant = resolved.withUnavailable.get(variantKey);
  if (variant === undefined) {
    variant = markUnavailable(resolved.all, unavailable);
    if (resolved.withUnavailable.size >= MAX_UNAVAILABLE_VARIANTS) {
      const oldest = resolved.withUnavailable.keys().next().value;
      if (oldest !== undefined) resolved.withUnavailable.delete(oldest);
    }
    resolved.withUnavailable.set(variantKey, variant);
  }
  return variant;
}

/** One region's Spot Instance Advisor entry per type: [savings % versus on-demand, interruption bucket index]. */
export type SpotAdvisorRegion = Readonly<Record<string, readonly [number, number]>>;

/**
 * Spot prices estimated from on-demand prices and the Spot Instance Advisor's advertised
 * savings: onDemand × (1 − savings/100), the same in every zone. A type the advisor does not
 * list, or that has no on-demand price, gets no spot price (and so no spot offering).
 */
export function estimateSpotPrices(
  onDemand: ReadonlyMap<string, number>,
  advisor: SpotAdvisorRegion,
  zones: readonly string[],
): Map<string, Map<string, number>> {
  const spot = new Map<string, Map<string, number>>();
  for (const [name, price] of onDemand) {
    if (!Object.hasOwn(advisor, name)) continue;
    const [savingsPercent] = advisor[name];
    const estimate = price * (1 - savingsPercent / 100);
    spot.set(name, new Map(zones.map((zone) => [zone, estimate])));
  }
  return spot;
}
