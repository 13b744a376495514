import type { InstanceType } from '../catalog/instance-type';
import { LABEL_HOSTNAME, LABEL_ZONE, WELL_KNOWN_LABELS } from '../model/labels';
import { NODES_LIMIT } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { formatQuantity } from '../model/quantity';
import { Requirements } from '../model/requirements';
import { addInto, copiesThatFit, type MutableResources, type Resources } from '../model/resources';
import { firstUntoleratedTaint, formatTaint } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import { type PlacementProfile, pinTerm, placementProfiles, type RequirementTerm } from './group-profile';
import { chooseLaunch, efficientOptions } from './instance-selection';
import { NodePoolContext, offeringAllowed } from './nodepool-context';
import { compatibleTypes, limitedBand, maxCapacity, PlannedNode } from './planned-node';
import { groupPods, type PodGroup } from './pod-groups';
import { splitForCost } from './tail-split';
import { type GroupTopology, recordPlacement, TopologyRegistry } from './topology';
import type { NodeClaimPlan, Placement, SchedulingInput, SchedulingResult, UnschedulablePod } from './types';

/**
 * Decides where pending pods go: onto existing and in-flight capacity first, then onto new
 * NodeClaims, first-fit-decreasing over pod groups, honouring requirements, taints, topology,
 * DaemonSet overhead and NodePool limits and weights. Pure: a function of its input.
 */
export function schedule(input: SchedulingInput): SchedulingResult {
  return new Scheduler(input).run();
}

/** An existing or in-flight node with its remaining room. */
interface ExistingSlot {
  readonly node: StateNode;
  readonly used: MutableResources;
  readonly placed: Pod[];
}

/** Allowed domains of one topology key for the pod being placed, most preferred first. */
interface DomainRestriction {
  readonly allowed: ReadonlySet<string>;
  readonly order: readonly string[];
}

/** Reason prefix for required pod affinity that no pod matches (yet): retried after the first pass. */
const NO_AFFINITY_MATCH = 'required pod affinity matches no pod';

/** Below this many nodes left under a NodePool's `nodes` limit, new nodes keep every option that fits. */
const FEW_NODES_LEFT = 3;

type Attempt = { placed: number } | { reason: string };

class Scheduler {
  private readonly contexts: NodePoolContext[];
  private readonly existing: ExistingSlot[];
  private readonly planned: PlannedNode[] = [];
  private readonly registry = new TopologyRegistry();
  private readonly topologies = new Map<PodGroup, GroupTopology>();
  private readonly unschedulable: UnschedulablePod[] = [];
  private readonly pinCache = new Map<string, RequirementTerm>();
  private readonly pendingDemand: MutableResources = {};
  private pendingCount = 0;
  private readonly newNodeCache = new Map<
    string,
    { fitting: InstanceType[]; ds: Resources; average: Resources; efficient: InstanceType[]; atCount: number }
  >();
  private pinnedKeys: ReadonlySet<string> = new Set();
  /** Planned nodes the group being placed may still use (undefined = dropped for this group). */
  private live: (PlannedNode | undefined)[] = [];
  private liveDead = 0;
  private readonly typesCache = new Map<string, { requirements: Requirements; types: InstanceType[] }>();

  constructor(private readonly input: SchedulingInput) {
    const classes = new Map(input.nodeClasses.map((c) => [c.name, c]));
    this.contexts = [...input.nodePools]
      .sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
      .map(
        (np) =>
          new NodePoolContext(
            np,
            classes.get(np.template.nodeClassRef.name),
            input.instanceTypes.get(np.name) ?? [],
            input.nodes,
            input.daemonSets,
          ),
      );
    this.existing = input.nodes.map((node) => {
      const used: MutableResources = {};
      for (const p of node.pods) addInto(used, p.requests);
      return { node, used, placed: [] };
    });
  }

