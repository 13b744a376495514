import type { Pod } from '../model/pod';
import { relaxations } from '../model/pod-requirements';
import type { PodGroup } from './pod-groups';
import { type RequirementTerm, termKey } from './requirement-terms';
import type { AffinityRule, GroupTopology, SpreadRule } from './topology';
import type { UnschedulablePod } from './unschedulable-reason';
import { someReason, type UnschedulableReason } from './unschedulable-reason';

/** One way of trying to place a group: its node requirement alternatives and active topology rules. */
export interface PlacementProfile {
  readonly terms: readonly RequirementTerm[];
  readonly spreads: readonly SpreadRule[];
  readonly affinities: readonly AffinityRule[];
  readonly antiAffinities: readonly AffinityRule[];
  /** What was given up to reach this profile, for logs. */
  readonly relaxed: string;
}

/**
 * The sequence of attempts for a group, strictest first, in Karpenter's relaxation order
 * (provisioning/scheduling/preferences.go): everything preferred is first treated as required;
 * then preferred pod affinity is dropped, then preferred pod anti-affinity, then preferred node
 * affinity one term at a time (heaviest first), and finally ScheduleAnyway spread constraints.
 */
export function placementProfiles(group: PodGroup, topology: GroupTopology): PlacementProfile[] {
  const nodeAlternatives = [...relaxations(group.representative)].map((r) =>
    r.terms.map((t) => ({ requirements: t, key: termKey(t) })),
  );
  const requiredOnly = <T extends { preferred: boolean }>(rules: readonly T[]) =>
    rules.filter((r) => !r.preferred);
  const hasPreferredAffinity = topology.affinities.some((r) => r.preferred);
  const hasPreferredAnti = topology.antiAffinities.some((r) => r.preferred);
  const hasScheduleAnyway = topology.spreads.some((r) => r.preferred);

  const profiles: PlacementProfile[] = [];
  let affinities = topology.affinities;
  let antiAffinities = topology.antiAffinities;
  const first = nodeAlternatives[0];
  profiles.push({ terms: first, spreads: topology.spreads, affinities, antiAffinities, relaxed: '' });
  if (hasPreferredAffinity) {
    affinities = requiredOnly(affinities);
    profiles.push({
      terms: first,
      spreads: topology.spreads,
      affinities,
      antiAffinities,
      relaxed: 'preferred pod affinity',
    });
  }
  if (hasPreferredAnti) {
    antiAffinities = requiredOnly(antiAffinities);
    profiles.push({
      terms: first,
      spreads: topology.spreads,
      affinities,
      antiAffinities,
      relaxed: 'preferred pod anti-affinity',
    });
  }
  for (let i = 1; i < nodeAlternatives.length; i++) {
    profiles.push({
      terms: nodeAlternatives[i],
      spreads: topology.spreads,
      affinities,
      antiAffinities,
      relaxed: 'preferred node affinity',
    });
  }
  if (hasScheduleAnyway) {
    profiles.push({
      terms: nodeAlternatives[nodeAlternatives.length - 1],
      spreads: requiredOnly(topology.spreads),
      affinities,
      antiAffinities,
      relaxed: 'ScheduleAnyway topology spread',
    });
  }
  return profiles;
}

/**
 * Whether a pod failed because its required pod affinity matches no pod yet. Such a pod may
 * name pods of a group placed after it, so it gets another pass (see {@link affinityRetries}).
 */
export function awaitsAffinityMatch(reason: UnschedulableReason): boolean {
  return someReason(reason, (r) => r.kind === 'no-affinity-match');
}

/** Pods of one group to place again. */
export interface Retry {
  readonly group: PodGroup;
  readonly pods: readonly Pod[];
}

/**
 * The pods with required pod affinity that failed on the first pass because nothing matched
 * yet, per group in placement order: like Karpenter's re-queue, they get one more pass once
 * everything else is placed.
 */
export function affinityRetries(
  groups: readonly PodGroup[],
  unschedulable: readonly UnschedulablePod[],
): Retry[] {
  const failed = new Set(unschedulable.filter((u) => awaitsAffinityMatch(u.cause)).map((u) => u.pod));
  const retries: Retry[] = [];
  for (const group of groups) {
    if (group.representative.podAffinity.length === 0) continue;
    const pods = group.pods.filter((p) => failed.has(p));
    if (pods.length > 0) retries.push({ group, pods });
  }
  return retries;
}
