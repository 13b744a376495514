import { type AwsClients, awsClients } from '../../functions/aws-clients';
import { composePorts, type Ports } from '../../functions/compose';
import { type PodliftConfig, parseFunctionConfig } from '../../functions/config';
import { loadBundledCatalog } from '../../shared/core/catalog/bundled';
import type { FunctionName } from '../../shared/core/contracts/routing';
import { staticKubeConfig } from '../../shared/kube/kubeconfig-source';
import { withFake } from '../fakes/aws/attach';
import { FakeEc2, instanceTypeInfo, type SpotPriceSeed } from '../fakes/aws/ec2';
import { FakeEks } from '../fakes/aws/fake-eks';
import { FakeEventBridge } from '../fakes/aws/fake-eventbridge';
import { FakeIam } from '../fakes/aws/fake-iam';
import { FakePricing } from '../fakes/aws/fake-pricing';
import { FakeSsm } from '../fakes/aws/fake-ssm';
import type { Caller } from '../fakes/aws/iam-policy/authorization';
import { type StackPolicies, type StackRole, stackPolicies } from '../fakes/aws/iam-policy/stack-policies';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../fakes/kube';
import { VirtualTime } from '../virtual-time';
import { bundledSpec } from './aws/bundled-spec';
import { al2023Path, amiParameter, ROLE, windowsPath } from './aws/node-class-world';
import {
  AL2023_IMAGES,
  CLUSTER,
  DISCOVERY,
  K8S,
  REGION,
  SECURITY_GROUP_NODES,
  WINDOWS_IMAGES,
  ZONES,
} from './aws/region';
import { SequencedIo } from './io-sequencer';
import { functionIdentity, podliftAuthorization, WATCHER_IDENTITY } from './kube-identities';
import { seeded, seededUuids } from './seeded-random';

/**
 * The instance types a cluster world sells unless told otherwise: Karpenter's getting-started
 * families (m5, c5, r5 and their d variants, as in examples/inflate.yaml), Graviton (m6g, c6g,
 * r6g), burstable t3, and one GPU family, in the sizes small clusters use.
 */
export const CLUSTER_WORLD_TYPES: readonly string[] = [
  ...['large', 'xlarge', '2xlarge', '4xlarge'].flatMap((size) =>
    ['m5', 'm5d', 'c5', 'c5d', 'r5', 'm6g', 'c6g', 'r6g'].map((family) => `${family}.${size}`),
  ),
  't3.medium',
  't3.large',
  't3.xlarge',
  'g4dn.xlarge',
  'g4dn.2xlarge',
];

/** Options of {@link clusterWorld}. */
export interface ClusterWorldOptions {
  /** @default a fresh VirtualTime at the virtual epoch */
  readonly time?: VirtualTime;
  /** Instance types EC2 sells, by name, from the bundled catalog. @default CLUSTER_WORLD_TYPES */
  readonly instanceTypes?: readonly string[];
  /** The API server's Kubernetes version. @default the fake server's default */
  readonly kubernetesVersion?: string;
  /** Environment overrides of the functions' configuration (e.g. `{ REBALANCE_ACTION: 'replace' }`). */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Which loop the ports are composed for: names the configuration's errors and, for a
   * function, is whom {@link ClusterWorld.ports} authenticate as to the API server.
   * @default 'test' (ports authenticate as the provisioner)
   */
  readonly loop?: string;
  /**
   * Seeds what the fakes would otherwise draw at random — the API server's uids and
   * generateName suffixes (NodeClaim and pod names) — so a world replays with its seed.
   * @default 0
   */
  readonly seed?: number;
  /**
   * The identity policies the fakes enforce, by role: every AWS call a function (or the
   * watcher) makes is evaluated against its role's policies and refused as AWS would refuse it.
   * `false` turns the evaluation off (fakes answer every caller).
   * @default the policies of podlift's own stack, synthesized from infra/ ({@link stackPolicies})
   */
  readonly policies?: StackPolicies | false;
}

/** Who makes AWS calls in a world: a function (by its role) or the watcher. */
export type WorldPrincipal = FunctionName | 'watcher';

/** The account every world plays in (the fakes' default). */
export const WORLD_ACCOUNT = '123456789012';

/** The stack role each principal runs as (infra/podlift.ts: the three launching functions share one). */
export function roleOf(principal: WorldPrincipal | 'test' | string): StackRole {
  if (principal === 'termination') return 'termination';
  if (principal === 'watcher') return 'watcher';
  return 'functions';
}

