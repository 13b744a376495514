import {
  type CapacityReservation,
  type CreateFleetCommandInput,
  type CreateFleetCommandOutput,
  type CreateLaunchTemplateCommandInput,
  type CreateLaunchTemplateCommandOutput,
  type CreateTagsCommandInput,
  type CreateTagsCommandOutput,
  type DeleteLaunchTemplateCommandInput,
  type DeleteLaunchTemplateCommandOutput,
  type DescribeCapacityReservationsCommandInput,
  type DescribeCapacityReservationsCommandOutput,
  type DescribeImagesCommandInput,
  type DescribeImagesCommandOutput,
  type DescribeInstanceStatusCommandInput,
  type DescribeInstanceStatusCommandOutput,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
  type DescribeInstanceTypeOfferingsCommandInput,
  type DescribeInstanceTypeOfferingsCommandOutput,
  type DescribeInstanceTypesCommandInput,
  type DescribeInstanceTypesCommandOutput,
  type DescribeLaunchTemplatesCommandInput,
  type DescribeLaunchTemplatesCommandOutput,
  type DescribePlacementGroupsCommandInput,
  type DescribePlacementGroupsCommandOutput,
  type DescribeSecurityGroupsCommandInput,
  type DescribeSecurityGroupsCommandOutput,
  type DescribeSpotPriceHistoryCommandInput,
  type DescribeSpotPriceHistoryCommandOutput,
  type DescribeSubnetsCommandInput,
  type DescribeSubnetsCommandOutput,
  EC2ServiceException,
  type Image,
  type ImageState,
  type Instance,
  type InstanceTypeInfo,
  type PlacementGroup,
  type PlacementGroupState,
  type RequestLaunchTemplateData,
  type SecurityGroup,
  type Subnet,
  type SummaryStatus,
  type Tag,
  type TerminateInstancesCommandInput,
  type TerminateInstancesCommandOutput,
} from '@aws-sdk/client-ec2';
import type { Clock } from '../../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from '../fake-service';
import { type Caller, type Denial, unauthorizedOperationMessage } from '../iam-policy/authorization';
import type { AuthorizationRequest } from '../iam-policy/evaluate';
import { type KnownErrorTable, ServiceErrorFactory } from '../service-error';
import { ec2AuthorizationRequests } from './authorization';
import { type CapacityReservationSeed, Ec2CapacityReservations } from './capacity-reservations';
import { Ec2Catalog, type OfferingSeed, type SpotPriceSeed } from './catalog';
import { type Ec2Context, ec2Context } from './context';
import { Ec2Fleet, type MissingLaunchTemplateAnswer } from './fleet';
import { type CapacityType, FleetCapacity } from './fleet-capacity';
import type { InstanceProfileDirectory } from './fleet-launch-checks';
import { Ec2Images, type ImageSeed } from './images';
import { Ec2InstanceStatus, type InstanceEventSeed, type InstanceStatusChange } from './instance-status';
import { Ec2Instances, type InstanceTimings, type SpotReclaim } from './instances';
import { Ec2LaunchTemplates } from './launch-templates';
import { Ec2Network, type SecurityGroupSeed, type SubnetSeed } from './network';
import { Ec2PlacementGroups, type PlacementGroupSeed } from './placement-groups';
import { createTags, type Taggable } from './tags';

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
  readonly offerings?: readonly OfferingSeed[];
  readonly subnets?: readonly SubnetSeed[];
  readonly securityGroups?: readonly SecurityGroupSeed[];
  readonly images?: readonly ImageSeed[];
  readonly placementGroups?: readonly PlacementGroupSeed[];
  readonly capacityReservations?: readonly CapacityReservationSeed[];
  /** On-demand USD per hour by instance type, used by lowest-price allocation. */
  readonly onDemandPrices?: Readonly<Record<string, number>>;
  readonly spotPrices?: readonly SpotPriceSeed[];
  readonly timings?: InstanceTimings;
  /**
   * The account's IAM, to refuse launch templates naming an instance profile it does not have
   * (a FakeIam). @default none: the fake does not model IAM and takes any profile
   */
  readonly iam?: InstanceProfileDirectory;
  /** Varies the spare-capacity scores price-capacity-optimized ranks pools by. @default 1 */
  readonly capacitySeed?: number;
  /** How CreateFleet reports a launch template that does not exist. @default 'request' */
  readonly missingLaunchTemplate?: MissingLaunchTemplateAnswer;
}

