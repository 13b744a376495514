import {
  type _InstanceType,
  type ArchitectureValues,
  type CreateFleetCommandInput,
  type CreateFleetCommandOutput,
  type CreateFleetError,
  type CreateFleetInstance,
  type CreateLaunchTemplateCommandInput,
  type CreateLaunchTemplateCommandOutput,
  type CreateTagsCommandInput,
  type CreateTagsCommandOutput,
  type DeleteLaunchTemplateCommandInput,
  type DeleteLaunchTemplateCommandOutput,
  type DescribeImagesCommandInput,
  type DescribeImagesCommandOutput,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
  type DescribeInstanceTypeOfferingsCommandInput,
  type DescribeInstanceTypeOfferingsCommandOutput,
  type DescribeInstanceTypesCommandInput,
  type DescribeInstanceTypesCommandOutput,
  type DescribeLaunchTemplatesCommandInput,
  type DescribeLaunchTemplatesCommandOutput,
  type DescribeSecurityGroupsCommandInput,
  type DescribeSecurityGroupsCommandOutput,
  type DescribeSpotPriceHistoryCommandInput,
  type DescribeSpotPriceHistoryCommandOutput,
  type DescribeSubnetsCommandInput,
  type DescribeSubnetsCommandOutput,
  EC2ServiceException,
  type FleetLaunchTemplateOverridesRequest,
  type FleetLaunchTemplateSpecification,
  type Image,
  type Instance,
  type InstanceState,
  type InstanceStateName,
  type InstanceTypeInfo,
  type InstanceTypeOffering,
  type LaunchTemplate,
  type LocationType,
  type RequestLaunchTemplateData,
  type Reservation,
  type SecurityGroup,
  type SpotPrice,
  type StateReason,
  type Subnet,
  type Tag,
  type TagSpecification,
  type TerminateInstancesCommandInput,
  type TerminateInstancesCommandOutput,
} from '@aws-sdk/client-ec2';
import type { Clock } from '../../../shared/core/ports/time';
import {
  assertKnownFilters,
  type FilterFields,
  flag,
  InvalidFilterError,
  matchesFilters,
} from './ec2-filters';
import {
  allocationOrder,
  type CapacityType,
  FleetCapacity,
  fleetErrorMessage,
  type Pool,
  type RankedPool,
} from './fake-ec2-fleet';
import { FakeAwsService, type OperationOutput } from './fake-service';
import { listingKey, PageRequestError, type PageRules, paginate, stableJson } from './pagination';
import { type KnownErrorTable, ServiceErrorFactory } from './service-error';

/** Tags as a compact record, for seeding. */
export type TagRecord = Readonly<Record<string, string>>;

/** A subnet to seed. */
export interface SubnetSeed {
  /** @default generated */
  readonly id?: string;
  /** @default the fake's default VPC */
  readonly vpcId?: string;
  readonly availabilityZone: string;
  /** @default a /20 in 10.0.0.0/16 chosen by seeding order */
  readonly cidrBlock?: string;
  /** @default the addresses of the CIDR block minus the 5 AWS reserves */
  readonly availableIpAddressCount?: number;
  readonly tags?: TagRecord;
}

/** A security group to seed. */
export interface SecurityGroupSeed {
  /** @default generated */
  readonly id?: string;
  readonly name: string;
  /** @default the fake's default VPC */
  readonly vpcId?: string;
  /** @default the name */
  readonly description?: string;
  readonly tags?: TagRecord;
}

/** An AMI to seed. */
export interface ImageSeed {
  /** @default generated */
  readonly id?: string;
  readonly name: string;
  /** @default 'x86_64' */
  readonly architecture?: ArchitectureValues;
  /** ISO 8601 string or Date. */
  readonly creationDate: string | Date;
  /** When the AMI is (or was) deprecated. @default never */
  readonly deprecationTime?: string | Date;
  /** @default 'available' */
  readonly state?: Image['State'];
  /** @default Amazon's account for AMIs with an owner alias of 'amazon', else the fake's account */
  readonly ownerId?: string;
  /** e.g. 'amazon' for public EKS-optimized AMIs. @default none */
  readonly ownerAlias?: string;
  /** @default true when ownerAlias is set */
  readonly public?: boolean;
  readonly description?: string;
  readonly tags?: TagRecord;
}

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

/** How long instance state transitions take on the fake's clock. */
export interface InstanceTimings {
  /** pending → running. @default 15 s */
  readonly pendingMs?: number;
  /** shutting-down → terminated. @default 30 s */
  readonly shuttingDownMs?: number;
  /** How long terminated instances stay visible to DescribeInstances. @default 1 h */
  readonly terminatedVisibleMs?: number;
}

/** Options of `FakeEc2`. */
export interface FakeEc2Options {
  readonly clock: Clock;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly accountId?: string;
  /** Availability Zones of the region. @default `${region}a`, `${region}b`, `${region}c` */
  readonly availabilityZones?: readonly string[];
  /** Instance types, e.g. built with `instanceTypeInfo`. Each is offered in every zone unless `offerings` says otherwise. */
  readonly instanceTypes?: readonly InstanceTypeInfo[];
  /** Which instance types are offered in which zones. @default every type in every zone */
  readonly offerings?: ReadonlyArray<{ readonly instanceType: string; readonly availabilityZone: string }>;
  readonly subnets?: readonly SubnetSeed[];
  readonly securityGroups?: readonly SecurityGroupSeed[];
  readonly images?: readonly ImageSeed[];
  /** On-demand USD per hour by instance type, used by lowest-price allocation. */
  readonly onDemandPrices?: Readonly<Record<string, number>>;
  readonly spotPrices?: readonly SpotPriceSeed[];
  readonly timings?: InstanceTimings;
}

/** What `reclaimSpot` scheduled. */
export interface SpotReclaim {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  /** When the two-minute warning is given (now). */
  readonly noticeTime: number;
  /** When the instance starts shutting down. */
  readonly terminationTime: number;
}

interface InstanceRecord {
  readonly instance: Instance;
  readonly reservationId: string;
  readonly capacityType: CapacityType;
  readonly vcpus: number;
  readonly launchedAt: number;
  readonly volumeTags: Tag[];
  terminatingAt?: number;
  stateReason?: StateReason;
  reclaimAt?: number;
}

interface LaunchTemplateRecord {
  readonly template: LaunchTemplate;
  readonly data: RequestLaunchTemplateData;
}

interface SubnetRecord {
  readonly subnet: Subnet;
  nextHost: number;
}

interface FleetPool extends RankedPool, Pool {
  readonly spec: FleetLaunchTemplateSpecification;
  readonly override: FleetLaunchTemplateOverridesRequest;
  readonly template: LaunchTemplateRecord;
  readonly subnet: SubnetRecord | undefined;
  readonly info: InstanceTypeInfo;
  readonly weight: number;
}

const EC2_ERRORS: KnownErrorTable = {
  RequestLimitExceeded: { fault: 'client', httpStatusCode: 503 },
  InsufficientInstanceCapacity: { fault: 'server', httpStatusCode: 500 },
  InternalError: { fault: 'server', httpStatusCode: 500 },
  Unavailable: { fault: 'server', httpStatusCode: 503 },
  ServiceUnavailable: { fault: 'server', httpStatusCode: 503 },
};

const STATE_CODES: Readonly<Record<InstanceStateName, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