  run(): SchedulingResult {
    const groups = groupPods(this.input.pods);
    const rules = groups.map((g) => this.registry.rulesOf(g.representative));
    for (const slot of this.existing) {
      for (const pod of slot.node.pods) this.registry.recordExisting(pod, (key) => existingDomain(slot, key));
    }
    groups.forEach((g, i) => {
      this.topologies.set(g, this.registry.bind(g.representative, rules[i]));
    });
    this.pinnedKeys = this.registry.topologyKeys();
    for (const g of groups) {
      addInto(this.pendingDemand, g.requests, g.pods.length);
      this.pendingCount += g.pods.length;
    }

    for (const group of groups) this.scheduleGroup(group, group.pods);
    this.retryAffinityFailures(groups);

    return {
      placements: this.existing
        .filter((s) => s.placed.length > 0)
        .map((s): Placement => ({ node: s.node.name, pods: s.placed })),
      nodeClaims: this.finalise(),
      unschedulable: this.unschedulable,
    };
  }

  private consume(group: PodGroup, n: number): void {
    addInto(this.pendingDemand, group.requests, -n);
    this.pendingCount -= n;
  }

  /**
   * Pods whose required pod affinity names pods of a group placed after them fail on the first
   * pass; like Karpenter's re-queue, they get one more pass once everything else is placed.
   */
  private retryAffinityFailures(groups: readonly PodGroup[]): void {
    const failed = new Map<Pod, UnschedulablePod>(
      this.unschedulable.filter((u) => u.reason.includes(NO_AFFINITY_MATCH)).map((u) => [u.pod, u]),
    );
    for (const group of groups) {
      if (group.representative.podAffinity.length === 0) continue;
      const pods = group.pods.filter((p) => failed.has(p));
      if (pods.length === 0) continue;
      const retry = new Set(pods);
      const kept = this.unschedulable.filter((u) => !retry.has(u.pod));
      this.unschedulable.length = 0;
      this.unschedulable.push(...kept);
      addInto(this.pendingDemand, group.requests, pods.length);
      this.pendingCount += pods.length;
      this.scheduleGroup(group, pods);
    }
  }

  private scheduleGroup(group: PodGroup, pods: readonly Pod[]): void {
    const topology = this.topologies.get(group)!;
    const profiles = placementProfiles(group, topology);
    let pending = pods;
    let profileIndex = 0;
    let existingCandidates = this.existingCandidates(group, profiles[0]);
    this.live = [...this.planned];
    this.liveDead = 0;
    while (pending.length > 0) {
      const profile = profiles[profileIndex];
      const attempt = this.placeSome(group, profile, topology, pending, existingCandidates);
      if ('placed' in attempt) {
        pending = pending.slice(attempt.placed);
        this.consume(group, attempt.placed);
        continue;
      }
      if (profileIndex + 1 < profiles.length) {
        profileIndex++;
        existingCandidates = this.existingCandidates(group, profiles[profileIndex]);
        this.live = [...this.planned];
        this.liveDead = 0;
        continue;
      }
      for (const pod of pending) this.unschedulable.push({ pod, reason: attempt.reason });
      this.consume(group, pending.length);
      return;
    }
  }

  /** Existing nodes whose taints and labels admit the group under a profile. */
  private existingCandidates(group: PodGroup, profile: PlacementProfile): ExistingSlot[] {
    const pod = group.representative;
    return this.existing.filter(
      (s) =>
        !s.node.unschedulable &&
        firstUntoleratedTaint(pod.tolerations, s.node.taints) === undefined &&
        profile.terms.some((t) => t.requirements.matchesLabels(s.node.labels)),
    );
  }

