import { type CreateFleetCommandInput, CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  Ec2InstanceLauncher,
  type Ec2InstanceLauncherOptions,
} from '../../../shared/aws/fleet/instance-launcher';
import { Ec2LaunchTemplateProvider } from '../../../shared/aws/launch-templates/launch-template-provider';
import type { RetryPolicy } from '../../../shared/aws/retry';
import { bundledInstanceTypes } from '../../../shared/core/catalog/bundled';
import type { Catalog, InstanceType, InstanceTypeOption } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { UnavailableOfferings } from '../../../shared/core/catalog/unavailable-offerings';
import type {
  EC2NodeClassStatus,
  ResolvedAmi,
  ResolvedSubnet,
} from '../../../shared/core/model/ec2nodeclass-status';
import { LABEL_ARCH, LABEL_INSTANCE_GPU_COUNT } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { LaunchRequest } from '../../../shared/core/ports/cloud';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { FakeEc2, instanceTypeInfo } from '../../fakes/aws/ec2';
import { FakeIam } from '../../fakes/aws/fake-iam';
import { FakeLaunchTemplates } from '../../fakes/ports/fake-launch-templates';
import { VirtualTime, waitsAtOnce } from '../../virtual-time';
import { nodeClaim, nodeClass, nodePool } from '../builders';
import {
  AL2023_IMAGES,
  AMI_AMD64,
  AMI_ARM64,
  AMI_NVIDIA,
  clusterInfo,
  ON_DEMAND_PRICES,
  REGION,
  SECURITY_GROUP_NODES,
  SUBNET_A,
  SUBNET_A_SMALL,
  SUBNET_B,
  ZONES,
} from './region';

/*
 * The launch world: the region, seen the same on both sides of the SDK client. The catalog
 * podlift plans from and the FakeEc2 it launches into agree on types, zones and prices.
 * Spot is cheapest for m6g.large (arm64), then m5.large, then c5.xlarge; g4dn.xlarge has a GPU.
 */

/** The instance profile of the launch world's nodes (known to its EC2). */
export const INSTANCE_PROFILE = 'demo_1234567890';

/** The instance types of the launch world. */
export const LAUNCH_TYPES = ['m6g.large', 'm5.large', 'c5.xlarge', 'g4dn.xlarge'] as const;
/** Spot per type, then per zone: a zone's price is the type's price plus 0.001 per zone letter after a. */
export const SPOT: Readonly<Record<string, number>> = {
  'm6g.large': 0.03,
  'm5.large': 0.035,
  'c5.xlarge': 0.07,
  'g4dn.xlarge': 0.2,
};

/** The spot price of `type` in `zone`. */
export function spotPrice(type: string, zone: string): number {
  return Number((SPOT[type]! + 0.001 * ZONES.indexOf(zone as (typeof ZONES)[number])).toFixed(4));
}

/** The catalog podlift plans with. */
export function launchCatalog(): Catalog {
  const types = bundledInstanceTypes().filter((t) => (LAUNCH_TYPES as readonly string[]).includes(t.name));
  return {
    region: REGION,
    zones: ZONES,
    types,
    prices: {
      onDemand: new Map(Object.entries(ON_DEMAND_PRICES)),
      spot: new Map(LAUNCH_TYPES.map((t) => [t, new Map(ZONES.map((z) => [z, spotPrice(t, z)]))])),
    },
  };
}

/** The catalog's instance types by name. */
export function launchInstanceTypes(): ReadonlyMap<string, InstanceType> {
  return new Map(resolveInstanceTypes(launchCatalog(), undefined).map((it) => [it.name, it]));
}

/** A clock-driven retry policy: sleeping advances the clock, jitter is always half the cap. */
export function clockRetryPolicy(
  clock: VirtualTime,
  options: Partial<RetryPolicy> & { deadlineMs?: number } = {},
) {
  const sleeps: number[] = [];
  const deadline = clock.now() + (options.deadlineMs ?? 60_000);
  const policy: RetryPolicy = {
    timers: waitsAtOnce(clock, sleeps),
    random: () => 0.5,
    remainingTimeMs: () => deadline - clock.now(),
    ...options,
  };
  return { policy, sleeps };
}

/** What {@link launchWorld} builds. */
export interface LaunchWorld {
  readonly clock: VirtualTime;
  readonly fake: FakeEc2;
  /** A real EC2Client answered by `fake`. */
  readonly ec2: EC2Client;
  /** Three templates (amd64, arm64, NVIDIA) already created in `fake`. */
  readonly templates: FakeLaunchTemplates;
  /** The launch catalog's instance types by name. */
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
  readonly unavailable: UnavailableOfferings;
}

