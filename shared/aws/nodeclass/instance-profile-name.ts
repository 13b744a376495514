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
 * The instance profile podlift creates for an EC2NodeClass's `role`:
 * `<cluster>_<FNV-1a 64 of region + node class name + uid + role name>` (decimal), one profile per
 * role, so changing `spec.role` makes a new profile and never changes the role of a profile that
 * running nodes hold (they would lose their credentials until the new role's are issued).
 *
 * Karpenter (apis/v1/ec2nodeclass.go InstanceProfileName) hashes region + name + a random UUID and
 * remembers the result in the EC2NodeClass's status; podlift hashes the role instead of a UUID,
 * so concurrent and retried resolves in separate Lambdas agree on the name without a cache, and
 * the uid, so a node class deleted and recreated under the same name never shares a profile the
 * old one's clean-up deletes. A profile already named in status is kept while it holds the role.
 * At most 128 characters, IAM's limit: a cluster name is at most 100.
 */
export function instanceProfileName(
  clusterName: string,
  region: string,
  nodeClassName: string,
  nodeClassUid: string | undefined,
  roleName: string,
): string {
  return `${clusterName}_${fnv1a64(`${region}${nodeClassName}${nodeClassUid ?? ''}${roleName}`).toString(10)}`;
}

/**
 * The name earlier podlift and Karpenter releases gave the one profile of an EC2NodeClass:
 * `<cluster>_<hash of region + node class name>` (Karpenter's LegacyInstanceProfileName).
 * podlift no longer creates it; garbage collection must still delete it with its node class.
 */
export function legacyInstanceProfileName(
  clusterName: string,
  region: string,
  nodeClassName: string,
): string {
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
