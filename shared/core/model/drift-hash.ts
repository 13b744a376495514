import type { EC2NodeClass } from './ec2nodeclass';
import type { NodePool } from './nodepool';
import { objectHash } from './object-hash';

/**
 * The hashes a NodeClaim records at creation so drift can be found later: if its NodePool's or
 * EC2NodeClass's hash no longer matches, the node was made from an older spec.
 */

/** Version of podlift's hashing scheme, written beside each hash: a new scheme is not drift. */
export const DRIFT_HASH_VERSION = 'podlift-v1';

/**
 * The NodePool's template, as Karpenter's `NodePool.Hash()` hashes `spec.template`
 * (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go): labels, annotations, nodeClassRef,
 * taints, startup taints, expireAfter and terminationGracePeriod — not the requirements
 * (`hash:"ignore"`: a requirement change is drift only for nodes it no longer admits, which
 * drift detection checks separately), nor limits, weight, disruption or replicas.
 */
export function nodePoolHash(pool: NodePool): string {
  const { requirements: _ignored, ...template } = pool.template;
  return objectHash(template);
}

/**
 * The EC2NodeClass, as the AWS provider's `EC2NodeClass.Hash()` hashes it
 * (aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go): the spec without the selector
 * terms, ipPrefixCount, amiFamily and kubelet (`hash:"ignore"`; AMIs, subnets and security
 * groups drift by what they resolve to), plus the resolved AMI family and the kubelet settings.
 */
export function nodeClassHash(nodeClass: EC2NodeClass): string {
  const {
    name: _name,
    uid: _uid,
    labels: _labels,
    annotations: _annotations,
    status: _status,
    subnetSelectorTerms: _subnets,
    securityGroupSelectorTerms: _securityGroups,
    capacityReservationSelectorTerms: _reservations,
    amiSelectorTerms: _amis,
    ipPrefixCount: _prefixes,
    rootVolumeBytes: _rootVolume,
    warnings: _warnings,
    ...spec
  } = nodeClass;
  return objectHash(spec);
}
