import { EC2Client } from '@aws-sdk/client-ec2';
import { Ec2LaunchTemplateProvider } from '../../../shared/aws/launch-templates/launch-template-provider';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import type { CapacityType } from '../../../shared/core/model/capacity-type';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import type { EC2NodeClassStatus, ResolvedAmi } from '../../../shared/core/model/ec2nodeclass-status';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { InstanceCatalogPort, LaunchRequest } from '../../../shared/core/ports/cloud';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { FakeEc2 } from '../../fakes/aws/ec2';
import { VirtualTime } from '../../virtual-time';
import { nodeClaim, nodeClass, nodePool } from '../builders';
import { clockRetryPolicy } from './launch-world';
import { REGION, SECURITY_GROUP_ML, SECURITY_GROUP_NODES } from './region';

/** The real instance types the tests launch, from the bundled us-east-1 catalog (all of it resolves too slowly per test). */
const TYPES = new Set([
  'm5.large',
  'm5.xlarge',
  'm5.2xlarge',
  'c5.large',
  'm6g.large',
  'g5.xlarge',
  'g4dn.xlarge',
]);
const bundled = loadBundledCatalog(REGION);
const catalog = { ...bundled, types: bundled.types.filter((t) => TYPES.has(t.name)) };
/** Those types as the provider's instance type source. */
export const catalogPort: InstanceCatalogPort = {
  catalog: async () => catalog,
  refresh: async () => catalog,
};

const NO_GPU = { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' } as const;
const NO_ACCELERATOR = {
  key: 'karpenter.k8s.aws/instance-accelerator-count',
  operator: 'DoesNotExist',
} as const;

/** The AL2023 variants as Karpenter's AMI resolution labels them: standard amd64, NVIDIA amd64, standard arm64. */
export const amis = {
  standard: {
    id: 'ami-0standard0000amd64',
    name: 'amazon-eks-node-al2023-x86_64-standard-1.31',
    deprecated: false,
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, NO_GPU, NO_ACCELERATOR],
  },
  nvidia: {
    id: 'ami-0nvidia00000amd64',
    name: 'amazon-eks-node-al2023-x86_64-nvidia-1.31',
    deprecated: false,
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' },
    ],
  },
  arm: {
    id: 'ami-0standard0000arm64',
    name: 'amazon-eks-node-al2023-arm64-standard-1.31',
    deprecated: false,
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }, NO_GPU, NO_ACCELERATOR],
  },
} satisfies Record<string, ResolvedAmi>;

/** What the default EC2NodeClass resolved to: two security groups (unsorted), three AMIs, an instance profile. */
export function resolved(overrides: Partial<EC2NodeClassStatus> = {}): EC2NodeClassStatus {
  return {
    subnets: [{ id: 'subnet-0a', zone: 'us-east-1a', availableIpAddressCount: 100 }],
    securityGroups: [{ id: SECURITY_GROUP_ML }, { id: SECURITY_GROUP_NODES }],
    amis: [amis.standard, amis.nvidia, amis.arm],
    instanceProfile: 'demo_1234567890',
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    ...overrides,
  };
}

/** Options of {@link launchRequest}. */
export interface LaunchRequestOptions {
  readonly nodeClass?: EC2NodeClass;
  readonly nodeClaim?: NodeClaim;
  readonly nodePool?: string;
  readonly resolved?: EC2NodeClassStatus;
  /** Instance type names, cheapest first. @default m5.large */
  readonly types?: readonly string[];
  readonly capacityType?: CapacityType;
  /** Per-type capacity types, overriding `capacityType`. */
  readonly capacityTypes?: Readonly<Record<string, CapacityType>>;
}

/** A LaunchRequest for the default NodeClaim, NodePool and EC2NodeClass. */
export function launchRequest(options: LaunchRequestOptions = {}): LaunchRequest {
  const pool = options.nodePool ?? 'default';
  return {
    nodeClaim: options.nodeClaim ?? nodeClaim({ nodePool: pool }),
    nodePool: nodePool({ name: pool }),
    nodeClass: options.nodeClass ?? nodeClass(),
    resolved: options.resolved ?? resolved(),
    options: (options.types ?? ['m5.large']).map((name, i) => ({
      name,
      price: 0.05 + i / 100,
      capacityType: options.capacityTypes?.[name] ?? options.capacityType ?? 'spot',
      zone: 'us-east-1a',
    })),
  };
}

/** Options of {@link launchTemplateWorld}: the provider's. */
export interface LaunchTemplateWorldOptions {
  readonly cacheTtlMs?: number;
  readonly deleteGraceMs?: number;
  /** Attempts per EC2 call, the first included. @default the retry policy's (8) */
  readonly maxAttempts?: number;
  /** The ReservedCapacity gate (LaunchModeTargeted). @default true */
  readonly reservedCapacity?: boolean;
}

/** What {@link launchTemplateWorld} builds. */
export interface LaunchTemplateWorld {
  readonly clock: VirtualTime;
  readonly fake: FakeEc2;
  /** A real EC2Client answered by `fake`. */
  readonly ec2: EC2Client;
  readonly provider: Ec2LaunchTemplateProvider;
  /** The backoffs the providers slept, in ms, on the virtual clock. */
  readonly sleeps: readonly number[];
  /** Another provider on the same EC2, as a second process would have, with its own cache. */
  readonly anotherProvider: () => Ec2LaunchTemplateProvider;
}

/**
 * An empty FakeEc2 behind a real EC2Client, and a launch template provider on it whose retries
 * sleep on the virtual clock.
 */
export function launchTemplateWorld(options: LaunchTemplateWorldOptions = {}): LaunchTemplateWorld {
  const clock = new VirtualTime();
  const fake = new FakeEc2({ clock });
  const ec2 = withFake(new EC2Client(clientConfig), fake);
  const { maxAttempts, ...providerOptions } = options;
  // No invocation deadline: tests advance the clock by hours between calls of one provider.
  const { policy, sleeps } = clockRetryPolicy(clock, {
    deadlineMs: Number.POSITIVE_INFINITY,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });
  const anotherProvider = () =>
    new Ec2LaunchTemplateProvider({ ec2, catalog: catalogPort, clock, retry: policy, ...providerOptions });
  return { clock, fake, ec2, provider: anotherProvider(), sleeps, anotherProvider };
}