  /** Places as many pods of the group as one node takes; or says why none can be placed. */
  private placeSome(
    group: PodGroup,
    profile: PlacementProfile,
    topology: GroupTopology,
    pending: readonly Pod[],
    existingCandidates: ExistingSlot[],
  ): Attempt {
    const restrictions = this.domainRestrictions(group, profile, topology);
    if (typeof restrictions === 'string') return { reason: restrictions };
    const pinKeys = new Set(restrictions.keys());
    for (const c of topology.feeds) if (this.pinnedKeys.has(c.topologyKey)) pinKeys.add(c.topologyKey);
    // Each placement changes zone-level counts, so constrained pods go one at a time.
    const bulk = pinKeys.size === 0 ? pending.length : 1;
    const request = group.requests;

    for (let i = 0; i < existingCandidates.length; i++) {
      const slot = existingCandidates[i];
      if (!this.existingAllows(slot, restrictions)) continue;
      const cap = this.hostnameCap(profile, topology, slot.node.name);
      const room = copiesThatFit(request, slot.used, slot.node.allocatable);
      const n = Math.min(bulk, cap, room);
      if (n <= 0) {
        // Room and hostname counts only shrink while this group is placed: drop the node.
        existingCandidates.splice(i--, 1);
        continue;
      }
      const pods = pending.slice(0, n);
      slot.placed.push(...pods);
      addInto(slot.used, request, n);
      recordPlacement(topology, n, (key) => existingDomain(slot, key));
      return { placed: n };
    }

    // Planned nodes this group may still use. A node that cannot take the group now never will
    // while the group is placed (room and hostname counts only shrink), so it is dropped;
    // only a node whose zone is merely not allowed at this moment stays.
    const live = this.live;
    for (let i = 0; i < live.length; i++) {
      const node = live[i];
      if (!node) continue;
      const dead = (): void => {
        live[i] = undefined;
        this.liveDead++;
      };
      if (firstUntoleratedTaint(group.representative.tolerations, node.context.nodePool.template.taints)) {
        dead();
        continue;
      }
      const cap = Math.min(bulk, this.hostnameCap(profile, topology, node.name));
      if (cap <= 0 || !node.mayHold(request)) {
        dead();
        continue;
      }
      let tried = false;
      for (const term of profile.terms) {
        for (const pinned of this.pinAlternatives(
          term,
          pinKeys,
          restrictions,
          node.requirements,
          node.options,
        )) {
          tried = true;
          const fit = node.evaluate(pinned.requirements, pinned.key, request, cap);
          if (typeof fit === 'string') continue;
          node.commit(fit, pending.slice(0, fit.copies), request, isTopologyBound(topology));
          recordPlacement(topology, fit.copies, (key) => plannedDomain(node, key));
          return { placed: fit.copies };
        }
      }
      if (tried) dead();
    }
    if (this.liveDead > 64 && this.liveDead * 2 > live.length) {
      this.live = live.filter((n) => n !== undefined);
      this.liveDead = 0;
    }

    return this.openNode(group, profile, topology, pending, bulk, pinKeys, restrictions);
  }

  private existingAllows(slot: ExistingSlot, restrictions: ReadonlyMap<string, DomainRestriction>): boolean {
    for (const [key, r] of restrictions) {
      const d = existingDomain(slot, key);
      if (d === undefined || !r.allowed.has(d)) return false;
    }
    return true;
  }

  /**
   * Terms with every pinned topology key fixed to one value, in preference order. A key the
   * node's requirements already fix needs no pin.
   */
  private *pinAlternatives(
    term: RequirementTerm,
    pinKeys: ReadonlySet<string>,
    restrictions: ReadonlyMap<string, DomainRestriction>,
    nodeRequirements: Requirements,
    options: readonly InstanceType[],
  ): Generator<RequirementTerm> {
    if (pinKeys.size === 0) {
      yield term;
      return;
    }
    const keys = [...pinKeys];
    const expand = function* (
      this: Scheduler,
      index: number,
      current: RequirementTerm,
    ): Generator<RequirementTerm> {
      if (index === keys.length) {
        yield current;
        return;
      }
      const key = keys[index];
      const possible = possibleValues(key, nodeRequirements.intersect(current.requirements), options);
      const r = restrictions.get(key);
      const values = r ? r.order.filter((v) => possible.has(v)) : [...possible].sort();
      for (const v of values) yield* expand.call(this, index + 1, pinTerm(this.pinCache, current, key, v));
    };
    yield* expand.call(this, 0, term);
  }

  /** ctx requirements ∩ term and the instance types compatible with them, cached per NodePool and term. */
  private typesFor(
    ctx: NodePoolContext,
    term: RequirementTerm,
  ): { requirements: Requirements; types: InstanceType[] } {
    const key = `${ctx.nodePool.name}|${term.key}`;
    let hit = this.typesCache.get(key);
    if (!hit) {
      const requirements = ctx.requirements.intersect(term.requirements);
      hit = { requirements, types: compatibleTypes(ctx.instanceTypes, requirements) };
      this.typesCache.set(key, hit);
    }
    return hit;
  }

