import type { Pod } from './pod';

/** The ReplicaSet controller's scale-down hint (lower goes first), which EvictionCost also reads. */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/**
 * What evicting `pod` costs (kubernetes-sigs/karpenter pkg/utils/disruption `EvictionCost`): 1,
 * plus its pod-deletion-cost / 2^27 and its priority / 2^25, clamped to [-10, 10]. An unparsable
 * deletion cost counts as 0. Balanced consolidation weighs moves by it; static NodePools scale
 * down the nodes cheapest to disrupt first.
 */
export function evictionCost(pod: Pick<Pod, 'annotations' | 'priority'>): number {
  let cost = 1;
  const deletion = Number(pod.annotations?.[POD_DELETION_COST]);
  if (pod.annotations?.[POD_DELETION_COST] !== undefined && Number.isFinite(deletion))
    cost += deletion / 2 ** 27;
  cost += (pod.priority ?? 0) / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}