const EC2_ERRORS: KnownErrorTable = {
  RequestLimitExceeded: { fault: 'client', httpStatusCode: 503 },
  InsufficientInstanceCapacity: { fault: 'server', httpStatusCode: 500 },
  InternalError: { fault: 'server', httpStatusCode: 500 },
  Unavailable: { fault: 'server', httpStatusCode: 503 },
  ServiceUnavailable: { fault: 'server', httpStatusCode: 503 },
};

/**
 * A stateful, in-memory EC2 for one region and account, answering the operations podlift
 * uses. Attach it to a real `EC2Client` with `attachFake`.
 *
 * This class only seeds, inspects and routes: each API family keeps its own state, as the
 * adapters are split (catalog, network, images, launch templates, instances, fleet).
 * Instances move pending → running and shutting-down → terminated on the injected clock;
 * nothing happens in the background, the state is derived from the clock when read.
 */
export class FakeEc2 extends FakeAwsService {
  readonly clientName = 'EC2Client';
  readonly region: string;
  readonly accountId: string;
  readonly availabilityZones: readonly string[];
  /** Capacity per pool, capacity scores, ICE injection and vCPU quotas used by CreateFleet. */
  readonly capacity: FleetCapacity;

  protected readonly throttlingErrorName = 'RequestLimitExceeded';
  protected readonly errors = new ServiceErrorFactory(EC2ServiceException, {}, EC2_ERRORS);
  protected readonly operations = {
    DescribeInstanceTypes: this.describeInstanceTypes,
    DescribeInstanceTypeOfferings: this.describeInstanceTypeOfferings,
    DescribeSpotPriceHistory: this.describeSpotPriceHistory,
    DescribeSubnets: this.describeSubnets,
    DescribeSecurityGroups: this.describeSecurityGroups,
    DescribeImages: this.describeImages,
    DescribePlacementGroups: this.describePlacementGroups,
    DescribeCapacityReservations: this.describeCapacityReservations,
    CreateLaunchTemplate: this.createLaunchTemplate,
    DescribeLaunchTemplates: this.describeLaunchTemplates,
    DeleteLaunchTemplate: this.deleteLaunchTemplate,
    CreateFleet: this.createFleet,
    DescribeInstances: this.describeInstances,
    DescribeInstanceStatus: this.describeInstanceStatus,
    TerminateInstances: this.terminateInstances,
    CreateTags: this.createTags,
  };

  private readonly context: Ec2Context;
  private readonly catalog: Ec2Catalog;
  private readonly network: Ec2Network;
  private readonly images: Ec2Images;
  private readonly templates: Ec2LaunchTemplates;
  private readonly instances: Ec2Instances;
  private readonly instanceStatus: Ec2InstanceStatus;
  private readonly fleet: Ec2Fleet;
  private readonly placementGroups: Ec2PlacementGroups;
  private readonly reservations: Ec2CapacityReservations;
  private readonly iam: { directory?: InstanceProfileDirectory } = {};

  constructor(options: FakeEc2Options) {
    super(options.clock);
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '123456789012';
    this.availabilityZones =
      options.availabilityZones ?? ['a', 'b', 'c'].map((zone) => `${this.region}${zone}`);
    this.capacity = new FleetCapacity(options.capacitySeed);
    this.context = ec2Context({
      clock: options.clock,
      region: this.region,
      accountId: this.accountId,
      availabilityZones: this.availabilityZones,
      fail: (code, message) => this.fail(code, message),
    });
    this.catalog = new Ec2Catalog(this.context);
    this.network = new Ec2Network(this.context);
    this.images = new Ec2Images(this.context);
    this.templates = new Ec2LaunchTemplates(this.context);
    this.instances = new Ec2Instances(this.context, this.network, options.timings);
    this.instanceStatus = new Ec2InstanceStatus(this.context, this.instances);
    this.placementGroups = new Ec2PlacementGroups(this.context);
    this.reservations = new Ec2CapacityReservations(this.context, (id) =>
      this.instances.liveInReservation(id),
    );
    this.fleet = new Ec2Fleet(this.context, {
      catalog: this.catalog,
      network: this.network,
      images: this.images,
      templates: this.templates,
      instances: this.instances,
      capacity: this.capacity,
      iam: this.iam,
      placementGroups: this.placementGroups,
      reservations: this.reservations,
    });
    if (options.iam !== undefined) this.iam.directory = options.iam;
    if (options.missingLaunchTemplate !== undefined)
      this.fleet.missingLaunchTemplate = options.missingLaunchTemplate;
    this.seed(options);
  }

