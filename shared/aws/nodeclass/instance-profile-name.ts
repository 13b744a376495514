import { LABEL_NODECLASS, LABEL_REGION } from '../../core/model/labels';

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

/**
 * FNV-1a, 64 bit, over the UTF-8 bytes of `text`: what Go's hashstructure v2 computes for a
 * string, which Karpenter uses to name instance profiles.
 */
export function fnv1a64(text: string): bigint {
  let hash = FNV64_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV64_PRIME) & MASK64;
  }
  return hash;
}

/**
 * The instance profile podlift creates for an EC2NodeClass with `role`: Karpenter's
 * `<cluster>_<hash of region + nodeclass name>` (decimal), so a cluster moving from Karpenter
 * finds the profile its nodes already use, and a retried or concurrent create targets the same
 * name. At most 128 characters, IAM's limit: a cluster name is at most 100.
 */
export function instanceProfileName(clusterName: string, region: string, nodeClassName: string): string {
  return `${clusterName}_${fnv1a64(`${region}${nodeClassName}`).toString(10)}`;
}

/**
 * The IAM path of the profiles podlift creates: `/karpenter/<region>/<cluster>/<nodeclass uid>/`,
 * as Karpenter uses, so garbage collection can list a cluster's (or a node class's) profiles.
 */
export function instanceProfilePath(
  region: string,
  clusterName: string,
  nodeClassUid: string | undefined,
): string {
  return nodeClassUid === undefined || nodeClassUid === ''
    ? `/karpenter/${region}/${clusterName}/`
    : `/karpenter/${region}/${clusterName}/${nodeClassUid}/`;
}

/**
 * Tags on a created instance profile (Karpenter's InstanceProfileTags): the node class's
 * `spec.tags`, then ownership tags that the user's tags cannot override.
 */
export function instanceProfileTags(
  clusterName: string,
  region: string,
  nodeClassName: string,
  specTags: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    ...specTags,
    [`kubernetes.io/cluster/${clusterName}`]: 'owned',
    'karpenter.sh/managed-by': clusterName,
    'eks:eks-cluster-name': clusterName,
    [LABEL_NODECLASS]: nodeClassName,
    [LABEL_REGION]: region,
  };
}