const AMAZON_OWNER_ID = '137112412989';

const PAGES = {
  instanceTypes: { defaultSize: 100, min: 5, max: 100 },
  offerings: { defaultSize: 1000, min: 5, max: 1000 },
  spotPrices: { defaultSize: 1000, min: 1, max: 1000 },
  resources: { defaultSize: Infinity, min: 5, max: 1000 },
  launchTemplates: { defaultSize: Infinity, min: 1, max: 200 },
} satisfies Record<string, PageRules>;

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

const SUBNET_FILTERS: FilterFields<Subnet> = {
  'subnet-id': (s) => [s.SubnetId],
  'vpc-id': (s) => [s.VpcId],
  'availability-zone': (s) => [s.AvailabilityZone],
  'availability-zone-id': (s) => [s.AvailabilityZoneId],
  'cidr-block': (s) => [s.CidrBlock],
  'default-for-az': (s) => [flag(s.DefaultForAz)],
  'owner-id': (s) => [s.OwnerId],
  state: (s) => [s.State],
};

const SECURITY_GROUP_FILTERS: FilterFields<SecurityGroup> = {
  'group-id': (g) => [g.GroupId],
  'group-name': (g) => [g.GroupName],
  'vpc-id': (g) => [g.VpcId],
  description: (g) => [g.Description],
  'owner-id': (g) => [g.OwnerId],
};

const IMAGE_FILTERS: FilterFields<Image> = {
  'image-id': (i) => [i.ImageId],
  name: (i) => [i.Name],
  architecture: (i) => [i.Architecture],
  state: (i) => [i.State],
  'owner-id': (i) => [i.OwnerId],
  'owner-alias': (i) => [i.ImageOwnerAlias],
  'is-public': (i) => [flag(i.Public)],
  'creation-date': (i) => [i.CreationDate],
  description: (i) => [i.Description],
  'image-type': (i) => [i.ImageType],
  'root-device-type': (i) => [i.RootDeviceType],
  'virtualization-type': (i) => [i.VirtualizationType],
};

const LAUNCH_TEMPLATE_FILTERS: FilterFields<LaunchTemplate> = {
  'launch-template-name': (t) => [t.LaunchTemplateName],
  'create-time': (t) => [t.CreateTime?.toISOString()],
};

const INSTANCE_FILTERS: FilterFields<Instance> = {
  'instance-id': (i) => [i.InstanceId],
  'instance-type': (i) => [i.InstanceType],
  'instance-state-name': (i) => [i.State?.Name],
  'instance-state-code': (i) => [i.State?.Code?.toString()],
  'instance-lifecycle': (i) => [i.InstanceLifecycle],
  'availability-zone': (i) => [i.Placement?.AvailabilityZone],
  'subnet-id': (i) => [i.SubnetId],
  'vpc-id': (i) => [i.VpcId],
  'image-id': (i) => [i.ImageId],
  'private-dns-name': (i) => [i.PrivateDnsName],
  'private-ip-address': (i) => [i.PrivateIpAddress],
  'spot-instance-request-id': (i) => [i.SpotInstanceRequestId],
  'iam-instance-profile.arn': (i) => [i.IamInstanceProfile?.Arn],
  'instance.group-id': (i) => (i.SecurityGroups ?? []).map((g) => g.GroupId),
  architecture: (i) => [i.Architecture],
};

/**
 * A stateful, in-memory EC2 for one region and account, answering the operations podlift
 * uses. Attach it to a real `EC2Client` with `attachFake`.
 *
 * Instances move pending → running and shutting-down → terminated on the injected clock;
 * nothing happens in the background, the state is derived from the clock when read.
 */
export class FakeEc2 extends FakeAwsService {
  readonly clientName = 'EC2Client';
  readonly region: string;
  readonly accountId: string;
  readonly availabilityZones: readonly string[];
  /** Capacity per pool, ICE injection and vCPU quotas used by CreateFleet. */
  readonly capacity = new FleetCapacity();

  protected readonly throttlingErrorName = 'RequestLimitExceeded';
  protected readonly errors = new ServiceErrorFactory(EC2ServiceException, {}, EC2_ERRORS);
  protected readonly operations = {
    DescribeInstanceTypes: this.describeInstanceTypes,
    DescribeInstanceTypeOfferings: this.describeInstanceTypeOfferings,
    DescribeSpotPriceHistory: this.describeSpotPriceHistory,
    DescribeSubnets: this.describeSubnets,
    DescribeSecurityGroups: this.describeSecurityGroups,
    DescribeImages: this.describeImages,
    CreateLaunchTemplate: this.createLaunchTemplate,
    DescribeLaunchTemplates: this.describeLaunchTemplates,
    DeleteLaunchTemplate: this.deleteLaunchTemplate,
    CreateFleet: this.createFleet,
    DescribeInstances: this.describeInstances,
    TerminateInstances: this.terminateInstances,
    CreateTags: this.createTags,
  };

  private readonly timings: Required<InstanceTimings>;
  private readonly instanceTypes = new Map<string, InstanceTypeInfo>();
  private offeringSet: Set<string> | undefined;
  private readonly subnets = new Map<string, SubnetRecord>();
  private readonly securityGroups = new Map<string, SecurityGroup>();
  private readonly images = new Map<string, Image>();
  private readonly launchTemplates = new Map<string, LaunchTemplateRecord>();
  private readonly onDemandPrices = new Map<string, number>();
  private readonly spotPriceHistory: SpotPrice[] = [];
  private readonly instances = new Map<string, InstanceRecord>();
  private readonly fleetsByToken = new Map<
    string,
    { fingerprint: string; output: OperationOutput<CreateFleetCommandOutput> }
  >();
  private readonly defaultVpcId = 'vpc-0000000000000000a';
  private counter = 0;

  constructor(options: FakeEc2Options) {
    super(options.clock);
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '123456789012';
    this.availabilityZones =
      options.availabilityZones ?? ['a', 'b', 'c'].map((zone) => `${this.region}${zone}`);
    this.timings = {
      pendingMs: options.timings?.pendingMs ?? 15_000,
      shuttingDownMs: options.timings?.shuttingDownMs ?? 30_000,
      terminatedVisibleMs: options.timings?.terminatedVisibleMs ?? 3_600_000,
    };
    this.addInstanceTypes(options.instanceTypes ?? []);
    if (options.offerings !== undefined) this.setOfferings(options.offerings);
    for (const subnet of options.subnets ?? []) this.addSubnet(subnet);
    for (const group of options.securityGroups ?? []) this.addSecurityGroup(group);
    for (const image of options.images ?? []) this.addImage(image);
    for (const [type, price] of Object.entries(options.onDemandPrices ?? {}))
      this.onDemandPrices.set(type, price);
    for (const price of options.spotPrices ?? []) this.addSpotPrice(price);
  }

  // ── Seeding and inspection (not logged, never fail) ─────────────────────────────────────

  addInstanceTypes(types: readonly InstanceTypeInfo[]): void {
    for (const info of types) this.instanceTypes.set(info.InstanceType ?? '', structuredClone(info));
  }

  /** Restricts which instance types are offered in which zones (replacing "everything everywhere"). */
  setOfferings(
    offerings: ReadonlyArray<{ readonly instanceType: string; readonly availabilityZone: string }>,
  ): void {
    this.offeringSet = new Set(offerings.map((o) => `${o.instanceType}|${o.availabilityZone}`));
  }

