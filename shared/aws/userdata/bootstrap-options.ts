import type { CapacityType } from '../../core/model/capacity-type';
import type { ClusterInfo } from '../../core/model/cluster-info';
import type { EC2NodeClass, KubeletConfiguration } from '../../core/model/ec2nodeclass';
import { ValidationError } from '../../core/model/errors';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_DO_NOT_SYNC_TAINTS,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  UNREGISTERED_TAINT,
} from '../../core/model/labels';
import type { NodeClaim } from '../../core/model/nodeclaim';
import { Requirements } from '../../core/model/requirements';
import type { Taint } from '../../core/model/taints';

/**
 * What every AMI family's user data is made from (Karpenter's bootstrap.Options): the cluster,
 * the kubelet settings with max pods and cluster DNS resolved, the labels and taints the node
 * registers with, and the EC2NodeClass's own userData to merge.
 */
export interface BootstrapOptions {
  readonly cluster: ClusterInfo;
  /** The EC2NodeClass the user data belongs to; named in errors about its userData. */
  readonly nodeClassName: string;
  /** spec.userData of the EC2NodeClass, merged as the AMI family does. */
  readonly customUserData?: string;
  /** spec.kubelet with maxPods always set and clusterDNS defaulted to the cluster's DNS IP. */
  readonly kubelet: KubeletConfiguration;
  /** Labels kubelet registers the node with (restricted domains already removed). */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints kubelet registers the node with, karpenter.sh/unregistered:NoExecute included. */
  readonly taints: readonly Taint[];
  readonly instanceStorePolicy?: 'RAID0';
}

/** What {@link bootstrapOptions} needs about one launch. */
export interface BootstrapInput {
  readonly cluster: ClusterInfo;
  readonly nodeClass: EC2NodeClass;
  readonly nodeClaim: NodeClaim;
  readonly nodePoolName: string;
  /** The capacity type this launch buys, recorded as karpenter.sh/capacity-type. */
  readonly capacityType: CapacityType;
  /** The pods capacity of the instance types this user data serves (used when spec.kubelet.maxPods is unset). */
  readonly maxPods: number;
}

/**
 * Karpenter's launch-time bootstrap settings (amifamily/resolver.go resolveLaunchTemplates and
 * launchtemplate.go createAMIOptions):
 * - labels: the NodeClaim's labels and single-valued requirements, its NodePool and
 *   EC2NodeClass, the capacity type, and `karpenter.sh/do-not-sync-taints=true` for every AMI
 *   family but Custom, without labels kubelet may not set on itself
 *   (`kubernetes.io`, `k8s.io` and their subdomains, which include node-restriction.kubernetes.io
 *   and kops.k8s.io);
 * - taints: the NodeClaim's taints, then its startup taints, then karpenter.sh/unregistered
 *   unless already present;
 * - kubelet: spec.kubelet, maxPods from the instance types when unset, clusterDNS from the
 *   cluster when unset.
 */
export function bootstrapOptions(input: BootstrapInput): BootstrapOptions {
  const { cluster, nodeClass, nodeClaim } = input;
  const labels = withoutRestrictedLabels({
    ...Requirements.from(nodeClaim.spec.requirements).labels(),
    ...nodeClaim.labels,
    [LABEL_NODEPOOL]: input.nodePoolName,
    [LABEL_NODECLASS]: nodeClass.name,
    [LABEL_CAPACITY_TYPE]: input.capacityType,
    // The node registers with its taints from the user data, so registration must not sync
    // the NodeClaim's (a race with startup taints, kubernetes-sigs/karpenter#1772). Custom user
    // data may not register them, so it keeps the sync (launchtemplate.go InjectDoNotSyncTaintsLabel).
    ...(nodeClass.amiFamily !== 'Custom' ? { [LABEL_DO_NOT_SYNC_TAINTS]: 'true' } : {}),
  });
  const taints: Taint[] = [...nodeClaim.spec.taints, ...nodeClaim.spec.startupTaints];
  if (!taints.some((t) => t.key === UNREGISTERED_TAINT.key && t.effect === UNREGISTERED_TAINT.effect)) {
    taints.push({ ...UNREGISTERED_TAINT });
  }
  const kubelet = nodeClass.kubelet ?? {};
  const clusterDNS =
    kubelet.clusterDNS !== undefined && kubelet.clusterDNS.length > 0
      ? kubelet.clusterDNS
      : cluster.clusterDns !== undefined
        ? [cluster.clusterDns]
        : undefined;
  return {
    cluster,
    nodeClassName: nodeClass.name,
    ...(nodeClass.userData !== undefined ? { customUserData: nodeClass.userData } : {}),
    kubelet: {
      ...kubelet,
      maxPods: kubelet.maxPods ?? input.maxPods,
      ...(clusterDNS !== undefined ? { clusterDNS } : {}),
    },
    labels,
    taints,
    ...(nodeClass.instanceStorePolicy !== undefined
      ? { instanceStorePolicy: nodeClass.instanceStorePolicy }
      : {}),
  };
}

/** Domains whose labels the NodeRestriction admission plugin refuses from a kubelet. */
const RESTRICTED_DOMAINS = ['kubernetes.io', 'k8s.io'];

function withoutRestrictedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) {
    const slash = key.indexOf('/');
    const domain = slash < 0 ? '' : key.slice(0, slash);
    if (RESTRICTED_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`))) continue;
    out[key] = labels[key];
  }
  return out;
}

/** `--node-labels="a=b,c=d"` (keys sorted), as Karpenter passes labels to kubelet; undefined when none. */
export function nodeLabelsFlag(labels: Readonly<Record<string, string>>): string | undefined {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return undefined;
  return `--node-labels="${keys.map((k) => `${k}=${labels[k]}`).join(',')}"`;
}

/** The error for user data that cannot be merged: names the EC2NodeClass and spec.userData. */
export function invalidUserData(
  options: Pick<BootstrapOptions, 'nodeClassName' | 'customUserData'>,
  message: string,
  cause?: unknown,
): ValidationError {
  return new ValidationError(
    [{ field: 'spec.userData', value: options.customUserData, message }],
    { object: `EC2NodeClass/${options.nodeClassName}` },
    cause === undefined ? undefined : { cause },
  );
}
