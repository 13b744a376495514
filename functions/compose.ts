import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { LiveInstanceCatalog } from '../shared/aws/catalog/live-instance-catalog';
import { EksClusterAccess } from '../shared/aws/eks/eks-cluster-access';
import { KopsClusterAccess } from '../shared/aws/eks/kops-cluster-access';
import { EventBridgePublisher } from '../shared/aws/eventbridge/eventbridge-publisher';
import { Ec2Instances } from '../shared/aws/fleet/ec2-instances';
import { Ec2InstanceLauncher } from '../shared/aws/fleet/instance-launcher';
import { Ec2LaunchTemplateProvider } from '../shared/aws/launch-templates/launch-template-provider';
import { IamInstanceProfiles } from '../shared/aws/nodeclass/instance-profile-inventory';
import { EC2NodeClassResolver } from '../shared/aws/nodeclass/resolver';
import type { RetryPolicy } from '../shared/aws/retry';
import { SsmNodePoolConfig } from '../shared/aws/ssm-config/ssm-nodepool-config';
import type { InstanceType } from '../shared/core/catalog/instance-type';
import type { UnavailableOfferings } from '../shared/core/catalog/unavailable-offerings';
import type { ClusterInfo } from '../shared/core/model/cluster-info';
import type {
  InstanceCatalogPort,
  InstanceInventoryPort,
  InstanceLauncherPort,
  InstanceProfileInventoryPort,
  NodeClassResolverPort,
  NodePoolConfigPort,
} from '../shared/core/ports/cloud';
import type { ClusterReader, ClusterWriter } from '../shared/core/ports/cluster';
import type { ClusterAccess } from '../shared/core/ports/cluster-access';
import type { EventRecorderPort } from '../shared/core/ports/cluster-events';
import type { ClusterLeasePort, UnavailableOfferingsStore } from '../shared/core/ports/cluster-lease';
import type { LaunchTemplateProvider } from '../shared/core/ports/launch-templates';
import type { EventPublisherPort } from '../shared/core/ports/publisher';
import type { Time } from '../shared/core/ports/time';
import { BearerTokenKubeConfigSource } from '../shared/kube/auth/bearer-token-kubeconfig-source';
import { ClusterLease } from '../shared/kube/cluster-lease';
import { EventRecorder } from '../shared/kube/event-recorder';
import { KubeCluster } from '../shared/kube/kube-cluster';
import type { KubeConfigSource } from '../shared/kube/kubeconfig-source';
import type { AwsClients } from './aws-clients';
import type { PodliftConfig } from './config';

/**
 * Everything a control loop acts through, built once per Lambda container (module scope) and
 * reused by warm invocations, so the catalog, the EC2NodeClass resolution and the launch
 * templates stay cached between them. Tests and the simulator build the same thing with
 * {@link composePorts} over SDK clients attached to fakes and the fake API server.
 */
export interface Ports {
  readonly config: PodliftConfig;
  readonly cluster: ClusterReader & ClusterWriter;
  readonly lease: ClusterLeasePort & UnavailableOfferingsStore;
  readonly events: EventRecorderPort;
  readonly clusterAccess: ClusterAccess;
  readonly catalog: InstanceCatalogPort;
  readonly nodeClasses: NodeClassResolverPort;
  /** NodePools and EC2NodeClasses from SSM parameters under `/podlift/<cluster>/`. */
  readonly nodePoolConfig: NodePoolConfigPort;
  readonly instances: InstanceInventoryPort;
  /** The cluster's launch templates (garbage collection; launches use them through the launcher). */
  readonly launchTemplates: LaunchTemplateProvider;
  /** The cluster's instance profiles in IAM (garbage collection). */
  readonly instanceProfiles: InstanceProfileInventoryPort;
  readonly publisher: EventPublisherPort;
  /** A launcher for one invocation: it plans from that invocation's instance types and marks. */
  launcher(
    instanceTypes: ReadonlyMap<string, InstanceType>,
    unavailable: UnavailableOfferings,
  ): InstanceLauncherPort;
  /**
   * Starts an invocation: AWS retries from now on stop in time for `deadline` (epoch ms). The
   * adapters are built once, so their shared retry policy reads the current deadline.
   */
  beginInvocation(deadline: number): void;
}

/** What {@link composePorts} builds from. */
export interface ComposeOptions {
  readonly config: PodliftConfig;
  readonly clients: AwsClients;
  readonly time: Time;
  /** @default Math.random */
  readonly random?: () => number;
  /**
   * The API server to talk to. @default built from the cluster access (EKS DescribeCluster and
   * an IAM token, or the kOps SSM parameter) — the simulator passes its fake API server's.
   */
  readonly kubeConfigSource?: KubeConfigSource;
  /** Who the functions are in Events' `reportingInstance`, e.g. the Lambda function name. */
  readonly instance?: string;
  /** Where adapters report what they work around (a failed catalog refresh): the function's log. */
  readonly warn?: (message: string, fields: Readonly<Record<string, unknown>>) => void;
}