  addSubnet(seed: SubnetSeed): Subnet {
    const index = this.subnets.size;
    const cidrBlock = seed.cidrBlock ?? `10.0.${index * 16}.0/20`;
    const prefix = Number(cidrBlock.split('/')[1] ?? 20);
    const subnet: Subnet = {
      SubnetId: seed.id ?? `subnet-${this.hexId(17)}`,
      VpcId: seed.vpcId ?? this.defaultVpcId,
      AvailabilityZone: seed.availabilityZone,
      AvailabilityZoneId: this.zoneId(seed.availabilityZone),
      CidrBlock: cidrBlock,
      AvailableIpAddressCount: seed.availableIpAddressCount ?? 2 ** (32 - prefix) - 5,
      State: 'available',
      DefaultForAz: false,
      MapPublicIpOnLaunch: false,
      OwnerId: this.accountId,
      Tags: tagList(seed.tags),
    };
    subnet.SubnetArn = `arn:aws:ec2:${this.region}:${this.accountId}:subnet/${subnet.SubnetId}`;
    this.subnets.set(subnet.SubnetId!, { subnet, nextHost: 4 });
    return structuredClone(subnet);
  }

  addSecurityGroup(seed: SecurityGroupSeed): SecurityGroup {
    const group: SecurityGroup = {
      GroupId: seed.id ?? `sg-${this.hexId(17)}`,
      GroupName: seed.name,
      Description: seed.description ?? seed.name,
      VpcId: seed.vpcId ?? this.defaultVpcId,
      OwnerId: this.accountId,
      IpPermissions: [],
      IpPermissionsEgress: [],
      Tags: tagList(seed.tags),
    };
    group.SecurityGroupArn = `arn:aws:ec2:${this.region}:${this.accountId}:security-group/${group.GroupId}`;
    this.securityGroups.set(group.GroupId!, group);
    return structuredClone(group);
  }

  addImage(seed: ImageSeed): Image {
    const ownerAlias = seed.ownerAlias;
    const image: Image = {
      ImageId: seed.id ?? `ami-${this.hexId(17)}`,
      Name: seed.name,
      Description: seed.description,
      Architecture: seed.architecture ?? 'x86_64',
      CreationDate: isoString(seed.creationDate),
      ...(seed.deprecationTime === undefined ? {} : { DeprecationTime: isoString(seed.deprecationTime) }),
      State: seed.state ?? 'available',
      OwnerId: seed.ownerId ?? (ownerAlias === 'amazon' ? AMAZON_OWNER_ID : this.accountId),
      ...(ownerAlias === undefined ? {} : { ImageOwnerAlias: ownerAlias }),
      Public: seed.public ?? ownerAlias !== undefined,
      ImageType: 'machine',
      Hypervisor: 'xen',
      RootDeviceName: '/dev/xvda',
      RootDeviceType: 'ebs',
      VirtualizationType: 'hvm',
      EnaSupport: true,
      Tags: tagList(seed.tags),
    };
    this.images.set(image.ImageId!, image);
    return structuredClone(image);
  }

  setOnDemandPrice(instanceType: string, usdPerHour: number): void {
    this.onDemandPrices.set(instanceType, usdPerHour);
  }

  /** Records a spot price observation; CreateFleet uses the latest one at or before now. */
  addSpotPrice(seed: SpotPriceSeed): void {
    const timestamp = seed.timestamp ?? this.clock.now();
    this.spotPriceHistory.push({
      AvailabilityZone: seed.availabilityZone,
      AvailabilityZoneId: this.zoneId(seed.availabilityZone),
      InstanceType: seed.instanceType as _InstanceType,
      ProductDescription: (seed.productDescription ?? 'Linux/UNIX') as SpotPrice['ProductDescription'],
      SpotPrice: seed.price.toFixed(6),
      Timestamp: new Date(timestamp),
    });
  }

  /** The instance as DescribeInstances would show it now, or undefined once it is gone. */
  instance(instanceId: string): Instance | undefined {
    const record = this.instances.get(instanceId);
    return record === undefined || !this.isVisible(record) ? undefined : this.render(record);
  }

  /** Every instance DescribeInstances would show now. */
  listInstances(): Instance[] {
    return [...this.instances.values()].filter((r) => this.isVisible(r)).map((r) => this.render(r));
  }

  /** Tags applied to the volumes of an instance (TagSpecifications with ResourceType volume). */
  volumeTags(instanceId: string): Tag[] {
    return structuredClone(this.instances.get(instanceId)?.volumeTags ?? []);
  }

  /** The data a launch template was created with, by name or id. */
  launchTemplateData(nameOrId: string): RequestLaunchTemplateData | undefined {
    const record =
      this.findLaunchTemplate({ LaunchTemplateId: nameOrId }) ??
      this.findLaunchTemplate({ LaunchTemplateName: nameOrId });
    return record === undefined ? undefined : structuredClone(record.data);
  }

  /**
   * Reclaims a spot instance as EC2 does: the interruption notice is given now and the
   * instance starts shutting down `noticeMs` later (two minutes by default), with state
   * reason `Server.SpotInstanceTermination`. Emitting the EventBridge warning is the caller's job.
   */
  reclaimSpot(instanceId: string, noticeMs = 120_000): SpotReclaim {
    const record = this.instances.get(instanceId);
    if (record === undefined || !this.isVisible(record))
      throw new Error(`reclaimSpot: no instance ${instanceId}`);
    if (record.capacityType !== 'spot')
      throw new Error(`reclaimSpot: ${instanceId} is an on-demand instance`);
    const now = this.clock.now();
    record.reclaimAt = now + noticeMs;
    return {
      instanceId,
      instanceType: record.instance.InstanceType ?? '',
      availabilityZone: record.instance.Placement?.AvailabilityZone ?? '',
      noticeTime: now,
      terminationTime: now + noticeMs,
    };
  }

  // ── Instance types and prices ───────────────────────────────────────────────────────────

  describeInstanceTypes(
    input: DescribeInstanceTypesCommandInput,
  ): OperationOutput<DescribeInstanceTypesCommandOutput> {
    const missing = (input.InstanceTypes ?? []).filter((type) => !this.instanceTypes.has(type));
    if (missing.length > 0) {
      throw this.fail(
        'InvalidInstanceType',
        `The following supplied instance types do not exist: [${missing.join(', ')}]`,
      );
    }
    const wanted = input.InstanceTypes === undefined ? undefined : new Set<string>(input.InstanceTypes);
    const types = this.filtered(
      [...this.instanceTypes.values()],
      input.Filters,
      INSTANCE_TYPE_FILTERS,
    ).filter((t) => wanted === undefined || wanted.has(t.InstanceType ?? ''));
    const page = this.page(types, input, PAGES.instanceTypes, 'DescribeInstanceTypes');
    return { InstanceTypes: page.items, NextToken: page.nextToken };
  }

