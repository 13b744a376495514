import type { InstanceType, Offering } from '../catalog/instance-type';
import { LABEL_CAPACITY_TYPE, LABEL_HOSTNAME, LABEL_ZONE, WELL_KNOWN_LABELS } from '../model/labels';
import type { Requirements } from '../model/requirements';
import { firstUntoleratedTaint } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import { type NodePoolContext, offeringAllowed } from './nodepool-context';
import { compatibleTypes, type PlannedNode } from './planned-node';
import type { PodGroup } from './pod-groups';
import type { PlacementProfile } from './relaxation';
import { pinTerm, type RequirementTerm } from './requirement-terms';
import type { DomainCounter, GroupTopology } from './topology';
import type { UnschedulableReason } from './unschedulable-reason';

/**
 * Which topology domains a pod may land in. Zone-level (and any other node-label) rules
 * become allowed domains per key, and a node for the pod is pinned to one of them;
 * hostname-level rules become a cap on how many pods of the group one node may take.
 */

/** Allowed domains of one topology key for the pod being placed, most preferred first. */
export interface DomainRestriction {
  readonly allowed: ReadonlySet<string>;
  readonly order: readonly string[];
}

/** Allowed domains per non-hostname topology key, or why no domain is allowed. */
export type Restricted =
  | { readonly restrictions: ReadonlyMap<string, DomainRestriction> }
  | { readonly reason: UnschedulableReason };

/** What `possibleValues` answered for one options array, with its values sorted. */
interface PossibleValues {
  readonly options: readonly InstanceType[];
  readonly set: ReadonlySet<string>;
  readonly sorted: readonly string[];
}

/**
 * The domains groups may use in one scheduling run: the domains each key can take, the
 * allowed ones under a group's rules, and terms pinned to them. Caches are per run.
 */
export class TopologyDomains {
  private readonly universes = new Map<string, Set<string>>();
  private readonly tolerationKeys = new Map<PodGroup, string>();
  private readonly pinCache = new Map<string, RequirementTerm>();
  /** Requirements values are immutable, so their identity (with the options array's) keys the cache. */
  private readonly possibleCache = new WeakMap<Requirements, Map<string, PossibleValues>>();

  constructor(
    private readonly contexts: readonly NodePoolContext[],
    private readonly nodes: readonly StateNode[],
    /** Keys (other than hostname) some topology rule counts: placements must pin them. */
    private readonly pinnedKeys: ReadonlySet<string>,
  ) {}

  /** Allowed domains per non-hostname topology key for the group under a profile, or why there are none. */
  restrict(group: PodGroup, profile: PlacementProfile, topology: GroupTopology): Restricted {
    const restrictions = new Map<string, DomainRestriction>();
    const reason =
      this.restrictBySpread(group, profile, restrictions) ??
      restrictByAffinity(profile, restrictions) ??
      this.restrictByAntiAffinity(group, profile, topology, restrictions);
    return reason ? { reason } : { restrictions };
  }

  /**
   * The keys a node for the group must be pinned on: those restricted, and those of the
   * counters its pods feed (placing one changes that key's counts).
   */
  pinKeys(restrictions: ReadonlyMap<string, DomainRestriction>, topology: GroupTopology): Set<string> {
    const keys = new Set(restrictions.keys());
    for (const c of topology.feeds) if (this.pinnedKeys.has(c.topologyKey)) keys.add(c.topologyKey);
    return keys;
  }

  /**
   * Terms with every pinned topology key fixed to one value, in preference order (the first
   * key's values outermost). A key the node's requirements already fix needs no pin. An array,
   * not a generator: this runs for every planned node on every placement, and the values each
   * node can take are cached while its requirements and options stay the same.
   */
  pinAlternatives(
    term: RequirementTerm,
    pinKeys: ReadonlySet<string>,
    restrictions: ReadonlyMap<string, DomainRestriction>,
    nodeRequirements: Requirements,
    options: readonly InstanceType[],
  ): readonly RequirementTerm[] {
    if (pinKeys.size === 0) return [term];
    let terms: RequirementTerm[] = [term];
    for (const key of pinKeys) {
      const r = restrictions.get(key);
      const next: RequirementTerm[] = [];
      for (const current of terms) {
        const possible = this.possible(key, nodeRequirements, current, options);
        const values = r ? r.order.filter((v) => possible.set.has(v)) : possible.sorted;
        for (const v of values) next.push(pinTerm(this.pinCache, current, key, v));
      }
      terms = next;
    }
    return terms;
  }

