import type { aws_iam as iam, aws_logs as logs } from 'aws-cdk-lib';
import type { AlarmNotificationProps } from './parts/alarms';
import type { NodePoolSources } from './parts/node-pool-parameters';
import type { WatcherImage } from './parts/watcher-image';

/** How the functions reach the cluster's API server (functions/config.ts `CLUSTER_ACCESS`). */
export type ClusterAccessProps = EksAccessProps | KopsAccessProps;

/** An EKS cluster: DescribeCluster for endpoint and CA, an IAM token mapped by an access entry. */
export interface EksAccessProps {
  readonly kind: 'eks';
}

/**
 * A non-EKS (kOps) cluster. The functions read endpoint, CA, service-account token, Kubernetes
 * version and service CIDR from one SSM SecureString, `/podlift/<cluster>/cluster`
 * (shared/aws/eks/kops-cluster-parameter.ts). CloudFormation cannot create SecureStrings and the
 * token must not appear in a template, so the operator writes it (docs/deploy.md, kOps guide); the stack
 * only grants the functions `ssm:GetParameter` on it.
 */
export interface KopsAccessProps {
  readonly kind: 'kops';
  /**
   * The customer-managed KMS key the SecureString is encrypted with, if not `aws/ssm`.
   * @default the AWS-managed `aws/ssm` key (no KMS grant needed)
   */
  readonly parameterKeyArn?: string;
  /**
   * The cluster's service-account issuer as an IAM OIDC provider, for the watcher's role (IRSA):
   * kOps has no Pod Identity. Without it no watcher role is created and the watcher needs
   * credentials from elsewhere.
   * @default no watcher role
   */
  readonly watcherOidcProvider?: { readonly providerArn: string; readonly issuer: string };
}

/** What {@link Podlift} is built from. Only `clusterName` is required. */
export interface PodliftProps {
  /** The cluster podlift serves: tags, parameter paths, the Lease, and `CLUSTER_NAME`. */
  readonly clusterName: string;
  /**
   * How the functions reach the API server.
   * @default { kind: 'eks' }
   */
  readonly clusterAccess?: ClusterAccessProps;
  /**
   * The watcher's container image.
   * @default WatcherImage.fromBuild(): built from watcher/Dockerfile by `cdk deploy` (needs Docker there)
   */
  readonly watcherImage?: WatcherImage;
  /**
   * NodePools and EC2NodeClasses stored as SSM parameters under `/podlift/<cluster>/`,
   * validated at synth time.
   * @default none (NodePools come from the cluster's CRDs)
   */
  readonly nodePools?: NodePoolSources;
  /**
   * The role podlift's nodes run with; EC2NodeClasses name it in `spec.role`. A given role is
   * expected to have its EKS access entry already (Karpenter's node role, when migrating).
   * @default a new role `PodliftNodeRole-<cluster>` with the four EKS worker policies and an
   * EC2_LINUX access entry
   */
  readonly nodeRole?: iam.IRole;
  /**
   * What a rebalance recommendation does (`REBALANCE_ACTION`).
   * @default 'event'
   */
  readonly rebalanceAction?: 'event' | 'replace';
  /**
   * Karpenter's feature gates podlift has (`FEATURE_GATES`): `nodeRepair` replaces Nodes whose
   * conditions stay unhealthy (Karpenter's `NodeRepair`); `spotToSpotConsolidation` lets
   * consolidation replace spot nodes by cheaper spot nodes (Karpenter's `SpotToSpotConsolidation`);
   * `reservedCapacity` launches into capacity reservations (Karpenter's `ReservedCapacity`);
   * `globalConsolidation` adds podlift's global consolidation after Karpenter's methods;
   * `podDeletionCostManagement` steers scale-downs toward the nodes podlift would remove first;
   * `candidateTaint` steers new pods away from them.
   * @default Karpenter's defaults: `reservedCapacity` on, the others off
   */
  readonly featureGates?: FeatureGateProps;
  /**
   * Namespace of the cluster Lease (`LEASE_NAMESPACE`); manifests/ creates `podlift`.
   * @default 'podlift'
   */
  readonly leaseNamespace?: string;
  /**
   * Name of the cluster Lease (`LEASE_NAME`).
   * @default 'podlift'
   */
  readonly leaseName?: string;
  /**
   * How long the functions' logs are kept.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Where podlift's alarms notify: an SNS topic, or an e-mail address (subscribed to a new topic
   * unless `topic` is given). The alarms and the dashboard exist either way.
   * @default no notification
   */
  readonly alarms?: AlarmNotificationProps;
  /**
   * Whether `cdk deploy` also installs manifests/ in the cluster (CRDs, RBAC, the watcher) through
   * the `Custom::PodliftManifests` custom resource, and waits for the watcher to be ready. EKS
   * only: in kOps mode the stack prints the one command that installs them
   * (`InstallManifestsCommand`). Turn it off to apply manifests/ yourself (GitOps, or Karpenter's
   * CRDs already in the cluster).
   * @default true in EKS mode
   */
  readonly installManifests?: boolean;
}