  /** Instance types of the NodePool compatible with a finished node's requirements, cached by their text. */
  private typesForRequirements(ctx: NodePoolContext, requirements: Requirements): InstanceType[] {
    const key = `${ctx.nodePool.name}||${requirements.toString()}`;
    let hit = this.typesCache.get(key);
    if (!hit) {
      hit = { requirements, types: compatibleTypes(ctx.instanceTypes, requirements) };
      this.typesCache.set(key, hit);
    }
    return hit.types;
  }

  /** Creates a new planned node for the group in the heaviest NodePool that can take it. */
  private openNode(
    group: PodGroup,
    profile: PlacementProfile,
    topology: GroupTopology,
    pending: readonly Pod[],
    bulk: number,
    pinKeys: ReadonlySet<string>,
    restrictions: ReadonlyMap<string, DomainRestriction>,
  ): Attempt {
    const pod = group.representative;
    if (this.contexts.length === 0) return { reason: 'no NodePool exists' };
    const reasons: string[] = [];
    const taintReasons: string[] = [];
    for (const ctx of this.contexts) {
      if (ctx.unusable) {
        reasons.push(ctx.unusable);
        continue;
      }
      const taint = firstUntoleratedTaint(pod.tolerations, ctx.nodePool.template.taints);
      if (taint) {
        taintReasons.push(formatTaint(taint));
        reasons.push(`NodePool ${ctx.nodePool.name}: taint ${formatTaint(taint)} not tolerated`);
        continue;
      }
      let reason: string | undefined;
      for (const term of profile.terms) {
        const incompatible = ctx.requirements.compatible(term.requirements, WELL_KNOWN_LABELS);
        if (incompatible) {
          reason = `NodePool ${ctx.nodePool.name}: ${incompatible}`;
          continue;
        }
        const baseTypes = this.typesFor(ctx, term).types;
        if (baseTypes.length === 0) {
          reason = `NodePool ${ctx.nodePool.name}: no instance type satisfies ${term.requirements.toString() || 'its requirements'}`;
          continue;
        }
        for (const pinned of this.pinAlternatives(term, pinKeys, restrictions, ctx.requirements, baseTypes)) {
          const made = this.tryOpen(ctx, group, pinned, bulk, profile, topology, pending);
          if (typeof made === 'number') return { placed: made };
          reason = made;
        }
        if (pinKeys.size > 0 && reason === undefined) {
          reason = `NodePool ${ctx.nodePool.name}: no allowed topology domain (${[...pinKeys].join(', ')}) is offered`;
        }
      }
      if (reason) reasons.push(reason);
    }
    if (taintReasons.length === this.contexts.length && new Set(taintReasons).size === 1) {
      return { reason: `no NodePool tolerates taint ${taintReasons[0]}` };
    }
    return { reason: reasons.join('; ') };
  }

