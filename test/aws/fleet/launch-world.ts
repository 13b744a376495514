import { CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { RetryPolicy } from '../../../shared/aws/retry';
import { bundledInstanceTypes } from '../../../shared/core/catalog/bundled';
import type { Catalog, InstanceType, InstanceTypeOption } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { UnavailableOfferings } from '../../../shared/core/catalog/unavailable-offerings';
import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import type { EC2NodeClassStatus, ResolvedSubnet } from '../../../shared/core/model/ec2nodeclass-status';
import { LABEL_ARCH, LABEL_INSTANCE_GPU_COUNT } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { LaunchRequest } from '../../../shared/core/ports/cloud';
import type { LaunchTemplateProvider, LaunchTemplateRef } from '../../../shared/core/ports/launch-templates';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEc2, instanceTypeInfo } from '../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../sim/virtual-time';
import { nodeClaim, nodeClass, nodePool } from '../../../sim/world/builders';

/**
 * A small region for launch tests, the same on both sides of the SDK client: the catalog
 * podlift plans from and the FakeEc2 it launches into agree on types, zones and prices.
 *
 * Spot is cheapest for m6g.large (arm64), then m5.large, then c5.xlarge; g4dn.xlarge has a GPU.
 */
export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'] as const;
export const TYPES = ['m6g.large', 'm5.large', 'c5.xlarge', 'g4dn.xlarge'] as const;
export const ON_DEMAND: Readonly<Record<string, number>> = {
  'm6g.large': 0.077,
  'm5.large': 0.096,
  'c5.xlarge': 0.17,
  'g4dn.xlarge': 0.526,
};
/** Spot per type, then per zone: a zone's price is the type's price plus 0.001 per zone letter after a. */
export const SPOT: Readonly<Record<string, number>> = {
  'm6g.large': 0.03,
  'm5.large': 0.035,
  'c5.xlarge': 0.07,
  'g4dn.xlarge': 0.2,
};

export function spotPrice(type: string, zone: string): number {
  return Number((SPOT[type]! + 0.001 * ZONES.indexOf(zone as (typeof ZONES)[number])).toFixed(4));
}

export const SUBNET_A = 'subnet-0000000000000000a';
/** A second, smaller subnet in us-east-1a: never chosen while SUBNET_A has more free addresses. */
export const SUBNET_A_SMALL = 'subnet-00000000000000a02';
export const SUBNET_B = 'subnet-0000000000000000b';
export const AMI_AMD64 = 'ami-00000000000000001';
export const AMI_ARM64 = 'ami-00000000000000002';
export const AMI_NVIDIA = 'ami-00000000000000003';

/** The catalog podlift plans with. */
export function testCatalog(): Catalog {
  const types = bundledInstanceTypes().filter((t) => (TYPES as readonly string[]).includes(t.name));
  return {
    region: 'us-east-1',
    zones: ZONES,
    types,
    prices: {
      onDemand: new Map(Object.entries(ON_DEMAND)),
      spot: new Map(TYPES.map((t) => [t, new Map(ZONES.map((z) => [z, spotPrice(t, z)]))])),
    },
  };
}

/** The catalog's instance types by name. */
export function testInstanceTypes(): ReadonlyMap<string, InstanceType> {
  return new Map(resolveInstanceTypes(testCatalog(), undefined).map((it) => [it.name, it]));
}

/** A launch template provider that hands out three pre-made templates, like the real one would. */
export class FakeLaunchTemplates implements LaunchTemplateProvider {
  readonly calls: LaunchRequest[] = [];
  readonly invalidated: string[] = [];
  constructor(readonly templates: readonly LaunchTemplateRef[]) {}
  async ensure(request: LaunchRequest): Promise<readonly LaunchTemplateRef[]> {
    this.calls.push(request);
    return this.templates;
  }
  invalidate(launchTemplateName: string): void {
    this.invalidated.push(launchTemplateName);
  }
  async deleteUnreferenced(): Promise<readonly string[]> {
    return [];
  }
}

export const CLUSTER: ClusterInfo = {
  name: 'demo',
  endpoint: 'https://demo.eks.amazonaws.com',
  certificateAuthority: 'Y2E=',
  kubernetesVersion: '1.31',
  serviceCidr: '10.100.0.0/16',
  ipFamily: 'ipv4',
};

/** A clock-driven retry policy: sleeping advances the clock, jitter is always half the cap. */
export function testRetry(clock: VirtualTime, options: Partial<RetryPolicy> & { deadlineMs?: number } = {}) {
  const sleeps: number[] = [];
  const deadline = clock.now() + (options.deadlineMs ?? 60_000);
  const policy: RetryPolicy = {
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    remainingTimeMs: () => deadline - clock.now(),
    ...options,
  };
  return { policy, sleeps };
}

/** The EC2 side: a FakeEc2 with the test region's types, subnets, AMIs and prices behind a real client. */
export async function launchWorld() {
  const clock = new VirtualTime();
  const catalog = testCatalog();
  const fake = new FakeEc2({
    clock,
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
    images: [
      { id: AMI_AMD64, name: 'al2023-x86', architecture: 'x86_64', creationDate: '2025-12-01T00:00:00Z' },
      { id: AMI_ARM64, name: 'al2023-arm', architecture: 'arm64', creationDate: '2025-12-01T00:00:00Z' },
      { id: AMI_NVIDIA, name: 'al2023-nvidia', architecture: 'x86_64', creationDate: '2025-12-01T00:00:00Z' },
    ],
    onDemandPrices: ON_DEMAND,
    spotPrices: TYPES.flatMap((t) =>
      ZONES.map((z) => ({ instanceType: t, availabilityZone: z, price: spotPrice(t, z), timestamp: 0 })),
    ),
  });
  const ec2 = new EC2Client(clientConfig);
  attachFake(ec2, fake);
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
  const instanceTypes = testInstanceTypes();
  const unavailable = new UnavailableOfferings(clock);
  return { clock, fake, ec2, templates, instanceTypes, unavailable };
}

/** Resolved subnets as the node class resolver reports them. */
export const RESOLVED_SUBNETS: readonly ResolvedSubnet[] = [
  { id: SUBNET_A, zone: 'us-east-1a', availableIpAddressCount: 4000 },
  { id: SUBNET_A_SMALL, zone: 'us-east-1a', availableIpAddressCount: 50 },
  { id: SUBNET_B, zone: 'us-east-1b', availableIpAddressCount: 1000 },
];

/** Options of the types named, each with its cheapest offering, as the scheduler lists them. */
export function options(
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
  } = {},
): LaunchRequest {
  const resolved: EC2NodeClassStatus = {
    subnets: overrides.subnets ?? RESOLVED_SUBNETS,
    securityGroups: [],
    amis: [],
    conditions: [],
  };
  return {
    nodeClaim: overrides.nodeClaim ?? nodeClaim(),
    nodePool: nodePool({ name: 'default' }),
    nodeClass: nodeClass({ name: 'default', tags: overrides.nodeClassTags ?? { team: 'platform' } }),
    resolved,
    options: options(instanceTypes, overrides.types ?? ['m6g.large', 'm5.large', 'c5.xlarge']),
  };
}
