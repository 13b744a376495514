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
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../fakes/kube';
import { VirtualTime } from '../virtual-time';
import { bundledSpec } from './aws/bundled-spec';
import { al2023Path, amiParameter, ROLE } from './aws/node-class-world';
import { AL2023_IMAGES, CLUSTER, DISCOVERY, K8S, REGION, SECURITY_GROUP_NODES, ZONES } from './aws/region';
import { SequencedIo } from './io-sequencer';
import { functionIdentity, podliftAuthorization } from './kube-identities';
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
  /** Real SDK clients answered by the fakes. */
  readonly clients: AwsClients;
  readonly config: PodliftConfig;
  /**
   * The functions' ports, composed exactly as in Lambda, over the fakes, authenticating to the
   * API server as the `loop` function (the provisioner unless `loop` names another).
   */
  readonly ports: Ports;
  /**
   * Composes another set of ports over the same world: a second Lambda container, cold caches,
   * authenticating as `fn` (default: as {@link ClusterWorld.ports} do).
   */
  composeAgain(fn?: FunctionName): Ports;
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
      images: [AL2023_IMAGES.amd64, AL2023_IMAGES.arm64, AL2023_IMAGES.nvidia],
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
  const raw = awsClients(REGION, { accessKeyId: 'x', secretAccessKey: 'y' });
  const clients: AwsClients = {
    ec2: withFake(raw.ec2, fakes.ec2),
    ssm: withFake(raw.ssm, fakes.ssm),
    iam: withFake(raw.iam, fakes.iam),
    pricing: withFake(raw.pricing, fakes.pricing),
    eks: withFake(raw.eks, fakes.eks),
    eventBridge: withFake(raw.eventBridge, fakes.eventBridge),
  };
  const loop = options.loop ?? 'test';
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
  const compose = (fn: FunctionName = defaultFunction) =>
    composePorts({
      config,
      clients,
      time,
      random: () => 0.5,
      kubeConfigSource: staticKubeConfig(io.kubeConfig(kube.kubeConfig(functionIdentity(fn).token))),
    });
  return {
    time,
    fakes,
    io,
    clients,
    config,
    ports: compose(),
    composeAgain: compose,
    close: () => kube.close(),
  };
}

function isFunctionName(name: string): name is FunctionName {
  return name === 'provisioner' || name === 'interruption' || name === 'disruption' || name === 'termination';
}