  describeInstanceTypeOfferings(
    input: DescribeInstanceTypeOfferingsCommandInput,
  ): OperationOutput<DescribeInstanceTypeOfferingsCommandOutput> {
    const locationType: LocationType = input.LocationType ?? 'region';
    const offerings: InstanceTypeOffering[] = [];
    for (const type of this.instanceTypes.keys()) {
      const zones = this.availabilityZones.filter((zone) => this.isOffered(type, zone));
      const locations =
        locationType === 'region'
          ? zones.length > 0
            ? [this.region]
            : []
          : locationType === 'availability-zone-id'
            ? zones.map((zone) => this.zoneId(zone))
            : locationType === 'availability-zone'
              ? zones
              : [];
      for (const location of locations) {
        offerings.push({
          InstanceType: type as _InstanceType,
          LocationType: locationType,
          Location: location,
        });
      }
    }
    const page = this.page(
      this.filtered(offerings, input.Filters, OFFERING_FILTERS),
      input,
      PAGES.offerings,
      'DescribeInstanceTypeOfferings',
    );
    return { InstanceTypeOfferings: page.items, NextToken: page.nextToken };
  }

  /**
   * Returns the observations between StartTime and EndTime plus, per pool, the price in
   * effect at StartTime, newest first, as the real API does.
   */
  describeSpotPriceHistory(
    input: DescribeSpotPriceHistoryCommandInput,
  ): OperationOutput<DescribeSpotPriceHistoryCommandOutput> {
    const start = input.StartTime?.getTime() ?? -Infinity;
    const end = input.EndTime?.getTime() ?? this.clock.now();
    const types = input.InstanceTypes === undefined ? undefined : new Set<string>(input.InstanceTypes);
    const products = input.ProductDescriptions === undefined ? undefined : new Set(input.ProductDescriptions);
    const candidates = this.filtered(this.spotPriceHistory, input.Filters, SPOT_PRICE_FILTERS).filter(
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
    const page = this.page(selected, input, PAGES.spotPrices, 'DescribeSpotPriceHistory');
    return { SpotPriceHistory: page.items, NextToken: page.nextToken ?? '' };
  }

  // ── Network and images ──────────────────────────────────────────────────────────────────

  describeSubnets(input: DescribeSubnetsCommandInput): OperationOutput<DescribeSubnetsCommandOutput> {
    const missing = (input.SubnetIds ?? []).filter((id) => !this.subnets.has(id));
    if (missing.length > 0)
      throw this.fail('InvalidSubnetID.NotFound', `The subnet ID '${missing.join(', ')}' does not exist`);
    const wanted = input.SubnetIds === undefined ? undefined : new Set(input.SubnetIds);
    const subnets = this.filtered(
      [...this.subnets.values()].map((r) => r.subnet),
      input.Filters,
      SUBNET_FILTERS,
    ).filter((s) => wanted === undefined || wanted.has(s.SubnetId!));
    const page = this.page(subnets, input, PAGES.resources, 'DescribeSubnets');
    return { Subnets: page.items, NextToken: page.nextToken };
  }

  describeSecurityGroups(
    input: DescribeSecurityGroupsCommandInput,
  ): OperationOutput<DescribeSecurityGroupsCommandOutput> {
    const groups = [...this.securityGroups.values()];
    for (const id of input.GroupIds ?? []) {
      if (!this.securityGroups.has(id))
        throw this.fail('InvalidGroup.NotFound', `The security group '${id}' does not exist`);
    }
    for (const name of input.GroupNames ?? []) {
      if (!groups.some((g) => g.GroupName === name && g.VpcId === this.defaultVpcId)) {
        throw this.fail(
          'InvalidGroup.NotFound',
          `The security group '${name}' does not exist in default VPC '${this.defaultVpcId}'`,
        );
      }
    }
    const ids = input.GroupIds === undefined ? undefined : new Set(input.GroupIds);
    const names = input.GroupNames === undefined ? undefined : new Set(input.GroupNames);
    const selected = this.filtered(groups, input.Filters, SECURITY_GROUP_FILTERS).filter(
      (g) => (ids === undefined || ids.has(g.GroupId!)) && (names === undefined || names.has(g.GroupName!)),
    );
    const page = this.page(selected, input, PAGES.resources, 'DescribeSecurityGroups');
    return { SecurityGroups: page.items, NextToken: page.nextToken };
  }

  /**
   * Deprecated AMIs are left out unless IncludeDeprecated is set, the AMI is named in
   * ImageIds, or the caller owns it, as the real API does.
   */
  describeImages(input: DescribeImagesCommandInput): OperationOutput<DescribeImagesCommandOutput> {
    for (const id of input.ImageIds ?? []) {
      if (!/^ami-[0-9a-f]{8,17}$/.test(id)) throw this.fail('InvalidAMIID.Malformed', `Invalid id: "${id}"`);
    }
    const missing = (input.ImageIds ?? []).filter((id) => !this.images.has(id));
    if (missing.length > 0)
      throw this.fail('InvalidAMIID.NotFound', `The image id '[${missing.join(', ')}]' does not exist`);
    const ids = input.ImageIds === undefined ? undefined : new Set(input.ImageIds);
    const owners = input.Owners === undefined ? undefined : new Set(input.Owners);
    const now = this.clock.now();
    const selected = this.filtered([...this.images.values()], input.Filters, IMAGE_FILTERS).filter(
      (image) => {
        if (ids !== undefined && !ids.has(image.ImageId!)) return false;
        if (owners !== undefined && !this.ownedBy(image, owners)) return false;
        const deprecated = image.DeprecationTime !== undefined && Date.parse(image.DeprecationTime) <= now;
        return (
          !deprecated ||
          input.IncludeDeprecated === true ||
          ids !== undefined ||
          image.OwnerId === this.accountId
        );
      },
    );
    const page = this.page(selected, input, PAGES.resources, 'DescribeImages');
    return { Images: page.items, NextToken: page.nextToken };
  }

  // ── Launch templates ────────────────────────────────────────────────────────────────────

  createLaunchTemplate(
    input: CreateLaunchTemplateCommandInput,
  ): OperationOutput<CreateLaunchTemplateCommandOutput> {
    const name = input.LaunchTemplateName ?? '';
    if (!/^[a-zA-Z0-9().\-/_]{3,128}$/.test(name)) {
      throw this.fail(
        'InvalidLaunchTemplateName.MalformedException',
        `Launch template name '${name}' is invalid: use 3 to 128 characters of a-z, A-Z, 0-9, ( ) . - / _`,
      );
    }
    if (input.LaunchTemplateData === undefined) {
      throw this.fail('MissingParameter', 'The request must contain the parameter LaunchTemplateData');
    }
    if ([...this.launchTemplates.values()].some((r) => r.template.LaunchTemplateName === name)) {
      throw this.fail(
        'InvalidLaunchTemplateName.AlreadyExistsException',
        `Launch template name already in use.`,
      );
    }
    const template: LaunchTemplate = {
      LaunchTemplateId: `lt-${this.hexId(17)}`,
      LaunchTemplateName: name,
      CreateTime: new Date(this.clock.now()),
      CreatedBy: `arn:aws:iam::${this.accountId}:root`,
      DefaultVersionNumber: 1,
      LatestVersionNumber: 1,
      Tags: tagsFor(input.TagSpecifications, 'launch-template'),
    };
    this.launchTemplates.set(template.LaunchTemplateId!, { template, data: input.LaunchTemplateData });
    return { LaunchTemplate: template };
  }

  describeLaunchTemplates(
    input: DescribeLaunchTemplatesCommandInput,
  ): OperationOutput<DescribeLaunchTemplatesCommandOutput> {
    const all = [...this.launchTemplates.values()].map((r) => r.template);
    for (const id of input.LaunchTemplateIds ?? []) {
      if (!this.launchTemplates.has(id)) throw this.launchTemplateNotFound({ LaunchTemplateId: id });
    }
    for (const name of input.LaunchTemplateNames ?? []) {
      if (!all.some((t) => t.LaunchTemplateName === name))
        throw this.launchTemplateNotFound({ LaunchTemplateName: name });
    }
    const ids = input.LaunchTemplateIds === undefined ? undefined : new Set(input.LaunchTemplateIds);
    const names = input.LaunchTemplateNames === undefined ? undefined : new Set(input.LaunchTemplateNames);
    const selected = this.filtered(all, input.Filters, LAUNCH_TEMPLATE_FILTERS).filter(
      (t) =>
        (ids === undefined || ids.has(t.LaunchTemplateId!)) &&
        (names === undefined || names.has(t.LaunchTemplateName!)),
    );
    const page = this.page(selected, input, PAGES.launchTemplates, 'DescribeLaunchTemplates');
    return { LaunchTemplates: page.items, NextToken: page.nextToken };
  }

  deleteLaunchTemplate(
    input: DeleteLaunchTemplateCommandInput,
  ): OperationOutput<DeleteLaunchTemplateCommandOutput> {
    const record = this.findLaunchTemplate(input);
    if (record === undefined) throw this.launchTemplateNotFound(input);
    this.launchTemplates.delete(record.template.LaunchTemplateId!);
    return { LaunchTemplate: record.template };
  }

  // ── Fleet and instances ─────────────────────────────────────────────────────────────────

  /**
   * An `instant` fleet: resolves every override to a capacity pool, tries the pools in the
   * allocation strategy's order, launches what capacity allows and reports one error per pool
   * that failed. A request repeated with the same ClientToken returns the first answer.
   */
  createFleet(input: CreateFleetCommandInput): OperationOutput<CreateFleetCommandOutput> {
    const { ClientToken: token, ...request } = input;
    const fingerprint = stableJson(request);
    if (token !== undefined) {
      const previous = this.fleetsByToken.get(token);
      if (previous !== undefined) {
        if (previous.fingerprint !== fingerprint) {
          throw this.fail(
            'IdempotentParameterMismatch',
            `The client token '${token}' was used before with different request parameters`,
          );
        }
        return previous.output;
      }
    }
    if (input.Type !== 'instant') {
      throw new Error(
        `FakeEc2 models only instant fleets; CreateFleet was called with Type ${String(input.Type)}`,
      );
    }
    const target = input.TargetCapacitySpecification;
    if (target?.TotalTargetCapacity === undefined) {
      throw this.fail(
        'MissingParameter',
        'The request must contain the parameter TargetCapacitySpecification.TotalTargetCapacity',
      );
    }
    if (!Number.isInteger(target.TotalTargetCapacity) || target.TotalTargetCapacity < 1) {
      throw this.fail(
        'InvalidParameterValue',
        `Invalid value '${target.TotalTargetCapacity}' for TotalTargetCapacity`,
      );
    }
    if ((input.LaunchTemplateConfigs ?? []).length === 0) {
      throw this.fail('MissingParameter', 'The request must contain the parameter LaunchTemplateConfigs');
    }
    const fleetId = `fleet-${this.uuid()}`;
    const defaultType = target.DefaultTargetCapacityType ?? 'on-demand';
    const total = target.TotalTargetCapacity;
    const spotTarget =
      defaultType === 'spot'
        ? total - (target.OnDemandTargetCapacity ?? 0)
        : (target.SpotTargetCapacity ?? 0);
    const onDemandTarget = total - spotTarget;
    const errors: CreateFleetError[] = [];
    const launched: CreateFleetInstance[] = [];
    for (const [capacityType, units] of [
      ['on-demand', onDemandTarget],
      ['spot', spotTarget],
    ] as const) {
      if (units <= 0) continue;
      const strategy =
        capacityType === 'spot'
          ? (input.SpotOptions?.AllocationStrategy ?? 'lowest-price')
          : (input.OnDemandOptions?.AllocationStrategy ?? 'lowest-price');
      const minTarget =
        capacityType === 'spot'
          ? input.SpotOptions?.MinTargetCapacity
          : input.OnDemandOptions?.MinTargetCapacity;
      const pools = this.resolvePools(input, capacityType, errors);
      this.launchInto(allocationOrder(pools, strategy), units, minTarget, input, fleetId, errors, launched);
    }
    const output = { FleetId: fleetId, Errors: errors, Instances: launched };
    if (token !== undefined) this.fleetsByToken.set(token, { fingerprint, output: structuredClone(output) });
    return output;
  }

  describeInstances(input: DescribeInstancesCommandInput): OperationOutput<DescribeInstancesCommandOutput> {
    if (input.InstanceIds !== undefined && input.MaxResults !== undefined) {
      throw this.fail(
        'InvalidParameterCombination',
        'The parameter instancesSet cannot be used with the parameter maxResults',
      );
    }
    const records = this.requireInstances(input.InstanceIds);
    this.checkFilters(input.Filters, INSTANCE_FILTERS);
    const visible = (records ?? [...this.instances.values()].filter((r) => this.isVisible(r)))
      .map((record) => ({ record, instance: this.render(record) }))
      .filter(({ instance }) => this.matches(instance, input.Filters, INSTANCE_FILTERS));
    const page = this.page(visible, input, PAGES.resources, 'DescribeInstances');
    const reservations: Reservation[] = [];
    for (const { record, instance } of page.items) {
      const last = reservations.at(-1);
      if (last?.ReservationId === record.reservationId) last.Instances!.push(instance);
      else
        reservations.push({
          ReservationId: record.reservationId,
          OwnerId: this.accountId,
          RequesterId: '226008221399',
          Groups: [],
          Instances: [instance],
        });
    }
    return { Reservations: reservations, NextToken: page.nextToken };
  }

  /**
   * Terminating an unknown id fails the whole call with InvalidInstanceID.NotFound and
   * terminates nothing, as the real API does; terminating twice succeeds.
   */
  terminateInstances(
    input: TerminateInstancesCommandInput,
  ): OperationOutput<TerminateInstancesCommandOutput> {
    if ((input.InstanceIds ?? []).length === 0) {
      throw this.fail('MissingParameter', 'The request must contain the parameter InstanceId');
    }
    const records = this.requireInstances(input.InstanceIds) ?? [];
    const now = this.clock.now();
    return {
      TerminatingInstances: records.map((record) => {
        const previous = this.stateOf(record);
        if (record.terminatingAt === undefined) {
          record.terminatingAt = now;
          record.stateReason = {
            Code: 'Client.UserInitiatedShutdown',
            Message: 'Client.UserInitiatedShutdown: User initiated shutdown',
          };
          this.releaseAddress(record);
        }
        return {
          InstanceId: record.instance.InstanceId,
          PreviousState: previous,
          CurrentState: this.stateOf(record),
        };
      }),
    };
  }

  createTags(input: CreateTagsCommandInput): OperationOutput<CreateTagsCommandOutput> {
    const tags = input.Tags ?? [];
    for (const tag of tags) {
      if (tag.Key?.toLowerCase().startsWith('aws:')) {
        throw this.fail(
          'InvalidParameterValue',
          `Tag keys starting with 'aws:' are reserved for internal use`,
        );
      }
    }
    const targets = (input.Resources ?? []).map((id) => this.taggable(id));
    for (const target of targets) target.Tags = mergeTags(target.Tags ?? [], tags);
    return {};
  }

  // ── Internals ───────────────────────────────────────────────────────────────────────────

  private resolvePools(
    input: CreateFleetCommandInput,
    capacityType: CapacityType,
    errors: CreateFleetError[],
  ): FleetPool[] {
    const pools: FleetPool[] = [];
    let index = 0;
    for (const config of input.LaunchTemplateConfigs ?? []) {
      const spec = config.LaunchTemplateSpecification ?? {};
      const template = this.findLaunchTemplate(spec);
      const overrides = config.Overrides?.length ? config.Overrides : [{}];
      for (const override of overrides) {
        index += 1;
        const report = (code: string, message: string) =>
          errors.push({
            LaunchTemplateAndOverrides: {
              LaunchTemplateSpecification: echoSpec(spec),
              Overrides: echoOverride(override),
            },
            Lifecycle: capacityType,
            ErrorCode: code,
            ErrorMessage: message,
          });
        if (template === undefined) {
          const notFound = this.launchTemplateNotFound(spec);
          report(notFound.name, notFound.message);
          continue;
        }
        const instanceType = override.InstanceType ?? template.data.InstanceType;
        const info = instanceType === undefined ? undefined : this.instanceTypes.get(instanceType);
        if (instanceType === undefined || info === undefined) {
          report('InvalidParameterValue', `Invalid value '${instanceType ?? ''}' for InstanceType.`);
          continue;
        }
        const subnet = override.SubnetId === undefined ? undefined : this.subnets.get(override.SubnetId);
        if (override.SubnetId !== undefined && subnet === undefined) {
          report('InvalidSubnetID.NotFound', `The subnet ID '${override.SubnetId}' does not exist`);
          continue;
        }
        const zone =
          subnet?.subnet.AvailabilityZone ??
          override.AvailabilityZone ??
          template.data.Placement?.AvailabilityZone ??
          this.availabilityZones[0]!;
        if (override.AvailabilityZone !== undefined && override.AvailabilityZone !== zone) {
          report(
            'InvalidParameterValue',
            `The Availability Zone ${override.AvailabilityZone} does not match the subnet ${override.SubnetId} in ${zone}`,
          );
          continue;
        }
        if (!this.isOffered(instanceType, zone)) {
          const elsewhere = this.availabilityZones.filter((z) => this.isOffered(instanceType, z));
          report(
            'Unsupported',
            `Your requested instance type (${instanceType}) is not supported in your requested Availability Zone (${zone}). Please retry your request by not specifying an Availability Zone or choosing ${elsewhere.join(', ')}.`,
          );
          continue;
        }
        if (!(info.SupportedUsageClasses ?? []).includes(capacityType)) {
          report(
            'Unsupported',
            'The requested configuration is currently not supported. Please check the documentation for supported configurations.',
          );
          continue;
        }
        const imageId = override.ImageId ?? template.data.ImageId;
        const image = imageId === undefined ? undefined : this.images.get(imageId);
        if (imageId !== undefined && image === undefined) {
          report('InvalidAMIID.NotFound', `The image id '[${imageId}]' does not exist`);
          continue;
        }
        const typeArchitectures: string[] = info.ProcessorInfo?.SupportedArchitectures ?? [];
        if (image?.Architecture !== undefined && !typeArchitectures.includes(image.Architecture)) {
          report(
            'InvalidParameterValue',
            `The architecture '${typeArchitectures.join(', ')}' of the specified instance type does not match the architecture '${image.Architecture}' of the specified AMI. Specify an instance type and an AMI that have matching architectures, and try again.`,
          );
          continue;
        }
        const pool: Pool = { instanceType, availabilityZone: zone, capacityType };
        const price = this.priceOf(pool);
        if (capacityType === 'spot' && override.MaxPrice !== undefined && Number(override.MaxPrice) < price) {
          report(
            'SpotMaxPriceTooLow',
            `Your Spot request price of ${override.MaxPrice} is lower than the minimum required Spot request fulfillment price of ${price}.`,
          );
          continue;
        }
        const weight = override.WeightedCapacity ?? 1;
        pools.push({
          ...pool,
          index,
          pricePerUnit: price / weight,
          available: this.availableIn(pool),
          priority: override.Priority,
          spec,
          override,
          template,
          subnet,
          info,
          weight,
        });
      }
    }
    return pools;
  }

  private launchInto(
    ordered: readonly FleetPool[],
    units: number,
    minTarget: number | undefined,
    input: CreateFleetCommandInput,
    fleetId: string,
    errors: CreateFleetError[],
    launched: CreateFleetInstance[],
  ): void {
    const planned: Array<{ pool: FleetPool; count: number }> = [];
    const poolErrors: CreateFleetError[] = [];
    let remaining = units;
    const pending = new Map<string, number>();
    for (const pool of ordered) {
      if (remaining <= 0) break;
      const report = (code: string, message: string) =>
        poolErrors.push({
          LaunchTemplateAndOverrides: {
            LaunchTemplateSpecification: echoSpec(pool.spec),
            Overrides: echoOverride(pool.override),
          },
          Lifecycle: pool.capacityType,
          ErrorCode: code,
          ErrorMessage: message,
        });
      const injected = this.capacity.takeInjectedError(pool);
      if (injected !== undefined) {
        report(injected.code, injected.message);
        continue;
      }
      const wanted = Math.ceil(remaining / pool.weight);
      const vcpus = pool.info.VCpuInfo?.DefaultVCpus ?? 1;
      const usedVcpus = this.liveVcpus(pool.capacityType) + (pending.get(pool.capacityType) ?? 0);
      const byQuota = Math.floor((this.capacity.vcpuLimit(pool.capacityType) - usedVcpus) / vcpus);
      const byCapacity =
        this.availableIn(pool) -
        planned.filter((p) => samePool(p.pool, pool)).reduce((n, p) => n + p.count, 0);
      const byAddresses =
        pool.subnet === undefined ? Infinity : (pool.subnet.subnet.AvailableIpAddressCount ?? 0);
      const count = Math.max(0, Math.min(wanted, byQuota, byCapacity, byAddresses));
      if (count > 0) {
        planned.push({ pool, count });
        remaining -= count * pool.weight;
        pending.set(pool.capacityType, (pending.get(pool.capacityType) ?? 0) + count * vcpus);
      }
      if (count < wanted) {
        const binding = Math.min(byQuota, byCapacity, byAddresses);
        const code =
          binding === byQuota
            ? pool.capacityType === 'spot'
              ? 'MaxSpotInstanceCountExceeded'
              : 'VcpuLimitExceeded'
            : binding === byCapacity
              ? 'InsufficientInstanceCapacity'
              : 'InsufficientFreeAddressesInSubnet';
        report(code, fleetErrorMessage(code, pool));
      }
    }
    const reached = units - Math.max(0, remaining);
    if (minTarget !== undefined && reached < minTarget) {
      const first = ordered[0];
      errors.push({
        ...(first === undefined
          ? {}
          : {
              LaunchTemplateAndOverrides: {
                LaunchTemplateSpecification: echoSpec(first.spec),
                Overrides: echoOverride(first.override),
              },
            }),
        Lifecycle: first?.capacityType,
        ErrorCode: 'UnfulfillableCapacity',
        ErrorMessage: fleetErrorMessage(
          'UnfulfillableCapacity',
          first ?? { instanceType: '', availabilityZone: '', capacityType: 'spot' },
        ),
      });
      return;
    }
    errors.push(...poolErrors);
    for (const { pool, count } of planned) {
      const reservationId = `r-${this.hexId(17)}`;
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1)
        ids.push(this.launchInstance(pool, input, fleetId, reservationId, i));
      launched.push({
        LaunchTemplateAndOverrides: {
          LaunchTemplateSpecification: echoSpec(pool.spec),
          Overrides: echoOverride(pool.override),
        },
        Lifecycle: pool.capacityType,
        InstanceIds: ids,
        InstanceType: pool.instanceType as _InstanceType,
      });
    }
  }