/** Every fake of a {@link clusterWorld}, to seed, inspect and break. */
export interface ClusterWorldFakes {
  readonly kube: FakeKubeApiServer;
  readonly ec2: FakeEc2;
  readonly ssm: FakeSsm;
  readonly iam: FakeIam;
  readonly pricing: FakePricing;
  readonly eks: FakeEks;
  readonly eventBridge: FakeEventBridge;
}

/** What {@link clusterWorld} builds. */
export interface ClusterWorld {
  readonly time: VirtualTime;
  readonly fakes: ClusterWorldFakes;
  /**
   * The order the API server serves the functions' (and the simulator's watcher's) requests
   * in, and the wait for their I/O to settle; `io.kubeConfig` numbers a client's requests.
   */
  readonly io: SequencedIo;
  /** Real SDK clients answered by the fakes, as the role of `loop` ({@link roleOf}). */
  readonly clients: AwsClients;
  /** The policies the fakes enforce, or false when evaluation is off. */
  readonly policies: StackPolicies | false;
  /**
   * Clients no policy limits: the account's administrator, for a test or scenario that sets up
   * or inspects state behind podlift's back (another cluster's launch template, a listing).
   */
  readonly adminClients: AwsClients;
  /** Clients as `principal`'s role: what that Lambda (or the watcher) would hold. */
  clientsOf(principal: WorldPrincipal): AwsClients;
  readonly config: PodliftConfig;
  /**
   * The functions' ports, composed exactly as in Lambda, over the fakes, authenticating to the
   * API server as the `loop` function (the provisioner unless `loop` names another).
   */
  readonly ports: Ports;
  /**
   * Composes another set of ports over the same world: a second Lambda container, cold caches;
   * with `principal`, its AWS clients carry that principal's role and it authenticates to the API
   * server as that principal (default: as {@link ClusterWorld.ports} do).
   */
  composeAgain(principal?: WorldPrincipal): Ports;
  /** Stops the API server. */
  close(): Promise<void>;
}

/**
 * A whole region and cluster behind the real clients: EC2 selling `instanceTypes` in three
 * zones at the bundled on-demand prices and spot estimates, a discovery-tagged subnet per zone
 * and the nodes' security group, the AL2023 AMIs and their public SSM parameters, the node role
 * in IAM, the Pricing API, the EKS cluster `demo`, its EventBridge bus, and a Kubernetes API
 * server on loopback — all on one virtual timeline — with the functions' ports composed over
 * them by the same `composePorts` Lambda uses. Loop tests and the simulator start here.
 */