  /** The values of `key` a node with these requirements and options may take under `term`, cached. */
  private possible(
    key: string,
    nodeRequirements: Requirements,
    term: RequirementTerm,
    options: readonly InstanceType[],
  ): PossibleValues {
    let byTerm = this.possibleCache.get(nodeRequirements);
    if (!byTerm) {
      byTerm = new Map();
      this.possibleCache.set(nodeRequirements, byTerm);
    }
    const id = `${term.key}\0${key}`;
    const cached = byTerm.get(id);
    if (cached && cached.options === options) return cached;
    const set = possibleValues(key, nodeRequirements.intersect(term.requirements), options);
    const entry = { options, set, sorted: [...set].sort() };
    byTerm.set(id, entry);
    return entry;
  }

  private restrictBySpread(
    group: PodGroup,
    profile: PlacementProfile,
    restrictions: Map<string, DomainRestriction>,
  ): UnschedulableReason | undefined {
    for (const s of profile.spreads) {
      const key = s.counter.topologyKey;
      if (key === LABEL_HOSTNAME) continue;
      const universe = this.universe(group, profile, key);
      // No eligible domain means nothing admits the pod at all: opening a node says why.
      if (universe.size === 0) continue;
      const counts = [...universe].map((d) => s.counter.count(d));
      const min = universe.size < s.minDomains ? 0 : Math.min(...counts);
      const self = s.selfMatch ? 1 : 0;
      const allowed = new Set([...universe].filter((d) => s.counter.count(d) + self - min <= s.maxSkew));
      const order = [...universe].sort((a, b) => s.counter.count(a) - s.counter.count(b) || (a < b ? -1 : 1));
      if (!narrow(restrictions, key, allowed, order)) {
        return { kind: 'spread-unsatisfiable', topologyKey: key, maxSkew: s.maxSkew };
      }
    }
    return undefined;
  }

  private restrictByAntiAffinity(
    group: PodGroup,
    profile: PlacementProfile,
    topology: GroupTopology,
    restrictions: Map<string, DomainRestriction>,
  ): UnschedulableReason | undefined {
    // Domains holding a matching pod are out; a key with no eligible domain is left to
    // opening a node, which says why nothing admits the pod.
    const excluded = (key: string, counter: Pick<DomainCounter, 'count'>): boolean => {
      const universe = this.universe(group, profile, key);
      if (universe.size === 0) return false;
      const allowed = new Set([...universe].filter((d) => counter.count(d) === 0));
      return !narrow(restrictions, key, allowed, [...allowed].sort());
    };
    for (const a of profile.antiAffinities) {
      const key = a.counter.topologyKey;
      if (key !== LABEL_HOSTNAME && excluded(key, a.counter))
        return { kind: 'anti-affinity', topologyKey: key };
    }
    for (const owner of topology.repelledBy) {
      const key = owner.topologyKey;
      if (key !== LABEL_HOSTNAME && excluded(key, owner))
        return { kind: 'existing-anti-affinity', topologyKey: key };
    }
    return undefined;
  }

