import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../model/drift-hash';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { DRIFTED } from './drift';

/** The hash annotations to write on one NodeClaim whose hash version is not podlift's. */
export interface HashRestamp {
  readonly nodeClaim: string;
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The NodeClaims whose drift hashes were written under another hash version — by Karpenter
 * before the cluster moved to podlift, or by an older podlift — and what to write on them, as
 * kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/controller.go `updateNodeClaimHash` and
 * aws/karpenter-provider-aws pkg/controllers/nodeclass/hash/controller.go `updateNodeClaimHash`
 * re-stamp them: the version becomes podlift's, and the hash becomes the NodePool's (EC2NodeClass's)
 * hash of today only when the claim has no Drifted condition — one that has it keeps the old hash,
 * so it stays drifted ("we will not be able to determine if the drifted status of the NodeClaim has
 * changed"). Without this drift never compares their hashes (driftOf compares under the same
 * version only). Claims being deleted, and the side whose NodePool or EC2NodeClass is unknown,
 * are left alone. Karpenter runs this once, when its own hash version changes; podlift, level
 * triggered, on every claim still under another version, which also covers claims carried over
 * later.
 */
export function hashRestamps(
  snapshot: Pick<ClusterSnapshot, 'nodeClaims' | 'nodePools' | 'nodeClasses'>,
): HashRestamp[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const classes = new Map(snapshot.nodeClasses.map((c) => [c.name, c]));
  const restamps: HashRestamp[] = [];
  for (const claim of snapshot.nodeClaims) {
    if (claim.deletionTimestamp) continue;
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    const nodeClass = classes.get(claim.spec.nodeClassRef.name);
    const annotations = {
      ...(pool
        ? restamp(claim, ANNOTATIONS.nodePoolHash, ANNOTATIONS.nodePoolHashVersion, () => nodePoolHash(pool))
        : {}),
      ...(nodeClass
        ? restamp(claim, ANNOTATIONS.nodeClassHash, ANNOTATIONS.nodeClassHashVersion, () =>
            nodeClassHash(nodeClass),
          )
        : {}),
    };
    if (Object.keys(annotations).length > 0) restamps.push({ nodeClaim: claim.name, annotations });
  }
  return restamps;
}

function restamp(
  claim: NodeClaim,
  hashKey: string,
  versionKey: string,
  hash: () => string,
): Record<string, string> {
  if (claim.annotations[versionKey] === DRIFT_HASH_VERSION) return {};
  const drifted = claim.status.conditions?.some((c) => c.type === DRIFTED) === true;
  return { [versionKey]: DRIFT_HASH_VERSION, ...(drifted ? {} : { [hashKey]: hash() }) };
}