/** Karpenter feature gates, each off unless set. */
export interface FeatureGateProps {
  /**
   * `NodeRepair`: replace a Node whose Ready (or node monitoring agent) condition stays bad.
   * @default false
   */
  readonly nodeRepair?: boolean;
  /**
   * `SpotToSpotConsolidation`: replace a spot node by a cheaper spot node when at least 15
   * cheaper spot types hold its pods (only the 15 cheapest are launched).
   * @default false
   */
  readonly spotToSpotConsolidation?: boolean;
  /**
   * `ReservedCapacity`: launch into the capacity reservations and Capacity Blocks an EC2NodeClass's
   * capacityReservationSelectorTerms select (`karpenter.sh/capacity-type: reserved`), as Karpenter
   * does by default.
   * @default true
   */
  readonly reservedCapacity?: boolean;
  /**
   * `GlobalConsolidation` (podlift's own): when Karpenter's consolidation methods find nothing,
   * replace several consolidatable nodes at once by fewer, cheaper new ones, within budgets, PDBs
   * and do-not-disrupt, when the saving clears Balanced's score; and charge a not-Ready node to its
   * NodePool's disruption budget once, not twice (Karpenter's accounting lets a few dead kubelets
   * hold a small NodePool's budget at 0). Off by default: it evicts more pods per hour.
   * @default false
   */
  readonly globalConsolidation?: boolean;
  /**
   * `PodDeletionCostManagement` (the gate Karpenter's PR #2894 proposes): the disruption function
   * writes `controller.kubernetes.io/pod-deletion-cost` on the ReplicaSet pods of the nodes it
   * would remove first, so a Deployment scaled down empties them (deleted without evictions)
   * instead of taking one pod from each node. Uses the functions' `patch` on pods. Off: it
   * removes the costs it wrote.
   * @default false
   */
  readonly podDeletionCostManagement?: boolean;
  /**
   * `CandidateTaint` (podlift's own; the Candidate state of Karpenter's issue #624): the
   * disruption function puts a `podlift.dev/disruption-candidate:PreferNoSchedule` taint on the
   * nodes consolidation is heading for, so kube-scheduler places new pods elsewhere when they
   * fit. Uses the functions' `patch` on nodes. Off: it removes the taints it put.
   * @default false
   */
  readonly candidateTaint?: boolean;
}

/** {@link PodliftProps} with every default applied. */
export interface ResolvedPodliftProps {
  readonly clusterName: string;
  readonly clusterAccess: ClusterAccessProps;
  readonly rebalanceAction: 'event' | 'replace';
  readonly featureGates: Required<FeatureGateProps>;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly installManifests: boolean;
}

// The same rules functions/config.ts applies at run time, checked at synth so a bad value never deploys.
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Applies defaults and validates `props`.
 * @throws Error naming the prop and echoing the bad value
 */
export function resolveProps(props: PodliftProps): ResolvedPodliftProps {
  const bad = (field: string, value: unknown, rule: string) =>
    new Error(`Podlift: props.${field} ${JSON.stringify(value)} ${rule}`);
  if (typeof props.clusterName !== 'string' || !CLUSTER_NAME.test(props.clusterName)) {
    throw bad(
      'clusterName',
      props.clusterName,
      'must be 1-100 letters, digits, hyphens or underscores, starting with a letter or digit',
    );
  }
  const clusterAccess = props.clusterAccess ?? { kind: 'eks' };
  if (clusterAccess.kind !== 'eks' && clusterAccess.kind !== 'kops') {
    throw bad('clusterAccess.kind', (clusterAccess as { kind: unknown }).kind, "must be 'eks' or 'kops'");
  }
  const rebalanceAction = props.rebalanceAction ?? 'event';
  if (rebalanceAction !== 'event' && rebalanceAction !== 'replace') {
    throw bad('rebalanceAction', rebalanceAction, "must be 'event' or 'replace'");
  }
  const featureGates = {
    nodeRepair: props.featureGates?.nodeRepair ?? false,
    spotToSpotConsolidation: props.featureGates?.spotToSpotConsolidation ?? false,
    reservedCapacity: props.featureGates?.reservedCapacity ?? true,
    globalConsolidation: props.featureGates?.globalConsolidation ?? false,
    podDeletionCostManagement: props.featureGates?.podDeletionCostManagement ?? false,
    candidateTaint: props.featureGates?.candidateTaint ?? false,
  };
  for (const [gate, value] of Object.entries(featureGates))
    if (typeof value !== 'boolean') throw bad(`featureGates.${gate}`, value, 'must be true or false');
  const leaseNamespace = props.leaseNamespace ?? 'podlift';
  const leaseName = props.leaseName ?? 'podlift';
  for (const [field, value] of [
    ['leaseNamespace', leaseNamespace],
    ['leaseName', leaseName],
  ] as const) {
    if (!DNS_LABEL.test(value) || value.length > 63) throw bad(field, value, 'must be a DNS label');
  }
  const installManifests = props.installManifests ?? clusterAccess.kind === 'eks';
  if (typeof installManifests !== 'boolean')
    throw bad('installManifests', installManifests, 'must be true or false');
  if (installManifests && clusterAccess.kind !== 'eks') {
    throw bad(
      'installManifests',
      installManifests,
      'needs an EKS cluster (an access entry for the installer); in kOps mode run the InstallManifestsCommand output',
    );
  }
  return {
    clusterName: props.clusterName,
    clusterAccess,
    installManifests,
    rebalanceAction,
    featureGates,
    leaseNamespace,
    leaseName,
  };
}