  /**
   * The domains of `key` the group could land in: values offered by the NodePools that admit
   * it and those of existing nodes that admit it. For the zone key, the zones the NodePool's
   * instance types are offered in, whether or not EC2 has capacity there now, as Karpenter's
   * topology.go `buildDomainGroups` counts them (from the instance types' requirements, whose
   * zones are where the type is offered, aws/karpenter-provider-aws
   * pkg/providers/instancetype/types.go `computeRequirements`): a zone whose offerings were
   * refused stays a domain with no pods, so `maxSkew` keeps pods for it pending until it returns
   * rather than piling them into the others.
   */
  private universe(group: PodGroup, profile: PlacementProfile, key: string): Set<string> {
    // Domains depend only on tolerations and node requirements, which many groups share.
    let tolerations = this.tolerationKeys.get(group);
    if (tolerations === undefined) {
      tolerations = JSON.stringify(group.representative.tolerations);
      this.tolerationKeys.set(group, tolerations);
    }
    const cacheKey = `${tolerations}|${profile.terms.map((t) => t.key).join(',')}|${key}`;
    let u = this.universes.get(cacheKey);
    if (u) return u;
    u = new Set<string>();
    const pod = group.representative;
    for (const ctx of this.contexts) {
      if (ctx.unusable || firstUntoleratedTaint(pod.tolerations, ctx.nodePool.template.taints)) continue;
      for (const term of profile.terms) {
        if (ctx.requirements.compatible(term.requirements, WELL_KNOWN_LABELS)) continue;
        const reqs = ctx.requirements.intersect(term.requirements);
        const values =
          key === LABEL_ZONE
            ? zonesOffered(ctx.instanceTypes, reqs)
            : possibleValues(key, reqs, compatibleTypes(ctx.instanceTypes, reqs));
        for (const v of values) u.add(v);
      }
    }
    for (const node of this.nodes) {
      if (firstUntoleratedTaint(pod.tolerations, node.taints)) continue;
      if (!profile.terms.some((t) => t.requirements.matchesLabels(node.labels))) continue;
      const d = nodeDomain(node, key);
      if (d !== undefined) u.add(d);
    }
    this.universes.set(cacheKey, u);
    return u;
  }
}

/** Required pod affinity: only the domains already holding a matching pod. */
function restrictByAffinity(
  profile: PlacementProfile,
  restrictions: Map<string, DomainRestriction>,
): UnschedulableReason | undefined {
  for (const a of profile.affinities) {
    const key = a.counter.topologyKey;
    if (key === LABEL_HOSTNAME) continue;
    if (a.counter.total === 0) {
      // A group that matches its own affinity term may start anywhere.
      if (a.selfMatch) continue;
      return { kind: 'no-affinity-match', topologyKey: key, selector: a.term.labelSelector ?? {} };
    }
    const allowed = new Set([...a.counter.counts].filter(([, n]) => n > 0).map(([d]) => d));
    if (!narrow(restrictions, key, allowed, [...allowed].sort())) {
      return { kind: 'affinity-unsatisfiable', topologyKey: key };
    }
  }
  return undefined;
}

/**
 * Intersects `key`'s allowed domains with `allowed` (the first rule on a key also sets its
 * preference order); false when nothing is left.
 */
function narrow(
  restrictions: Map<string, DomainRestriction>,
  key: string,
  allowed: Set<string>,
  order: readonly string[],
): boolean {
  const prev = restrictions.get(key);
  const merged = prev ? new Set([...allowed].filter((d) => prev.allowed.has(d))) : allowed;
  if (merged.size === 0) return false;
  const base = prev ? prev.order : order;
  restrictions.set(key, { allowed: merged, order: base.filter((d) => merged.has(d)) });
  return true;
}

/** Whether an existing node lies in every allowed set of domains. */
export function nodeAllowed(restrictions: ReadonlyMap<string, DomainRestriction>, node: StateNode): boolean {
  for (const [key, r] of restrictions) {
    const d = nodeDomain(node, key);
    if (d === undefined || !r.allowed.has(d)) return false;
  }
  return true;
}

/**
 * How many more pods of the group a node may take under hostname-level rules: spread
 * (a new node is always a possible domain with zero pods, so the minimum is 0), pod affinity
 * (only where matching pods are, unless none exist yet and the group matches itself) and
 * anti-affinity (both the group's own and that of pods already on the node).
 */
export function hostnameCap(profile: PlacementProfile, topology: GroupTopology, node: string): number {
  let cap = Number.POSITIVE_INFINITY;
  for (const s of profile.spreads) {
    if (s.counter.topologyKey !== LABEL_HOSTNAME) continue;
    const count = s.counter.count(node);
    cap = Math.min(cap, s.selfMatch ? s.maxSkew - count : count > s.maxSkew ? 0 : cap);
  }
  for (const a of profile.affinities) {
    if (a.counter.topologyKey !== LABEL_HOSTNAME) continue;
    if (a.counter.total === 0 ? !a.selfMatch : a.counter.count(node) === 0) return 0;
  }
  for (const a of profile.antiAffinities) {
    if (a.counter.topologyKey !== LABEL_HOSTNAME) continue;
    if (a.counter.count(node) > 0) return 0;
    if (a.selfMatch) cap = Math.min(cap, 1);
  }
  for (const owner of topology.repelledBy) {
    if (owner.topologyKey === LABEL_HOSTNAME && owner.count(node) > 0) return 0;
  }
  return Math.max(0, cap);
}

