import { ANNOTATIONS } from './labels';
import type { Pod } from './pod';

/** The ReplicaSet controller's scale-down hint (lower goes first), which EvictionCost also reads. */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/**
 * What evicting `pod` costs (kubernetes-sigs/karpenter pkg/utils/disruption `EvictionCost`): 1,
 * plus its pod-deletion-cost / 2^27 and its priority / 2^25, clamped to [-10, 10]. An unparsable
 * deletion cost counts as 0, and so does one podlift wrote itself to steer scale-downs (its
 * `podlift.dev/managed-deletion-cost` mark still equals it: disruption/deletion-cost.ts), which
 * says where a scale-down should go, not what moving the pod costs — as Karpenter's RFC #2935
 * separates its controller's costs from the ones users set. Balanced consolidation weighs moves
 * by it; static NodePools scale down the nodes cheapest to disrupt first.
 */
export function evictionCost(pod: Pick<Pod, 'annotations' | 'priority'>): number {
  let cost = 1;
  const text = pod.annotations?.[POD_DELETION_COST];
  const deletion = Number(text);
  // Number(undefined) is NaN: no annotation adds nothing.
  if (Number.isFinite(deletion) && pod.annotations?.[ANNOTATIONS.managedDeletionCost] !== text)
    cost += deletion / 2 ** 27;
  cost += (pod.priority ?? 0) / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}
