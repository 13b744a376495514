import type { Pod, PreferredSchedulingTerm } from './pod';
import { Requirements } from './requirements';

/**
 * A pod's node requirements in the requirements algebra: what its nodeSelector and node
 * affinity allow, and the order in which its preferences are given up when they cannot be met.
 */

/**
 * The pod's hard node requirements as ORed alternatives: the nodeSelector (each label as
 * `In [value]`) intersected with each required node-affinity term. A node that satisfies any
 * element satisfies the pod.
 *
 * Without required node affinity there is one element (the nodeSelector alone). A term with no
 * expressions matches no node (core/v1 NodeSelectorTerm), so it is left out; a pod whose every
 * term is empty gets `[]`: no node can satisfy it.
 */
export function podRequirementTerms(pod: Pod): Requirements[] {
  const base = Requirements.fromLabels(pod.nodeSelector);
  if (pod.requiredNodeAffinity === undefined) return [base];
  return pod.requiredNodeAffinity
    .filter((term) => term.matchExpressions.length > 0)
    .map((term) => base.intersect(Requirements.from(term.matchExpressions)));
}

/** One preferred node-affinity term in the requirements algebra. */
export interface WeightedRequirements {
  readonly weight: number;
  readonly requirements: Requirements;
  /** The term as written on the pod, for messages. */
  readonly term: PreferredSchedulingTerm;
}

/**
 * The pod's preferred node-affinity terms, heaviest first; terms of equal weight keep the
 * pod's order (Karpenter sorts them the same way, stably).
 */
export function preferredRequirements(pod: Pod): WeightedRequirements[] {
  return pod.preferredNodeAffinity
    .map((term) => ({
      weight: term.weight,
      requirements: Requirements.from(term.preference.matchExpressions),
      term,
    }))
    .sort((a, b) => b.weight - a.weight);
}

/** One attempt at placing a pod: the node requirements to try, and which preference they include. */
export interface RequirementsRelaxation {
  /** ORed alternatives, as in {@link podRequirementTerms}, with `preference` intersected into each. */
  readonly terms: readonly Requirements[];
  /** The preferred term treated as required in this attempt; undefined once all are dropped. */
  readonly preference?: PreferredSchedulingTerm;
}

/**
 * The node requirements Karpenter tries for a pod, in order, stopping at the first attempt
 * that schedules (kubernetes-sigs/karpenter pkg/scheduling/requirements.go
 * `NewPodRequirements` and provisioning/scheduling/preferences.go `Relax`):
 *
 * 1. the heaviest preferred term is treated as required, on top of the hard requirements;
 * 2. if that fails, the heaviest term is dropped and the next heaviest is treated as required,
 *    and so on, one term at a time;
 * 3. finally the hard requirements alone.
 *
 * Only one preferred term is ever required at a time (not all of them together), and the
 * heaviest is dropped first: it is the most constraining wish, and the lighter ones are still
 * worth honouring without it. A pod without preferences yields only step 3.
 *
 * Unlike Karpenter, which tries the ORed required terms one by one, every attempt carries all
 * of them as alternatives: any of them is acceptable to kube-scheduler, so none needs to be
 * given up first. PreferNoSchedule taints need no relaxation here: `firstUntoleratedTaint`
 * never lets them block.
 */
export function* relaxations(pod: Pod): Generator<RequirementsRelaxation, void, undefined> {
  const terms = podRequirementTerms(pod);
  for (const preferred of preferredRequirements(pod)) {
    yield {
      terms: terms.map((t) => t.intersect(preferred.requirements)),
      preference: preferred.term,
    };
  }
  yield { terms };
}