/** Why hostname-level rules rule out a new node for the group (its {@link hostnameCap} is 0). */
export function hostnameBlock(profile: PlacementProfile): UnschedulableReason {
  for (const a of profile.affinities) {
    if (a.counter.topologyKey !== LABEL_HOSTNAME) continue;
    const selector = a.term.labelSelector ?? {};
    if (a.counter.total === 0 && !a.selfMatch) {
      return { kind: 'no-affinity-match', topologyKey: LABEL_HOSTNAME, selector };
    }
    if (a.counter.total > 0) return { kind: 'affinity-nodes-full', topologyKey: LABEL_HOSTNAME, selector };
  }
  return { kind: 'hostname-rules', topologyKey: LABEL_HOSTNAME };
}

/** The domain of `key` an existing or in-flight node is in: its name for hostname, else its label. */
export function nodeDomain(node: StateNode, key: string): string | undefined {
  return key === LABEL_HOSTNAME ? node.name : node.labels[key];
}

/** The domain of `key` a planned node is pinned to, if its requirements fix one. */
export function plannedDomain(node: PlannedNode, key: string): string | undefined {
  return key === LABEL_HOSTNAME ? node.name : node.requirements.get(key)?.single;
}

/** Values `key` may take on a node with these requirements and instance type options. */
function possibleValues(
  key: string,
  requirements: Requirements,
  options: readonly InstanceType[],
): ReadonlySet<string> {
  const out = new Set<string>();
  const req = requirements.get(key);
  if (key === LABEL_ZONE) return offeredZones(requirements, options);
  if (req && !req.complement) {
    for (const v of req.values) {
      if (options.length === 0 || options.some((it) => it.requirements.get(key)?.has(v) ?? true)) out.add(v);
    }
    return out;
  }
  for (const it of options) {
    const r = it.requirements.get(key);
    if (r && !r.complement) for (const v of r.values) if (!req || req.has(v)) out.add(v);
  }
  return out;
}

const zonesCache = new WeakMap<readonly InstanceType[], Map<string, Set<string>>>();

/**
 * The zones the types whose labels the requirements admit are offered in under them, available
 * or not: a NodePool's zone domains. Not cached: {@link TopologyDomains} caches the universe
 * it is part of.
 */
function zonesOffered(types: readonly InstanceType[], requirements: Requirements): Set<string> {
  const out = new Set<string>();
  for (const it of types) {
    if (requirements.intersects(it.requirements) !== undefined) continue;
    for (const o of it.offerings) if (offeredUnder(o, requirements)) out.add(o.zone);
  }
  return out;
}

/** Whether the zone and capacity-type requirements admit an offering, whatever its availability. */
function offeredUnder(o: Offering, requirements: Requirements): boolean {
  const zone = requirements.get(LABEL_ZONE);
  if (zone && !zone.has(o.zone)) return false;
  const ct = requirements.get(LABEL_CAPACITY_TYPE);
  return !ct || ct.has(o.capacityType);
}

/**
 * Zones with a usable offering among `options` under the zone and capacity-type requirements.
 * Opening a node asks this of the same (cached) options array for every pod group, so the
 * answer is cached per options array and the two requirements that decide it.
 */
function offeredZones(requirements: Requirements, options: readonly InstanceType[]): ReadonlySet<string> {
  const zone = requirements.get(LABEL_ZONE);
  const capacityType = requirements.get(LABEL_CAPACITY_TYPE);
  const key = `${zone?.toString() ?? ''}|${capacityType?.toString() ?? ''}`;
  let byKey = zonesCache.get(options);
  if (!byKey) {
    byKey = new Map();
    zonesCache.set(options, byKey);
  }
  let out = byKey.get(key);
  if (!out) {
    out = new Set<string>();
    for (const it of options) {
      for (const o of it.offerings) {
        if (!out.has(o.zone) && offeringAllowed(o, requirements)) out.add(o.zone);
      }
    }
    byKey.set(key, out);
  }
  return out;
}