  // ── Seeding and inspection (not logged, never fail) ─────────────────────────────────────

  addInstanceTypes(types: readonly InstanceTypeInfo[]): void {
    this.catalog.addInstanceTypes(types);
  }

  /** Restricts which instance types are offered in which zones (replacing "everything everywhere"). */
  setOfferings(offerings: readonly OfferingSeed[]): void {
    this.catalog.setOfferings(offerings);
  }

  addSubnet(seed: SubnetSeed): Subnet {
    return this.network.addSubnet(seed);
  }

  addSecurityGroup(seed: SecurityGroupSeed): SecurityGroup {
    return this.network.addSecurityGroup(seed);
  }

  addImage(seed: ImageSeed): Image {
    return this.images.addImage(seed);
  }

  /** An AMI as DescribeImages describes it, for the world's stand-ins (the kubelet boots what it runs). */
  image(imageId: string): Image | undefined {
    const image = this.images.image(imageId);
    return image === undefined ? undefined : structuredClone(image);
  }

  /** Moves an image to another state, e.g. `pending` → `available` when its registration completes. */
  setImageState(imageId: string, state: ImageState): void {
    this.images.setImageState(imageId, state);
  }

  /** Creates a placement group (its id is `pg-…`), as CreatePlacementGroup would. */
  addPlacementGroup(seed: PlacementGroupSeed): PlacementGroup {
    return this.placementGroups.add(seed);
  }

  /** Moves a placement group (by name or id) to another state, e.g. `deleted`. */
  setPlacementGroupState(nameOrId: string, state: PlacementGroupState): void {
    this.placementGroups.setState(nameOrId, state);
  }

  /**
   * Creates a capacity reservation (its id is `cr-…` unless given). Launch templates targeting it
   * launch into it while it has room; its AvailableInstanceCount falls and rises with them.
   */
  addCapacityReservation(seed: CapacityReservationSeed): CapacityReservation {
    return this.reservations.add(seed);
  }

  setOnDemandPrice(instanceType: string, usdPerHour: number): void {
    this.catalog.setOnDemandPrice(instanceType, usdPerHour);
  }

  /** Records a spot price observation; CreateFleet uses the latest one at or before now. */
  addSpotPrice(seed: SpotPriceSeed): void {
    this.catalog.addSpotPrice(seed);
  }

  /**
   * Whether CreateFleet fails the whole request for a launch template that does not exist
   * (`request`, the default) or reports it per override in the fleet's Errors[] (`fleet-errors`).
   */
  setMissingLaunchTemplateAnswer(answer: MissingLaunchTemplateAnswer): void {
    this.fleet.missingLaunchTemplate = answer;
  }

  /**
   * Makes CreateFleet refuse launch templates naming an instance profile `iam` does not have
   * (a FakeIam, or anything with its `instanceProfile(name)`), as EC2 checks against IAM.
   */
  useIam(iam: InstanceProfileDirectory): void {
    this.iam.directory = iam;
  }

  /** The instance as DescribeInstances would show it now, or undefined once it is gone. */
  instance(instanceId: string): Instance | undefined {
    return this.instances.instance(instanceId);
  }

  /** Every instance DescribeInstances would show now. */
  listInstances(): Instance[] {
    return this.instances.list();
  }

  /** Tags applied to the volumes of an instance (TagSpecifications with ResourceType volume). */
  volumeTags(instanceId: string): Tag[] {
    return this.instances.volumeTags(instanceId);
  }

  /**
   * The user data (base64) the instance was launched with, as DescribeInstanceAttribute
   * `userData` returns it: what the instance's bootstrap (the kubelet stand-in) reads.
   */
  instanceUserData(instanceId: string): string | undefined {
    return this.instances.userData(instanceId);
  }

  /** The data a launch template was created with, by name or id. */
  launchTemplateData(nameOrId: string): RequestLaunchTemplateData | undefined {
    const record =
      this.templates.find({ LaunchTemplateId: nameOrId }) ??
      this.templates.find({ LaunchTemplateName: nameOrId });
    return record === undefined ? undefined : structuredClone(record.data);
  }