  private launchInstance(
    pool: FleetPool,
    input: CreateFleetCommandInput,
    fleetId: string,
    reservationId: string,
    launchIndex: number,
  ): string {
    const now = this.clock.now();
    const instanceId = `i-${this.hexId(17)}`;
    const data = pool.template.data;
    const address =
      pool.subnet === undefined ? `10.255.0.${(this.counter % 250) + 4}` : this.allocateAddress(pool.subnet);
    const dnsSuffix = this.region === 'us-east-1' ? 'ec2.internal' : `${this.region}.compute.internal`;
    const templateInstanceTags = (data.TagSpecifications ?? [])
      .filter((s) => s.ResourceType === 'instance')
      .flatMap((s) => s.Tags ?? []);
    const templateVolumeTags = (data.TagSpecifications ?? [])
      .filter((s) => s.ResourceType === 'volume')
      .flatMap((s) => s.Tags ?? []);
    const securityGroupIds = data.SecurityGroupIds ?? [];
    const profile = data.IamInstanceProfile;
    const instance: Instance = {
      InstanceId: instanceId,
      InstanceType: pool.instanceType as _InstanceType,
      ImageId: pool.override.ImageId ?? data.ImageId,
      LaunchTime: new Date(now),
      Placement: { AvailabilityZone: pool.availabilityZone, Tenancy: 'default', GroupName: '' },
      SubnetId: pool.subnet?.subnet.SubnetId,
      VpcId: pool.subnet?.subnet.VpcId ?? this.defaultVpcId,
      PrivateIpAddress: address,
      PrivateDnsName: `ip-${address.replaceAll('.', '-')}.${dnsSuffix}`,
      Architecture: (pool.info.ProcessorInfo?.SupportedArchitectures?.[0] ?? 'x86_64') as ArchitectureValues,
      Hypervisor: 'xen',
      VirtualizationType: 'hvm',
      RootDeviceName: '/dev/xvda',
      RootDeviceType: 'ebs',
      EbsOptimized: true,
      EnaSupport: true,
      AmiLaunchIndex: launchIndex,
      SecurityGroups: securityGroupIds.map((id) => ({
        GroupId: id,
        GroupName: this.securityGroups.get(id)?.GroupName,
      })),
      ...(profile === undefined
        ? {}
        : {
            IamInstanceProfile: {
              Arn: profile.Arn ?? `arn:aws:iam::${this.accountId}:instance-profile/${profile.Name}`,
              Id: `AIPA${this.hexId(17).toUpperCase()}`,
            },
          }),
      ...(pool.capacityType === 'spot'
        ? { InstanceLifecycle: 'spot' as const, SpotInstanceRequestId: `sir-${this.hexId(8)}` }
        : {}),
      StateTransitionReason: '',
      Tags: mergeTags(mergeTags(templateInstanceTags, tagsFor(input.TagSpecifications, 'instance')), [
        { Key: 'aws:ec2:fleet-id', Value: fleetId },
        { Key: 'aws:ec2launchtemplate:id', Value: pool.template.template.LaunchTemplateId },
        { Key: 'aws:ec2launchtemplate:version', Value: pool.spec.Version ?? '1' },
      ]),
      PlatformDetails: 'Linux/UNIX',
      UsageOperation: 'RunInstances',
    };
    this.instances.set(instanceId, {
      instance,
      reservationId,
      capacityType: pool.capacityType,
      vcpus: pool.info.VCpuInfo?.DefaultVCpus ?? 1,
      launchedAt: now,
      volumeTags: mergeTags(templateVolumeTags, tagsFor(input.TagSpecifications, 'volume')),
    });
    return instanceId;
  }