export async function clusterWorld(options: ClusterWorldOptions = {}): Promise<ClusterWorld> {
  const time = options.time ?? new VirtualTime();
  const names = options.instanceTypes ?? CLUSTER_WORLD_TYPES;
  const catalog = loadBundledCatalog(REGION);
  const seed = options.seed ?? 0;
  const io = new SequencedIo();
  // Virtual time waits for the real HTTP to the API server to settle before it moves.
  time.settleWith(() => io.idle());
  // RBAC from manifests/: every function and the watcher get exactly what the cluster grants them.
  const kube = await startFakeKubeApiServer({
    time,
    authorization: podliftAuthorization(),
    admit: (request, response) => io.admit(request, response),
    newUid: seededUuids(seed),
    random: seeded(seed),
    ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}),
  });
  const onDemand = Object.fromEntries(
    names.flatMap((name) => {
      const price = catalog.prices.onDemand.get(name);
      return price === undefined ? [] : [[name, price] as const];
    }),
  );
  const spotPrices: SpotPriceSeed[] = names.flatMap((name) =>
    [...(catalog.prices.spot.get(name) ?? new Map<string, number>())].map(([zone, price]) => ({
      instanceType: name,
      availabilityZone: zone,
      price,
      timestamp: 0,
    })),
  );
  const iam = new FakeIam({ clock: time, roles: [{ name: ROLE }, { name: 'KarpenterNodeRole' }] });
  const fakes: ClusterWorldFakes = {
    kube,
    ec2: new FakeEc2({
      clock: time,
      region: REGION,
      availabilityZones: ZONES,
      instanceTypes: names.map((name) => instanceTypeInfo(bundledSpec(name))),
      subnets: ZONES.map((zone, i) => ({
        id: `subnet-${String(i + 1).padStart(17, '0')}`,
        availabilityZone: zone,
        availableIpAddressCount: 4000,
        tags: DISCOVERY,
      })),
      securityGroups: [{ id: SECURITY_GROUP_NODES, name: 'nodes', tags: DISCOVERY }],
      images: [
        AL2023_IMAGES.amd64,
        AL2023_IMAGES.arm64,
        AL2023_IMAGES.nvidia,
        WINDOWS_IMAGES.windows2019,
        WINDOWS_IMAGES.windows2022,
      ],
      onDemandPrices: onDemand,
      spotPrices,
      iam,
    }),
    ssm: new FakeSsm({
      clock: time,
      region: REGION,
      parameters: [
        amiParameter(al2023Path('x86_64', 'standard'), AL2023_IMAGES.amd64.id),
        amiParameter(al2023Path('arm64', 'standard'), AL2023_IMAGES.arm64.id),
        amiParameter(al2023Path('x86_64', 'nvidia'), AL2023_IMAGES.nvidia.id),
        amiParameter(windowsPath('2019'), WINDOWS_IMAGES.windows2019.id),
        amiParameter(windowsPath('2022'), WINDOWS_IMAGES.windows2022.id),
      ],
    }),
    iam,
    pricing: new FakePricing({
      clock: time,
      prices: Object.entries(onDemand).map(([instanceType, usdPerHour]) => ({
        instanceType,
        regionCode: REGION,
        usdPerHour,
      })),
    }),
    eks: new FakeEks({ clock: time, region: REGION, clusters: [{ name: CLUSTER, version: K8S }] }),
    eventBridge: new FakeEventBridge({ clock: time, region: REGION }),
  };
  const policies = options.policies ?? (await worldStackPolicies());
  const clientsAs = (role: StackRole | undefined): AwsClients => {
    const caller: Caller | undefined =
      policies === false || role === undefined
        ? undefined
        : {
            arn: `arn:aws:sts::${WORLD_ACCOUNT}:assumed-role/podlift-${role}/${role}`,
            policies: policies[role],
          };
    const raw = awsClients(REGION, { accessKeyId: 'x', secretAccessKey: 'y' });
    return {
      ec2: withFake(raw.ec2, fakes.ec2, caller),
      ssm: withFake(raw.ssm, fakes.ssm, caller),
      iam: withFake(raw.iam, fakes.iam, caller),
      pricing: withFake(raw.pricing, fakes.pricing, caller),
      eks: withFake(raw.eks, fakes.eks, caller),
      eventBridge: withFake(raw.eventBridge, fakes.eventBridge, caller),
    };
  };
  const loop = options.loop ?? 'test';
  const clients = clientsAs(roleOf(loop));
  const config = parseFunctionConfig(
    {
      CLUSTER_NAME: CLUSTER,
      AWS_REGION: REGION,
      EVENT_BUS_NAME: `podlift-${CLUSTER}`,
      ...options.environment,
    },
    loop,
  );
  const defaultFunction: FunctionName = isFunctionName(loop) ? loop : 'provisioner';
  const kubeIdentity = (principal: WorldPrincipal) =>
    principal === 'watcher' ? WATCHER_IDENTITY : functionIdentity(principal);
  const compose = (principal?: WorldPrincipal) =>
    composePorts({
      config,
      clients: principal === undefined ? clients : clientsAs(roleOf(principal)),
      time,
      random: () => 0.5,
      kubeConfigSource: staticKubeConfig(
        io.kubeConfig(kube.kubeConfig(kubeIdentity(principal ?? defaultFunction).token)),
      ),
    });
  return {
    time,
    fakes,
    io,
    clients,
    policies,
    adminClients: clientsAs(undefined),
    clientsOf: (principal) => clientsAs(roleOf(principal)),
    config,
    ports: compose(),
    composeAgain: compose,
    close: () => kube.close(),
  };
}

/** The interruption queue's ARN in a world (the FunctionRouter's queue, CloudFormation's name in a deployment). */
export function interruptionQueueArn(region: string, cluster: string): string {
  return `arn:aws:sqs:${region}:${WORLD_ACCOUNT}:podlift-${cluster}-interruption`;
}

/**
 * The policies of podlift's stack deployed for a world: its account, region and cluster, the
 * node role of Karpenter's getting-started guide (`KarpenterNodeRole-demo`, imported as a
 * migrating user would), the router's interruption queue.
 */
export function worldStackPolicies(): Promise<StackPolicies> {
  return stackPolicies({
    account: WORLD_ACCOUNT,
    region: REGION,
    clusterName: CLUSTER,
    nodeRoleName: ROLE,
    interruptionQueueArn: interruptionQueueArn(REGION, CLUSTER),
  });
}

function isFunctionName(name: string): name is FunctionName {
  return name === 'provisioner' || name === 'interruption' || name === 'disruption' || name === 'termination';
}