/** Builds the {@link Ports} of a function from its configuration, SDK clients and time. */
export function composePorts(options: ComposeOptions): Ports {
  const { config, clients, time } = options;
  const clusterAccess = accessFor(options);
  const kubeConfigSource = options.kubeConfigSource ?? new BearerTokenKubeConfigSource(clusterAccess);
  const cluster = new KubeCluster(kubeConfigSource, time);
  let deadline = Number.POSITIVE_INFINITY;
  const retry: RetryPolicy = {
    timers: time,
    random: options.random ?? Math.random,
    remainingTimeMs: () => deadline - time.now(),
  };
  const catalog = new LiveInstanceCatalog({
    region: config.region,
    ec2: clients.ec2,
    pricing: clients.pricing,
    clock: time,
    logger: { warn: options.warn ?? (() => undefined) },
  });
  const launchTemplates = new Ec2LaunchTemplateProvider({
    ec2: clients.ec2,
    catalog,
    clock: time,
    retry,
    reservedCapacity: config.featureGates.reservedCapacity,
  });
  const clusterInfo = (): Promise<ClusterInfo> => clusterAccess.clusterInfo();
  const nodeClasses = lazyResolver(
    clusterInfo,
    (info) =>
      new EC2NodeClassResolver({
        ec2: clients.ec2,
        ssm: clients.ssm,
        iam: clients.iam,
        clock: time,
        cluster: info,
        region: config.region,
      }),
  );
  const launcherFor = lazyLauncherCluster(clusterInfo);
  return {
    config,
    cluster,
    lease: new ClusterLease(cluster.api, time, { namespace: config.leaseNamespace, name: config.leaseName }),
    events: new EventRecorder(cluster.api, time, options.instance ? { instance: options.instance } : {}),
    clusterAccess,
    catalog,
    nodeClasses,
    nodePoolConfig: new SsmNodePoolConfig({ ssm: clients.ssm, cluster: config.clusterName, retry }),
    instances: new Ec2Instances({ ec2: clients.ec2, cluster: config.clusterName, retry }),
    launchTemplates,
    instanceProfiles: new IamInstanceProfiles({
      iam: clients.iam,
      cluster: config.clusterName,
      region: config.region,
      retry,
    }),
    publisher: new EventBridgePublisher({
      eventBridge: clients.eventBridge,
      eventBusName: config.eventBusName,
      retry,
    }),
    launcher: (instanceTypes, unavailableOfferings) =>
      launcherFor(
        (cluster) =>
          new Ec2InstanceLauncher({
            ec2: clients.ec2,
            cluster,
            launchTemplates,
            instanceTypes,
            unavailableOfferings,
            retry,
            clock: time,
          }),
      ),
    beginInvocation: (at) => {
      deadline = at;
    },
  };
}

function accessFor(options: ComposeOptions): ClusterAccess {
  const { config, clients, time } = options;
  if (config.clusterAccess === 'kops') {
    return new KopsClusterAccess({ ssm: clients.ssm, clusterName: config.clusterName, clock: time });
  }
  return new EksClusterAccess({
    eks: clients.eks,
    clusterName: config.clusterName,
    credentials: clients.eks.config.credentials as AwsCredentialIdentityProvider,
    clock: time,
  });
}

/**
 * A resolver built on first use: it needs the cluster's Kubernetes version (for AMI aliases),
 * which only the API's DescribeCluster (or the kOps parameter) tells, and composing must not
 * call AWS.
 */
function lazyResolver(
  clusterInfo: () => Promise<ClusterInfo>,
  build: (info: ClusterInfo) => NodeClassResolverPort,
): NodeClassResolverPort {
  let resolver: Promise<NodeClassResolverPort> | undefined;
  return {
    resolve: async (nodeClass) => {
      resolver ??= clusterInfo().then(build, (error: unknown) => {
        resolver = undefined;
        throw error;
      });
      return (await resolver).resolve(nodeClass);
    },
    // Only a built resolver has counts to adjust; a launch always follows a resolve.
    markLaunched: (reservationId) => {
      void resolver?.then((r) => r.markLaunched?.(reservationId));
    },
  };
}

/** Launchers need the cluster's endpoint and CA (for user data): each waits for them on first launch. */
function lazyLauncherCluster(
  clusterInfo: () => Promise<ClusterInfo>,
): (build: (cluster: ClusterInfo) => InstanceLauncherPort) => InstanceLauncherPort {
  return (build) => {
    let launcher: Promise<InstanceLauncherPort> | undefined;
    const get = () => {
      launcher ??= clusterInfo().then(build, (error: unknown) => {
        launcher = undefined;
        throw error;
      });
      return launcher;
    };
    return {
      launch: async (request) => (await get()).launch(request),
      terminate: async (ids) => (await get()).terminate(ids),
    };
  };
}
