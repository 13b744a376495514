import { LABEL_NODECLASS, LABEL_NODEPOOL } from '../../core/model/labels';

/** Tag on every instance podlift launches naming its NodeClaim (Karpenter's `karpenter.sh/nodeclaim`). */
export const TAG_NODECLAIM = 'karpenter.sh/nodeclaim';
/** Tag naming the EKS cluster (Karpenter's `eks:eks-cluster-name`). */
export const TAG_EKS_CLUSTER_NAME = 'eks:eks-cluster-name';
/** EC2's display name. */
export const TAG_NAME = 'Name';

/** `kubernetes.io/cluster/<cluster>`: `owned` on every instance of the cluster. */
export function clusterTagKey(cluster: string): string {
  return `kubernetes.io/cluster/${cluster}`;
}

/**
 * Whether a NodeClass tag key is one podlift sets itself (Karpenter's RestrictedTagPatterns):
 * any `kubernetes.io/cluster/...`, the NodePool, NodeClaim and EC2NodeClass keys and
 * `eks:eks-cluster-name`. Such NodeClass tags are dropped, never applied.
 */
export function isReservedTagKey(key: string): boolean {
  return (
    key.startsWith('kubernetes.io/cluster/') ||
    key === LABEL_NODEPOOL ||
    key === TAG_NODECLAIM ||
    key === LABEL_NODECLASS ||
    key === TAG_EKS_CLUSTER_NAME
  );
}

/** Who an instance is launched for. */
export interface LaunchTagInput {
  readonly cluster: string;
  readonly nodePool: string;
  readonly nodeClaim: string;
  readonly nodeClass: string;
  readonly nodeClassTags: Readonly<Record<string, string>>;
}

/**
 * Tags for the instance, its volumes and the fleet: the EC2NodeClass's tags, then the reserved
 * ones Karpenter sets (`kubernetes.io/cluster/<cluster>=owned`, `karpenter.sh/nodepool`,
 * `karpenter.k8s.aws/ec2nodeclass`, `eks:eks-cluster-name`) plus `karpenter.sh/nodeclaim`,
 * which ties the instance to its NodeClaim from the first moment (garbage collection and the
 * lost-ClientToken lookup rely on it). `Name` defaults to the NodeClaim name (the node name is
 * not known before launch); a NodeClass `Name` tag wins, as in Karpenter.
 */
export function launchTags(input: LaunchTagInput): Record<string, string> {
  const userTags = Object.fromEntries(
    Object.entries(input.nodeClassTags).filter(([key]) => !isReservedTagKey(key)),
  );
  return {
    [TAG_NAME]: input.nodeClaim,
    ...userTags,
    [clusterTagKey(input.cluster)]: 'owned',
    [LABEL_NODEPOOL]: input.nodePool,
    [TAG_NODECLAIM]: input.nodeClaim,
    [LABEL_NODECLASS]: input.nodeClass,
    [TAG_EKS_CLUSTER_NAME]: input.cluster,
  };
}
