import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { NODES_LIMIT, type NodePool } from '../model/nodepool';
import { addInto, type MutableResources } from '../model/resources';
import type { ConditionUpdate, NodePoolStatusUpdate } from '../ports/cluster';

/**
 * The status of a valid NodePool: the resources its NodeClaims hold (counter.go: their
 * capacity, as limits count it) and its conditions — ValidationSucceeded, NodeClassReady (its
 * EC2NodeClass resolved and Ready; `undefined` when the EC2NodeClass does not exist) and Ready,
 * True only when both are.
 */
export function nodePoolStatus(
  pool: NodePool,
  claims: readonly NodeClaim[],
  nodeClass: { readonly ready: boolean; readonly message: string } | undefined,
): NodePoolStatusUpdate {
  const resources: MutableResources = { [NODES_LIMIT]: 0 };
  for (const claim of claims) {
    if (claim.labels[LABEL_NODEPOOL] !== pool.name || claim.deletionTimestamp) continue;
    resources[NODES_LIMIT]++;
    addInto(resources, claim.status.capacity ?? {});
  }
  const classReady: ConditionUpdate = nodeClass?.ready
    ? { type: 'NodeClassReady', status: 'True' }
    : {
        type: 'NodeClassReady',
        status: 'False',
        reason: nodeClass ? 'NodeClassNotReady' : 'NodeClassNotFound',
        message: nodeClass?.message ?? `EC2NodeClass ${pool.template.nodeClassRef.name} not found`,
      };
  const ready: ConditionUpdate =
    classReady.status === 'True'
      ? { type: 'Ready', status: 'True' }
      : { type: 'Ready', status: 'False', reason: 'NodeClassNotReady', message: classReady.message ?? '' };
  return {
    resources,
    conditions: [{ type: 'ValidationSucceeded', status: 'True' }, classReady, ready],
  };
}

/** USD per hour of a NodePool's NodeClaims not being deleted, from the price each recorded at launch. */
export function nodePoolCost(pool: string, claims: readonly NodeClaim[]): number {
  let sum = 0;
  for (const claim of claims) {
    if (claim.labels[LABEL_NODEPOOL] !== pool || claim.deletionTimestamp) continue;
    sum += Number(claim.annotations[ANNOTATIONS.hourlyPrice] ?? 0) || 0;
  }
  return sum;
}