  /**
   * Launches an instance outside any fleet, as someone else's RunInstances would (scenario setup:
   * an instance launched behind podlift's back). Not logged. Throws for a type EC2 does not sell.
   */
  launchOutside(seed: {
    readonly instanceType: string;
    readonly availabilityZone?: string;
    readonly capacityType?: CapacityType;
    readonly tags?: readonly Tag[];
    /** A capacity reservation it takes a slot of (someone else's launch into it). */
    readonly capacityReservationId?: string;
  }): string {
    const info = this.catalog.info(seed.instanceType);
    if (info === undefined) throw new Error(`launchOutside: EC2 sells no ${seed.instanceType}`);
    const reservation =
      seed.capacityReservationId === undefined
        ? undefined
        : this.reservations.find(seed.capacityReservationId);
    return this.instances.launch({
      ...(reservation === undefined
        ? {}
        : {
            capacityReservation: {
              id: reservation.CapacityReservationId!,
              type: reservation.ReservationType === 'capacity-block' ? 'capacity-block' : 'default',
              preference: 'capacity-reservations-only',
            },
          }),
      instanceType: seed.instanceType,
      availabilityZone: seed.availabilityZone ?? this.availabilityZones[0],
      capacityType: seed.capacityType ?? 'on-demand',
      info,
      data: {},
      imageId: undefined,
      subnet: undefined,
      tags: [...(seed.tags ?? [])],
      volumeTags: [],
      reservationId: `r-${this.context.hexId(17)}`,
      launchIndex: 0,
    });
  }

  /**
   * Reclaims a spot instance as EC2 does: the interruption notice is given now and the
   * instance starts shutting down `noticeMs` later (two minutes by default), with state
   * reason `Server.SpotInstanceTermination`. Emitting the EventBridge warning is the caller's job.
   */
  reclaimSpot(instanceId: string, noticeMs = 120_000): SpotReclaim {
    return this.instances.reclaimSpot(instanceId, noticeMs);
  }

  /**
   * Retires an instance at `at` (epoch ms): it shuts down then with state reason
   * `Server.ScheduledStop`. Emitting the AWS Health event is the caller's job.
   */
  retire(instanceId: string, at: number): void {
    this.instances.retire(instanceId, at);
  }

  /**
   * Sets a running instance's instance and/or system status check (`impaired` from now on,
   * back to `ok`, …), as DescribeInstanceStatus then reports it.
   */
  setInstanceStatus(instanceId: string, change: InstanceStatusChange): void {
    this.instanceStatus.setInstanceStatus(instanceId, change);
  }

  /** The summary of an instance's instance and system status checks (`ok` until set otherwise). */
  instanceChecks(instanceId: string): { readonly instance: SummaryStatus; readonly system: SummaryStatus } {
    return this.instanceStatus.checks(instanceId);
  }

  /** Schedules an event (instance-retirement, system-maintenance, …) DescribeInstanceStatus reports. */
  scheduleInstanceEvent(instanceId: string, seed: InstanceEventSeed): string {
    return this.instanceStatus.scheduleInstanceEvent(instanceId, seed);
  }

  // ── Operations: each family answers its own; callable directly to seed or inspect ────────

  describeInstanceTypes(
    input: DescribeInstanceTypesCommandInput,
  ): OperationOutput<DescribeInstanceTypesCommandOutput> {
    return this.catalog.describeInstanceTypes(input);
  }

  describeInstanceTypeOfferings(
    input: DescribeInstanceTypeOfferingsCommandInput,
  ): OperationOutput<DescribeInstanceTypeOfferingsCommandOutput> {
    return this.catalog.describeInstanceTypeOfferings(input);
  }

  describeSpotPriceHistory(
    input: DescribeSpotPriceHistoryCommandInput,
  ): OperationOutput<DescribeSpotPriceHistoryCommandOutput> {
    return this.catalog.describeSpotPriceHistory(input);
  }

  describeSubnets(input: DescribeSubnetsCommandInput): OperationOutput<DescribeSubnetsCommandOutput> {
    return this.network.describeSubnets(input);
  }

  describeSecurityGroups(
    input: DescribeSecurityGroupsCommandInput,
  ): OperationOutput<DescribeSecurityGroupsCommandOutput> {
    return this.network.describeSecurityGroups(input);
  }

  describeImages(input: DescribeImagesCommandInput): OperationOutput<DescribeImagesCommandOutput> {
    return this.images.describeImages(input);
  }

