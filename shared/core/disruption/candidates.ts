import { podDisruptable } from '../model/do-not-disrupt';
import { labelSelectorMatches } from '../model/label-selector';
import { ANNOTATIONS, LABEL_CAPACITY_TYPE, LABEL_NODEPOOL } from '../model/labels';
import { conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import { isStaticNodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { isReschedulable } from '../provisioning/pods-to-provision';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { PodDisruptionBudget, StateNode } from '../state/cluster-state';

/**
 * A node consolidation, drift or emptiness may act on (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/types.go `Candidate`, helpers.go `GetCandidates`): an initialized
 * NodeClaim of a podlift NodePool with its registered Node, the pods that would have to move,
 * and what it costs an hour.
 */
export interface Candidate {
  readonly claim: NodeClaim;
  readonly node: StateNode;
  readonly pool: NodePool;
  /** The pods that would move: not DaemonSet or mirror pods, not leaving already. */
  readonly pods: readonly Pod[];
  /** USD per hour (`podlift.dev/hourly-price`); 0 when unknown. */
  readonly price: number;
  readonly capacityType: string;
  /** Why it must not be disrupted voluntarily, when it must not. */
  readonly blocked?: string;
}

/** Every candidate of the snapshot, blocked ones included (they get an Event saying why). */
export function disruptionCandidates(snapshot: ClusterSnapshot): Candidate[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const candidates: Candidate[] = [];
  for (const { node, nodeClaim: claim } of joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims)) {
    if (!node || !claim || claim.deletionTimestamp || node.deleting) continue;
    if (!conditionIsTrue(claim, 'Initialized')) continue;
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    if (!pool) continue;
    const pods = node.pods.filter(isReschedulable);
    const blocked = blockedBecause(node, pool, pods, snapshot.podDisruptionBudgets, snapshot.now);
    candidates.push({
      claim,
      node,
      pool,
      pods,
      price: Number(claim.annotations[ANNOTATIONS.hourlyPrice] ?? 0) || 0,
      capacityType: claim.labels[LABEL_CAPACITY_TYPE] ?? 'on-demand',
      ...(blocked ? { blocked } : {}),
    });
  }
  return candidates;
}

/**
 * Why Karpenter would not disrupt the node voluntarily (pkg/utils/pod `IsDisruptable`,
 * pkg/controllers/disruption `canBeTerminated`): the Node says `karpenter.sh/do-not-disrupt: "true"`
 * (pkg/controllers/state/statenode.go `ValidateNodeDisruptable`), a pod's do-not-disrupt is in
 * force (`"true"`, or a duration not yet over since it started: model/do-not-disrupt.ts),
 * a pod has no controller to recreate it, a PodDisruptionBudget allows no eviction of one of its
 * pods now, or the NodePool is static (its node count is fixed).
 */
export function blockedBecause(
  node: StateNode,
  pool: NodePool,
  pods: readonly Pod[],
  budgets: readonly PodDisruptionBudget[],
  now: number,
): string | undefined {
  if (isStaticNodePool(pool)) return `NodePool ${pool.name} is static`;
  if (node.annotations?.[ANNOTATIONS.doNotDisrupt] === 'true')
    return 'the Node has karpenter.sh/do-not-disrupt';
  for (const pod of pods) {
    const name = `${pod.namespace}/${pod.name}`;
    if (!podDisruptable(pod, now)) return `pod ${name} has karpenter.sh/do-not-disrupt`;
    if (pod.ownerKind === undefined) return `pod ${name} has no controller`;
    const pdb = budgets.find(
      (b) =>
        b.namespace === pod.namespace &&
        b.disruptionsAllowed <= 0 &&
        labelSelectorMatches(b.selector, pod.labels),
    );
    if (pdb) return `PodDisruptionBudget ${pdb.namespace}/${pdb.name} allows no eviction of pod ${name}`;
  }
  return undefined;
}