  private tryOpen(
    ctx: NodePoolContext,
    group: PodGroup,
    term: RequirementTerm,
    bulk: number,
    profile: PlacementProfile,
    topology: GroupTopology,
    pending: readonly Pod[],
  ): number | string {
    const name = `${ctx.nodePool.name}-planned-${this.planned.length}`;
    const cap = Math.min(bulk, this.hostnameCap(profile, topology, name));
    if (cap <= 0) return this.hostnameBlock(profile);
    const { requirements, types } = this.typesFor(ctx, term);
    const cacheKey = `${ctx.nodePool.name}|${term.key}|${group.key}`;
    let cached = this.newNodeCache.get(cacheKey);
    // The efficient set depends on the pending workload's average shape: refresh it as that drains.
    if (!cached || this.pendingCount < cached.atCount * 0.8) {
      if (types.length === 0)
        return `NodePool ${ctx.nodePool.name}: no instance type offered in the required domain`;
      const ds = ctx.daemonSetOverhead(requirements);
      const need = { ...ds };
      addInto(need, group.requests);
      const fitting = types.filter((it) => copiesThatFit(need, {}, it.allocatable) >= 1);
      if (fitting.length === 0) {
        return `NodePool ${ctx.nodePool.name}: no instance type has room for requests ${formatResources(group.requests)}${
          Object.keys(ds).length > 0 ? ` plus DaemonSet overhead ${formatResources(ds)}` : ''
        }`;
      }
      const average: MutableResources = {};
      for (const [k, v] of Object.entries(this.pendingDemand)) {
        if (v > 0) average[k] = v / Math.max(1, this.pendingCount);
      }
      cached = {
        fitting,
        ds,
        average,
        efficient: efficientOptions(fitting, requirements, ds, average),
        atCount: this.pendingCount,
      };
      this.newNodeCache.set(cacheKey, cached);
    }
    const withinLimits = ctx.limited
      ? cached.fitting.filter((it) => ctx.exceededLimit(it.capacity) === undefined)
      : cached.fitting;
    if (withinLimits.length === 0) {
      const smallest = cached.fitting.reduce((a, b) =>
        (a.capacity.cpu ?? 0) <= (b.capacity.cpu ?? 0) ? a : b,
      );
      const limit = ctx.exceededLimit(smallest.capacity) ?? 'cpu';
      return `NodePool ${ctx.nodePool.name}: limit ${limit}=${formatQuantity(limit, ctx.nodePool.limits[limit])} reached`;
    }
    // With few nodes left under a `nodes` limit, each node must be able to grow as large as
    // the limits allow (Karpenter's fill-towards-largest), not only the cheapest per pod.
    const nodesLeft = ctx.remaining[NODES_LIMIT];
    const options =
      nodesLeft !== undefined && nodesLeft <= FEW_NODES_LEFT
        ? withinLimits
        : withinLimits.length === cached.fitting.length
          ? cached.efficient
          : efficientOptions(withinLimits, requirements, cached.ds, cached.average);
    const node = new PlannedNode(name, ctx, requirements, options, ctx.daemonSetOverhead(requirements));
    const fit = node.evaluate(Requirements.EMPTY, 'empty', group.requests, cap);
    if (typeof fit === 'string') {
      node.release();
      return `NodePool ${ctx.nodePool.name}: ${fit}`;
    }
    this.planned.push(node);
    this.live.push(node);
    node.commit(fit, pending.slice(0, fit.copies), group.requests, isTopologyBound(topology));
    recordPlacement(topology, fit.copies, (key) => plannedDomain(node, key));
    return fit.copies;
  }

  /** Why hostname-level rules rule out a new node for the group. */
  private hostnameBlock(profile: PlacementProfile): string {
    for (const a of profile.affinities) {
      if (a.counter.topologyKey !== LABEL_HOSTNAME) continue;
      if (a.counter.total === 0 && !a.selfMatch) {
        return `${NO_AFFINITY_MATCH} on ${LABEL_HOSTNAME}: ${JSON.stringify(a.term.labelSelector ?? {})}`;
      }
      if (a.counter.total > 0) {
        return `pod affinity on ${LABEL_HOSTNAME}: the nodes running pods that match ${JSON.stringify(
          a.term.labelSelector ?? {},
        )} have no room`;
      }
    }
    return `topology rules on ${LABEL_HOSTNAME} rule out a new node`;
  }

