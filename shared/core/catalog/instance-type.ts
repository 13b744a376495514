import type { CapacityType } from '../model/capacity-type';
import type { Requirements } from '../model/requirements';
import type { Resources } from '../model/resources';

/**
 * The hardware facts of one EC2 instance type, independent of region and node class. The
 * bundled catalog and DescribeInstanceTypes both map onto this shape.
 */
export interface InstanceTypeInfo {
  readonly name: string;
  readonly family: string;
  readonly category: string;
  readonly generation: number;
  readonly size: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly architecture: 'amd64' | 'arm64';
  readonly cpuManufacturer: string;
  readonly hypervisor: string | null;
  readonly bareMetal: boolean;
  readonly gpu: {
    readonly count: number;
    readonly name: string;
    readonly manufacturer: string;
    /** Per GPU. */
    readonly memoryMiB: number;
  } | null;
  readonly accelerator: {
    readonly count: number;
    readonly name: string;
    readonly manufacturer: string;
    readonly neuronCores?: number;
  } | null;
  readonly localNvmeGB: number | null;
  readonly networkBandwidthMbps: number | null;
  readonly ebsBandwidthMbps: number | null;
  readonly encryptionInTransitSupported: boolean;
  readonly capabilityFlex: boolean;
  readonly eni: {
    readonly maxInterfaces: number;
    readonly ipv4PerInterface: number;
    readonly defaultCardMaxInterfaces: number;
    readonly trunkingCompatible: boolean;
    readonly branchInterfaces: number;
  } | null;
  /** EFA interfaces supported (vpc.amazonaws.com/efa), 0 when none. */
  readonly efaCount: number;
  /** SupportedUsageClasses when known (null = unknown: both assumed). */
  readonly capacityTypes: readonly CapacityType[] | null;
}

/** One place and way an instance type can be bought, with its price. */
export interface Offering {
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** USD per hour. */
  readonly price: number;
  /** False when marked unavailable (insufficient capacity, recent interruption). */
  readonly available: boolean;
  /** For a `reserved` offering: the capacity reservation it launches into. */
  readonly reservation?: OfferingReservation;
}

/**
 * The capacity reservation of a `reserved` offering, as Karpenter's reserved offering carries it
 * in its requirements (capacity-reservation-id, -type, -interruptible) and ReservationCapacity.
 */
export interface OfferingReservation {
  readonly id: string;
  readonly type: 'default' | 'capacity-block';
  readonly interruptible: boolean;
  /** Instances it can still take: the free count EC2NodeClass resolution keeps. */
  readonly capacity: number;
}

/** Kubelet overhead of an instance type under a node class's kubelet settings. */
export interface InstanceTypeOverhead {
  readonly kubeReserved: Resources;
  readonly systemReserved: Resources;
  readonly evictionThreshold: Resources;
}

/**
 * An instance type as the scheduler sees it for one node class: the labels it would carry,
 * what kubelet reports as capacity, the overhead subtracted to get allocatable, and its
 * offerings in the region.
 */
export interface InstanceType {
  readonly name: string;
  readonly info: InstanceTypeInfo;
  /** Well-known labels of this type (instance-type, arch, os, instance-*, zone and capacity-type In its offerings). */
  readonly requirements: Requirements;
  readonly capacity: Resources;
  readonly overhead: InstanceTypeOverhead;
  /** capacity − kubeReserved − systemReserved − evictionThreshold. */
  readonly allocatable: Resources;
  readonly offerings: readonly Offering[];
}

/** Key of an offering in the unavailable-offerings set. */
export function offeringKey(instanceType: string, zone: string, capacityType: CapacityType): string {
  return `${capacityType}:${instanceType}:${zone}`;
}

/** Prices of a region: on-demand per type, spot per type and zone (USD per hour). */
export interface PriceTable {
  readonly onDemand: ReadonlyMap<string, number>;
  readonly spot: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/**
 * What is known about one region: its availability zones, the instance types offered there
 * and their prices. Built from the bundled data (shared/core/catalog/bundled.ts) or live from EC2 (shared/aws).
 */
export interface Catalog {
  readonly region: string;
  readonly zones: readonly string[];
  readonly types: readonly InstanceTypeInfo[];
  readonly prices: PriceTable;
  /**
   * Zones where a type is offered; absent = every zone of the region (the bundled data has no
   * per-zone availability, DescribeInstanceTypeOfferings does).
   */
  readonly typeZones?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** One instance type a new NodeClaim may launch as, with its cheapest allowed offering. */
export interface InstanceTypeOption {
  readonly name: string;
  readonly price: number;
  readonly capacityType: CapacityType;
  readonly zone: string;
}