  private allocateAddress(record: SubnetRecord): string {
    const [base = '10.0.0.0'] = (record.subnet.CidrBlock ?? '10.0.0.0/20').split('/');
    const host = record.nextHost;
    record.nextHost += 1;
    record.subnet.AvailableIpAddressCount = Math.max(0, (record.subnet.AvailableIpAddressCount ?? 0) - 1);
    const octets = base.split('.').map(Number);
    const value = (((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0) + host;
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  }

  private releaseAddress(record: InstanceRecord): void {
    const subnet =
      record.instance.SubnetId === undefined ? undefined : this.subnets.get(record.instance.SubnetId);
    if (subnet !== undefined)
      subnet.subnet.AvailableIpAddressCount = (subnet.subnet.AvailableIpAddressCount ?? 0) + 1;
  }

  /** Applies a due spot reclaim, then derives the state from the clock. */
  private stateOf(record: InstanceRecord): InstanceState {
    const now = this.clock.now();
    if (record.terminatingAt === undefined && record.reclaimAt !== undefined && now >= record.reclaimAt) {
      record.terminatingAt = record.reclaimAt;
      record.stateReason = {
        Code: 'Server.SpotInstanceTermination',
        Message: 'Server.SpotInstanceTermination: Spot instance termination',
      };
      this.releaseAddress(record);
    }
    let name: InstanceStateName;
    if (record.terminatingAt !== undefined) {
      name = now < record.terminatingAt + this.timings.shuttingDownMs ? 'shutting-down' : 'terminated';
    } else {
      name = now < record.launchedAt + this.timings.pendingMs ? 'pending' : 'running';
    }
    return { Code: STATE_CODES[name], Name: name };
  }

  /** Whether DescribeInstances still shows the instance; forgets it once it is gone for good. */
  private isVisible(record: InstanceRecord): boolean {
    this.stateOf(record);
    if (record.terminatingAt === undefined) return true;
    const visible =
      this.clock.now() <
      record.terminatingAt + this.timings.shuttingDownMs + this.timings.terminatedVisibleMs;
    if (!visible) this.instances.delete(record.instance.InstanceId!);
    return visible;
  }

  private render(record: InstanceRecord): Instance {
    const state = this.stateOf(record);
    const instance: Instance = { ...structuredClone(record.instance), State: state };
    if (record.stateReason !== undefined) {
      instance.StateReason = { ...record.stateReason };
      const at = new Date(record.terminatingAt ?? this.clock.now())
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' GMT');
      instance.StateTransitionReason =
        record.stateReason.Code === 'Client.UserInitiatedShutdown'
          ? `User initiated (${at})`
          : `Service initiated (${at})`;
    }
    if (state.Name === 'terminated') {
      instance.PrivateDnsName = '';
      delete instance.PrivateIpAddress;
    }
    return instance;
  }

  private requireInstances(ids: readonly string[] | undefined): InstanceRecord[] | undefined {
    if (ids === undefined) return undefined;
    const malformed = ids.filter((id) => !/^i-[0-9a-f]{8,17}$/.test(id));
    if (malformed.length > 0) throw this.fail('InvalidInstanceID.Malformed', `Invalid id: "${malformed[0]}"`);
    const missing = ids.filter((id) => {
      const record = this.instances.get(id);
      return record === undefined || !this.isVisible(record);
    });
    if (missing.length === 1)
      throw this.fail('InvalidInstanceID.NotFound', `The instance ID '${missing[0]}' does not exist`);
    if (missing.length > 1) {
      throw this.fail('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
    }
    return [...new Set(ids)].map((id) => this.instances.get(id)!);
  }

  private liveVcpus(capacityType: CapacityType): number {
    let total = 0;
    for (const record of this.instances.values()) {
      if (record.capacityType === capacityType && this.stateOf(record).Name !== 'terminated')
        total += record.vcpus;
    }
    return total;
  }

  private availableIn(pool: Pool): number {
    let live = 0;
    for (const record of this.instances.values()) {
      if (
        record.capacityType === pool.capacityType &&
        record.instance.InstanceType === pool.instanceType &&
        record.instance.Placement?.AvailabilityZone === pool.availabilityZone &&
        this.stateOf(record).Name !== 'terminated'
      ) {
        live += 1;
      }
    }
    return Math.max(0, this.capacity.capacityOf(pool) - live);
  }

  /** Spot: the latest observation at or before now (else the on-demand price); on-demand: the price table. */
  private priceOf(pool: Pool): number {
    const onDemand = this.onDemandPrices.get(pool.instanceType) ?? Infinity;
    if (pool.capacityType === 'on-demand') return onDemand;
    const now = this.clock.now();
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

  private isOffered(instanceType: string, zone: string): boolean {
    if (!this.instanceTypes.has(instanceType) || !this.availabilityZones.includes(zone)) return false;
    return this.offeringSet === undefined || this.offeringSet.has(`${instanceType}|${zone}`);
  }

  private findLaunchTemplate(spec: {
    LaunchTemplateId?: string;
    LaunchTemplateName?: string;
  }): LaunchTemplateRecord | undefined {
    if (spec.LaunchTemplateId !== undefined) return this.launchTemplates.get(spec.LaunchTemplateId);
    return [...this.launchTemplates.values()].find(
      (r) => r.template.LaunchTemplateName === spec.LaunchTemplateName,
    );
  }

  private launchTemplateNotFound(spec: { LaunchTemplateId?: string; LaunchTemplateName?: string }): Error {
    return spec.LaunchTemplateId !== undefined
      ? this.fail(
          'InvalidLaunchTemplateId.NotFound',
          `The specified launch template, with template ID ${spec.LaunchTemplateId}, does not exist.`,
        )
      : this.fail(
          'InvalidLaunchTemplateName.NotFoundException',
          `The specified launch template, with template name ${spec.LaunchTemplateName ?? ''}, does not exist.`,
        );
  }

  private taggable(id: string): { Tags?: Tag[] } {
    const found =
      this.instances.get(id)?.instance ??
      this.subnets.get(id)?.subnet ??
      this.securityGroups.get(id) ??
      this.images.get(id) ??
      this.launchTemplates.get(id)?.template;
    if (found !== undefined) return found;
    if (id.startsWith('i-'))
      throw this.fail('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    throw this.fail('InvalidID', `The ID '${id}' is not valid`);
  }

  private ownedBy(image: Image, owners: ReadonlySet<string>): boolean {
    return [...owners].some(
      (owner) =>
        owner === image.OwnerId ||
        (owner === 'self' && image.OwnerId === this.accountId) ||
        (image.ImageOwnerAlias !== undefined && owner === image.ImageOwnerAlias),
    );
  }

  private filtered<T extends object>(
    items: readonly T[],
    filters: DescribeInstancesCommandInput['Filters'],
    fields: FilterFields<T>,
  ): T[] {
    this.checkFilters(filters, fields);
    return items.filter((item) => this.matches(item, filters, fields));
  }

  private matches<T extends object>(
    item: T,
    filters: DescribeInstancesCommandInput['Filters'],
    fields: FilterFields<T>,
  ): boolean {
    return matchesFilters(item, filters, fields, (resource) =>
      'Tags' in resource ? (resource.Tags as Tag[]) : undefined,
    );
  }

  private page<T>(
    items: readonly T[],
    input: { MaxResults?: number; NextToken?: string },
    rules: PageRules,
    operation: string,
  ) {
    try {
      return paginate(items, input, rules, listingKey(operation, input));
    } catch (error) {
      if (!(error instanceof PageRequestError)) throw error;
      throw this.fail(
        error.reason === 'invalid-token' ? 'InvalidPaginationToken' : 'InvalidParameterValue',
        error.message,
      );
    }
  }

  /** Rejects unknown filter names with EC2's InvalidParameterValue. */
  private checkFilters<T>(filters: DescribeInstancesCommandInput['Filters'], fields: FilterFields<T>): void {
    try {
      assertKnownFilters(filters, fields as FilterFields<never>);
    } catch (error) {
      if (error instanceof InvalidFilterError) throw this.fail('InvalidParameterValue', error.message);
      throw error;
    }
  }

  private zoneId(zone: string): string {
    const [area = '', direction = '', number = ''] = this.region.split('-');
    const letter = zone.slice(this.region.length);
    return `${area}${direction.charAt(0)}${number}-az${letter.charCodeAt(0) - 96}`;
  }

  private hexId(length: number): string {
    this.counter += 1;
    return this.counter.toString(16).padStart(length, '0');
  }

  private uuid(): string {
    const hex = this.hexId(32);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

function samePool(a: Pool, b: Pool): boolean {
  return (
    a.instanceType === b.instanceType &&
    a.availabilityZone === b.availabilityZone &&
    a.capacityType === b.capacityType
  );
}

function tagList(tags: TagRecord | undefined): Tag[] {
  return Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
}

function tagsFor(specs: readonly TagSpecification[] | undefined, resourceType: string): Tag[] {
  return (specs ?? []).filter((s) => s.ResourceType === resourceType).flatMap((s) => s.Tags ?? []);
}

/** `base` with `updates` applied: same keys replaced in place, new keys appended. */
function mergeTags(base: readonly Tag[], updates: readonly Tag[]): Tag[] {
  const merged = base.map((tag) => ({ ...tag }));
  for (const tag of updates) {
    const existing = merged.find((t) => t.Key === tag.Key);
    if (existing !== undefined) existing.Value = tag.Value ?? '';
    else merged.push({ Key: tag.Key, Value: tag.Value ?? '' });
  }
  return merged;
}

function echoSpec(spec: FleetLaunchTemplateSpecification): FleetLaunchTemplateSpecification {
  return {
    ...(spec.LaunchTemplateId === undefined ? {} : { LaunchTemplateId: spec.LaunchTemplateId }),
    ...(spec.LaunchTemplateName === undefined ? {} : { LaunchTemplateName: spec.LaunchTemplateName }),
    Version: spec.Version ?? '$Default',
  };
}

function echoOverride(override: FleetLaunchTemplateOverridesRequest) {
  const { InstanceType, SubnetId, AvailabilityZone, Priority, WeightedCapacity, MaxPrice, ImageId } =
    override;
  return Object.fromEntries(
    Object.entries({
      InstanceType,
      SubnetId,
      AvailabilityZone,
      Priority,
      WeightedCapacity,
      MaxPrice,
      ImageId,
    }).filter(([, value]) => value !== undefined),
  );
}

function isoString(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}