  /**
   * How many more pods of the group a node may take under hostname-level rules: spread
   * (a new node is always a possible domain with zero pods, so the minimum is 0), pod affinity
   * (only where matching pods are, unless none exist yet and the group matches itself) and
   * anti-affinity (both the group's own and that of pods already on the node).
   */
  private hostnameCap(profile: PlacementProfile, topology: GroupTopology, node: string): number {
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

  /** Allowed domains per non-hostname topology key, or why there are none. */
  private domainRestrictions(
    group: PodGroup,
    profile: PlacementProfile,
    topology: GroupTopology,
  ): Map<string, DomainRestriction> | string {
    const out = new Map<string, DomainRestriction>();
    const restrict = (
      key: string,
      allowed: Set<string>,
      order: string[],
      why: string,
    ): string | undefined => {
      const prev = out.get(key);
      const merged = prev ? new Set([...allowed].filter((d) => prev.allowed.has(d))) : allowed;
      if (merged.size === 0) return why;
      const base = prev ? prev.order : order;
      out.set(key, { allowed: merged, order: base.filter((d) => merged.has(d)) });
      return undefined;
    };
    for (const s of profile.spreads) {
      const key = s.counter.topologyKey;
      if (key === LABEL_HOSTNAME) continue;
      const universe = this.universe(group, profile, key);
      // No eligible domain means nothing admits the pod at all: opening a node says why.
      if (universe.size === 0) continue;
      const counts = [...universe].map((d) => s.counter.count(d));
      const min = universe.size < s.minDomains || counts.length === 0 ? 0 : Math.min(...counts);
      const self = s.selfMatch ? 1 : 0;
      const allowed = new Set([...universe].filter((d) => s.counter.count(d) + self - min <= s.maxSkew));
      const order = [...universe].sort((a, b) => s.counter.count(a) - s.counter.count(b) || (a < b ? -1 : 1));
      const why = restrict(
        key,
        allowed,
        order,
        `topology spread on ${key} (maxSkew ${s.maxSkew}) cannot be satisfied: ${
          universe.size === 0 ? 'no eligible domain' : 'no domain keeps the skew'
        }`,
      );
      if (why) return why;
    }
    for (const a of profile.affinities) {
      const key = a.counter.topologyKey;
      if (key === LABEL_HOSTNAME) continue;
      if (a.counter.total === 0) {
        if (a.selfMatch) continue;
        return `${NO_AFFINITY_MATCH} on ${key}: ${JSON.stringify(a.term.labelSelector ?? {})}`;
      }
      const allowed = new Set([...a.counter.counts].filter(([, n]) => n > 0).map(([d]) => d));
      const why = restrict(key, allowed, [...allowed].sort(), `pod affinity on ${key} cannot be satisfied`);
      if (why) return why;
    }
    const excluding = (
      key: string,
      counter: { count(d: string): number },
      what: string,
    ): string | undefined => {
      const universe = this.universe(group, profile, key);
      if (universe.size === 0) return undefined;
      const allowed = new Set([...universe].filter((d) => counter.count(d) === 0));
      return restrict(
        key,
        allowed,
        [...allowed].sort(),
        `${what} on ${key}: every eligible domain has a matching pod`,
      );
    };
    for (const a of profile.antiAffinities) {
      if (a.counter.topologyKey === LABEL_HOSTNAME) continue;
      const why = excluding(a.counter.topologyKey, a.counter, 'pod anti-affinity');
      if (why) return why;
    }
    for (const owner of topology.repelledBy) {
      if (owner.topologyKey === LABEL_HOSTNAME) continue;
      const why = excluding(owner.topologyKey, owner, 'anti-affinity of existing pods');
      if (why) return why;
    }
    return out;
  }

  private readonly universes = new Map<string, Set<string>>();
  private readonly tolerationKeys = new Map<PodGroup, string>();

  /**
   * The domains of `key` the group could land in: values offered by the NodePools that admit
   * it (their instance types' zones for the zone key) and those of existing nodes that admit it.
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
        for (const v of possibleValues(key, reqs, compatibleTypes(ctx.instanceTypes, reqs))) u.add(v);
      }
    }
    for (const slot of this.existing) {
      if (firstUntoleratedTaint(pod.tolerations, slot.node.taints)) continue;
      if (!profile.terms.some((t) => t.requirements.matchesLabels(slot.node.labels))) continue;
      const d = existingDomain(slot, key);
      if (d !== undefined) u.add(d);
    }
    this.universes.set(cacheKey, u);
    return u;
  }

  /**
   * Turns planned nodes into NodeClaim plans: final instance type options, capacity type, zone
   * and price. A node whose pods take no part in topology may be split in two when that is
   * cheaper (see splitForCost).
   */
  private finalise(): NodeClaimPlan[] {
    const plans: NodeClaimPlan[] = [];
    for (const node of this.planned) {
      const ctx = node.context;
      node.release();
      const ds = ctx.daemonSetOverhead(node.requirements);
      const compatible = this.typesForRequirements(ctx, node.requirements);
      const parts = node.topologyBound
        ? [node.pods]
        : splitForCost(compatible, node.requirements, node.pods, ds);
      let made = this.planParts(node, parts, compatible, ds);
      if (typeof made === 'string' && parts.length > 1)
        made = this.planParts(node, [node.pods], compatible, ds);
      if (typeof made === 'string') {
        for (const pod of node.pods)
          this.unschedulable.push({ pod, reason: `NodePool ${ctx.nodePool.name}: ${made}` });
        continue;
      }
      plans.push(...made);
    }
    return plans;
  }

  /** Plans one NodeClaim per part, within the NodePool's limits; all or nothing. */
  private planParts(
    node: PlannedNode,
    parts: readonly (readonly Pod[])[],
    compatible: readonly InstanceType[],
    ds: Resources,
  ): NodeClaimPlan[] | string {
    const ctx = node.context;
    const reserved: Resources[] = [];
    const plans: NodeClaimPlan[] = [];
    for (const pods of parts) {
      const used: MutableResources = {};
      for (const p of pods) addInto(used, p.requests);
      const withinLimits = ctx.limited
        ? compatible.filter((it) => ctx.exceededLimit(it.capacity) === undefined)
        : compatible;
      if (withinLimits.length === 0) {
        for (const r of reserved) ctx.reserve(r, -1);
        const limit = compatible.length > 0 ? ctx.exceededLimit(compatible[0].capacity) : undefined;
        return limit
          ? `limit ${limit}=${formatQuantity(limit, ctx.nodePool.limits[limit])} reached`
          : 'no instance type fits';
      }
      // Any option may launch, so the largest counts against the limits: a limited NodePool's
      // options stay within the same size band packing reserved (see reservationFor).
      const need = { ...used };
      addInto(need, ds);
      const band = ctx.limited ? limitedBand(ctx, withinLimits, need) : [];
      const choice = chooseLaunch(band.length > 0 ? band : withinLimits, node.requirements, used, ds);
      if (typeof choice === 'string') {
        for (const r of reserved) ctx.reserve(r, -1);
        return choice;
      }
      const chosen = new Set(choice.options.map((o) => o.name));
      const capacity = ctx.limited ? maxCapacity(compatible.filter((it) => chosen.has(it.name))) : {};
      ctx.reserve(capacity, 1);
      reserved.push(capacity);
      const expected = choice.options[0];
      const requests = { ...used };
      addInto(requests, ds);
      plans.push({
        nodePool: ctx.nodePool.name,
        nodeClass: ctx.nodePool.template.nodeClassRef.name,
        instanceTypeOptions: choice.options,
        instanceType: expected.name,
        capacityType: choice.capacityType,
        capacityTypes: [choice.capacityType],
        zone: expected.zone,
        zones: choice.zones,
        price: expected.price,
        requirements: node.requirements,
        labels: node.requirements.labels(),
        taints: ctx.nodePool.template.taints,
        startupTaints: ctx.nodePool.template.startupTaints,
        pods,
        requests,
        daemonSetRequests: ds,
      });
    }
    return plans;
  }
}

function isTopologyBound(t: GroupTopology): boolean {
  return (
    t.spreads.length +
      t.affinities.length +
      t.antiAffinities.length +
      t.feeds.length +
      t.repelledBy.length +
      t.owns.length >
    0
  );
}

function existingDomain(slot: ExistingSlot, key: string): string | undefined {
  return key === LABEL_HOSTNAME ? slot.node.name : slot.node.labels[key];
}

function plannedDomain(node: PlannedNode, key: string): string | undefined {
  return key === LABEL_HOSTNAME ? node.name : node.requirements.get(key)?.single;
}

/** Values `key` may take on a node with these requirements and instance type options. */
function possibleValues(
  key: string,
  requirements: Requirements,
  options: readonly InstanceType[],
): Set<string> {
  const out = new Set<string>();
  const req = requirements.get(key);
  if (key === LABEL_ZONE) {
    for (const it of options) {
      for (const o of it.offerings) if (offeringAllowed(o, requirements)) out.add(o.zone);
    }
    return out;
  }
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

function formatResources(r: Resources): string {
  return Object.entries(r)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k}=${formatQuantity(k, v)}`)
    .join(', ');
}