/**
 * The EC2 side: a FakeEc2 with the launch catalog's types, three subnets with room for 4,000,
 * 50 and 1,000 instances, the nodes' security group, the AL2023 images and prices behind a real
 * client, an account whose IAM has the instance profile {@link INSTANCE_PROFILE} (and no other),
 * and a launch template for each image. The call log starts empty.
 */
export async function launchWorld(): Promise<LaunchWorld> {
  const clock = new VirtualTime();
  const catalog = launchCatalog();
  const iam = new FakeIam({ clock });
  iam.createInstanceProfile({ InstanceProfileName: INSTANCE_PROFILE });
  const fake = new FakeEc2({
    clock,
    iam,
    availabilityZones: ZONES,
    instanceTypes: catalog.types.map((t) =>
      instanceTypeInfo({
        name: t.name,
        vcpu: t.vcpu,
        memoryMiB: t.memoryMiB,
        architecture: t.architecture,
        gpu: t.gpu,
      }),
    ),
    subnets: [
      { id: SUBNET_A, availabilityZone: 'us-east-1a', availableIpAddressCount: 4000 },
      { id: SUBNET_A_SMALL, availabilityZone: 'us-east-1a', availableIpAddressCount: 50 },
      { id: SUBNET_B, availabilityZone: 'us-east-1b', availableIpAddressCount: 1000 },
    ],
    securityGroups: [{ id: SECURITY_GROUP_NODES, name: 'nodes' }],
    images: [AL2023_IMAGES.amd64, AL2023_IMAGES.arm64, AL2023_IMAGES.nvidia],
    onDemandPrices: ON_DEMAND_PRICES,
    spotPrices: LAUNCH_TYPES.flatMap((t) =>
      ZONES.map((z) => ({ instanceType: t, availabilityZone: z, price: spotPrice(t, z), timestamp: 0 })),
    ),
  });
  const ec2 = withFake(new EC2Client(clientConfig), fake);
  const template = async (name: string, imageId: string, requirements: NodeSelectorRequirement[]) => {
    const out = await ec2.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: name,
        LaunchTemplateData: { ImageId: imageId, SecurityGroupIds: [] },
      }),
    );
    return {
      launchTemplateName: name,
      launchTemplateId: out.LaunchTemplate!.LaunchTemplateId!,
      imageId,
      requirements,
    };
  };
  const templates = new FakeLaunchTemplates([
    await template('podlift-amd64', AMI_AMD64, [
      { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
      { key: LABEL_INSTANCE_GPU_COUNT, operator: 'DoesNotExist' },
    ]),
    await template('podlift-arm64', AMI_ARM64, [{ key: LABEL_ARCH, operator: 'In', values: ['arm64'] }]),
    await template('podlift-nvidia', AMI_NVIDIA, [
      { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
      { key: LABEL_INSTANCE_GPU_COUNT, operator: 'Exists' },
    ]),
  ]);
  fake.calls.length = 0;
  const instanceTypes = launchInstanceTypes();
  const unavailable = new UnavailableOfferings(clock);
  return { clock, fake, ec2, templates, instanceTypes, unavailable };
}

/**
 * An instance launcher on the world's EC2, templates, catalog, unavailable offerings and clock,
 * for the cluster `demo`; `options` replace what they name.
 */
export function worldLauncher(
  world: LaunchWorld,
  retry: RetryPolicy,
  options: Partial<Ec2InstanceLauncherOptions> = {},
): Ec2InstanceLauncher {
  return new Ec2InstanceLauncher({
    ec2: world.ec2,
    cluster: clusterInfo,
    launchTemplates: world.templates,
    instanceTypes: world.instanceTypes,
    unavailableOfferings: world.unavailable,
    retry,
    clock: world.clock,
    ...options,
  });
}

/** What {@link launcherWorld} builds: the launch world, a launcher on it, and what it did. */
export interface LauncherWorld extends LaunchWorld {
  readonly launcher: Ec2InstanceLauncher;
  readonly policy: RetryPolicy;
  /** Backoffs the launcher slept, in ms. */
  readonly sleeps: readonly number[];
  /** Inputs of the CreateFleet calls, oldest first. */
  fleetCalls(): CreateFleetCommandInput[];
  /** The error name each CreateFleet call failed with, undefined for an answer. */
  fleetErrors(): (string | undefined)[];
}

/** The launch world with a launcher on it whose retries sleep on the world's clock. */
export async function launcherWorld(
  retry: Partial<RetryPolicy> & { deadlineMs?: number } = {},
): Promise<LauncherWorld> {
  const world = await launchWorld();
  const { policy, sleeps } = clockRetryPolicy(world.clock, retry);
  return {
    ...world,
    launcher: worldLauncher(world, policy),
    policy,
    sleeps,
    fleetCalls: () => world.fake.callsTo('CreateFleet') as CreateFleetCommandInput[],
    fleetErrors: () =>
      world.fake.calls.filter((c) => c.operation === 'CreateFleet').map((c) => c.error?.name),
  };
}

/** Resolved subnets as the node class resolver reports them. */
export const RESOLVED_SUBNETS: readonly ResolvedSubnet[] = [
  { id: SUBNET_A, zone: 'us-east-1a', availableIpAddressCount: 4000 },
  { id: SUBNET_A_SMALL, zone: 'us-east-1a', availableIpAddressCount: 50 },
  { id: SUBNET_B, zone: 'us-east-1b', availableIpAddressCount: 1000 },
];

/** The world's AL2023 images as AMI resolution labels them. */
export const RESOLVED_AMIS: readonly ResolvedAmi[] = [
  {
    id: AMI_AMD64,
    deprecated: false,
    requirements: [
      { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
      { key: LABEL_INSTANCE_GPU_COUNT, operator: 'DoesNotExist' },
    ],
  },
  {
    id: AMI_ARM64,
    deprecated: false,
    requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['arm64'] }],
  },
  {
    id: AMI_NVIDIA,
    deprecated: false,
    requirements: [
      { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
      { key: LABEL_INSTANCE_GPU_COUNT, operator: 'Exists' },
    ],
  },
];

/** Everything the real launch template provider needs of the EC2NodeClass: AMIs, security group, instance profile. */
export const RESOLVED_NODE_CLASS: EC2NodeClassStatus = {
  subnets: RESOLVED_SUBNETS,
  securityGroups: [{ id: SECURITY_GROUP_NODES }],
  amis: RESOLVED_AMIS,
  instanceProfile: INSTANCE_PROFILE,
  conditions: [],
};

/**
 * The real launch template provider on the world's EC2 and catalog, for launches whose
 * templates it creates, caches, and must create again when someone deletes them.
 */
export function worldTemplateProvider(world: LaunchWorld): Ec2LaunchTemplateProvider {
  const catalog = launchCatalog();
  return new Ec2LaunchTemplateProvider({
    ec2: world.ec2,
    catalog: { catalog: async () => catalog, refresh: async () => catalog },
    clock: world.clock,
    retry: clockRetryPolicy(world.clock).policy,
  });
}

/** Options of the types named, each with its cheapest offering, as the scheduler lists them. */
export function cheapestOptions(
  instanceTypes: ReadonlyMap<string, InstanceType>,
  names: readonly string[],
): InstanceTypeOption[] {
  return names.map((name) => {
    const it = instanceTypes.get(name);
    const cheapest = [...(it?.offerings ?? [])].sort((a, b) => a.price - b.price)[0];
    return {
      name,
      price: cheapest?.price ?? 0,
      capacityType: cheapest?.capacityType ?? 'on-demand',
      zone: cheapest?.zone ?? 'us-east-1a',
    };
  });
}

/** A launch request for the NodeClaim over the named types (default: all but the GPU type). */
export function launchRequest(
  instanceTypes: ReadonlyMap<string, InstanceType>,
  overrides: {
    nodeClaim?: NodeClaim;
    types?: readonly string[];
    subnets?: readonly ResolvedSubnet[];
    nodeClassTags?: Readonly<Record<string, string>>;
    /** @default no AMI, security group or instance profile: enough for the world's pre-made templates */
    resolved?: EC2NodeClassStatus;
  } = {},
): LaunchRequest {
  const resolved: EC2NodeClassStatus = {
    ...(overrides.resolved ?? { securityGroups: [], amis: [], conditions: [] }),
    subnets: overrides.subnets ?? overrides.resolved?.subnets ?? RESOLVED_SUBNETS,
  };
  return {
    nodeClaim: overrides.nodeClaim ?? nodeClaim(),
    nodePool: nodePool({ name: 'default' }),
    nodeClass: nodeClass({ name: 'default', tags: overrides.nodeClassTags ?? { team: 'platform' } }),
    resolved,
    options: cheapestOptions(instanceTypes, overrides.types ?? ['m6g.large', 'm5.large', 'c5.xlarge']),
  };
}