  describePlacementGroups(
    input: DescribePlacementGroupsCommandInput,
  ): OperationOutput<DescribePlacementGroupsCommandOutput> {
    return this.placementGroups.describePlacementGroups(input);
  }

  describeCapacityReservations(
    input: DescribeCapacityReservationsCommandInput,
  ): OperationOutput<DescribeCapacityReservationsCommandOutput> {
    return this.reservations.describeCapacityReservations(input);
  }

  createLaunchTemplate(
    input: CreateLaunchTemplateCommandInput,
  ): OperationOutput<CreateLaunchTemplateCommandOutput> {
    return this.templates.createLaunchTemplate(input);
  }

  describeLaunchTemplates(
    input: DescribeLaunchTemplatesCommandInput,
  ): OperationOutput<DescribeLaunchTemplatesCommandOutput> {
    return this.templates.describeLaunchTemplates(input);
  }

  deleteLaunchTemplate(
    input: DeleteLaunchTemplateCommandInput,
  ): OperationOutput<DeleteLaunchTemplateCommandOutput> {
    return this.templates.deleteLaunchTemplate(input);
  }

  createFleet(input: CreateFleetCommandInput): OperationOutput<CreateFleetCommandOutput> {
    return this.fleet.createFleet(input);
  }

  describeInstances(input: DescribeInstancesCommandInput): OperationOutput<DescribeInstancesCommandOutput> {
    return this.instances.describeInstances(input);
  }

  describeInstanceStatus(
    input: DescribeInstanceStatusCommandInput,
  ): OperationOutput<DescribeInstanceStatusCommandOutput> {
    return this.instanceStatus.describeInstanceStatus(input);
  }

  terminateInstances(
    input: TerminateInstancesCommandInput,
  ): OperationOutput<TerminateInstancesCommandOutput> {
    return this.instances.terminateInstances(input);
  }

  createTags(input: CreateTagsCommandInput): OperationOutput<CreateTagsCommandOutput> {
    return createTags(input, (id) => this.taggable(id), this.context.fail);
  }

  protected override authorizationRequests(operation: string, input: object): AuthorizationRequest[] {
    return ec2AuthorizationRequests(
      {
        region: this.region,
        accountId: this.accountId,
        launchTemplate: (key) => this.templates.find(key),
        instance: (id) => this.instances.instance(id),
        tagsOf: (id) => this.taggable(id)?.Tags,
        instanceProfileRole: (profile) => {
          const name = profile.Name ?? profile.Arn?.slice(profile.Arn.lastIndexOf('/') + 1);
          const found = name === undefined ? undefined : this.iam.directory?.instanceProfile(name);
          return (found as { Roles?: { Arn?: string }[] } | undefined)?.Roles?.[0]?.Arn;
        },
      },
      operation,
      input,
    );
  }

  protected override requestedRegion(): string {
    return this.region;
  }

  /** EC2 refuses with `UnauthorizedOperation` (HTTP 403) and an encoded authorization failure message. */
  protected override accessDenied(caller: Caller, denial: Denial): Error {
    return this.errors.create({
      name: 'UnauthorizedOperation',
      message: unauthorizedOperationMessage(caller, denial),
      fault: 'client',
      httpStatusCode: 403,
    });
  }

  private seed(options: FakeEc2Options): void {
    this.catalog.addInstanceTypes(options.instanceTypes ?? []);
    if (options.offerings !== undefined) this.catalog.setOfferings(options.offerings);
    for (const subnet of options.subnets ?? []) this.network.addSubnet(subnet);
    for (const group of options.securityGroups ?? []) this.network.addSecurityGroup(group);
    for (const image of options.images ?? []) this.images.addImage(image);
    for (const group of options.placementGroups ?? []) this.placementGroups.add(group);
    for (const reservation of options.capacityReservations ?? []) this.reservations.add(reservation);
    for (const [type, price] of Object.entries(options.onDemandPrices ?? {}))
      this.catalog.setOnDemandPrice(type, price);
    for (const price of options.spotPrices ?? []) this.catalog.addSpotPrice(price);
  }

  private taggable(id: string): Taggable | undefined {
    return (
      this.instances.taggable(id) ??
      this.network.subnet(id)?.subnet ??
      this.network.securityGroup(id) ??
      this.images.image(id) ??
      this.templates.find({ LaunchTemplateId: id })?.template
    );
  }
}
