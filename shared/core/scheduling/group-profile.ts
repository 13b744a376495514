import { relaxations } from '../model/pod-requirements';
import { Requirement, type Requirements } from '../model/requirements';
import type { PodGroup } from './pod-groups';
import type { AffinityRule, GroupTopology, SpreadRule } from './topology';

/** Requirements for one attempt, with a stable key for caches. */
export interface RequirementTerm {
  readonly requirements: Requirements;
  readonly key: string;
}

/** One way of trying to place a group: its node requirement alternatives and active topology rules. */
export interface PlacementProfile {
  readonly terms: readonly RequirementTerm[];
  readonly spreads: readonly SpreadRule[];
  readonly affinities: readonly AffinityRule[];
  readonly antiAffinities: readonly AffinityRule[];
  /** What was given up to reach this profile, for logs. */
  readonly relaxed: string;
}

let termSeq = 0;
const termKeys = new WeakMap<Requirements, string>();

/** A cache key for a Requirements value (identity-based: built once per profile). */
export function termKey(r: Requirements): string {
  let k = termKeys.get(r);
  if (!k) {
    k = `t${termSeq++}`;
    termKeys.set(r, k);
  }
  return k;
}

/**
 * Adds `key In [value]` to a term. `cache` (one per scheduling run) makes repeated pins share
 * one Requirements value and key, so planned nodes' evaluation caches hit.
 */
export function pinTerm(
  cache: Map<string, RequirementTerm>,
  term: RequirementTerm,
  key: string,
  value: string,
): RequirementTerm {
  const id = `${term.key}|${key}=${value}`;
  let t = cache.get(id);
  if (!t) {
    const requirements = term.requirements.with(Requirement.of(key, 'In', [value]));
    t = { requirements, key: id };
    termKeys.set(requirements, id);
    cache.set(id, t);
  }
  return t;
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
