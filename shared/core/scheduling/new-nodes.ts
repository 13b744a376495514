import type { InstanceType } from '../catalog/instance-type';
import { LABEL_HOSTNAME, WELL_KNOWN_LABELS } from '../model/labels';
import { NODES_LIMIT } from '../model/nodepool';
import { Requirements } from '../model/requirements';
import { addInto, copiesThatFit, type Resources } from '../model/resources';
import { firstUntoleratedTaint, formatTaint, type Taint } from '../model/taints';
import { hostnameBlock, hostnameCap, plannedDomain, type TopologyDomains } from './domains';
import { efficientOptions } from './instance-selection';
import type { NodePoolContext } from './nodepool-context';
import type { PendingDemand } from './pending-demand';
import type { Attempt, PlacementRequest } from './placement-request';
import { compatibleTypes, PlannedNode } from './planned-node';
import type { PodGroup } from './pod-groups';
import type { PlacementProfile } from './relaxation';
import type { RequirementTerm } from './requirement-terms';
import { RoomIndex } from './room-index';
import { isTopologyBound, recordPlacement } from './topology';
import type { NodePoolRejection, UnschedulableReason } from './unschedulable-reason';

/** Below this many nodes left under a NodePool's `nodes` limit, new nodes keep every option that fits. */
const FEW_NODES_LEFT = 3;

/** The instance types a new node for a group may start from, and what they were chosen for. */
interface StartingTypes {
  /** The types with room for one pod plus DaemonSet overhead. */
  readonly fitting: readonly InstanceType[];
  readonly ds: Resources;
  readonly average: Resources;
  /** The cheapest of `fitting` per average pending pod (see efficientOptions). */
  readonly efficient: readonly InstanceType[];
  /** Pending pods when this was computed. */
  readonly atCount: number;
}

/**
 * The nodes a scheduling run plans to create (Karpenter's NodeClaims in scheduling): pods go
 * onto a planned node while one takes them, and a new one is opened in the heaviest NodePool
 * that admits the group when none does.
 */
export class NewNodes {
  /** Every node planned in this run, in the order opened. */
  readonly planned: PlannedNode[] = [];
  /** Each planned node's free room, by index in `planned`: first-fit skips the nodes without. */
  private readonly room = new RoomIndex();
  /**
   * `dropped[i] === epoch`: planned node `i` is dropped for the group being placed. The epoch
   * moves on for each group (and each relaxed profile), so starting one costs nothing.
   */
  private dropped = new Int32Array(64);
  private epoch = 0;
  /**
   * Every node before this index is dropped or has no room for the group: a placement that
   * succeeds returns early, so without it every placement would search the same prefix again.
   */
  private start = 0;
  /** Index in `planned` by node name. */
  private readonly indexByName = new Map<string, number>();
  private readonly typesCache = new Map<string, { requirements: Requirements; types: InstanceType[] }>();
  private readonly startingTypesCache = new Map<string, StartingTypes>();

  constructor(
    /** NodePools by descending weight, then name. */
    private readonly contexts: readonly NodePoolContext[],
    private readonly domains: TopologyDomains,
    private readonly demand: PendingDemand,
  ) {}

  /** Starts placing a group (or the same group under a relaxed profile): every planned node is a candidate again. */
  beginGroup(): void {
    this.epoch++;
    this.start = 0;
  }

  /** Places as many pending pods as the first planned node that takes them holds; 0 when none does. */
  placeOnPlanned(request: PlacementRequest): number {
    // A node that cannot take the group now never will while the group is placed (room and
    // hostname counts only shrink), so it is dropped; only a node whose zone is merely not
    // allowed at this moment stays. Nodes without room are not visited at all: the room index
    // skips them, and their room changes only when pods are added, which needs a visit.
    const { group, profile } = request;
    const { dropped, room } = this;
    const epoch = this.epoch;
    const requests = group.requests;
    const holders = this.affinityHolders(profile);
    if (holders) {
      for (const i of holders) {
        if (dropped[i] === epoch) continue;
        const placed = this.tryPlanned(i, request);
        if (placed > 0) return placed;
        if (placed === 0) dropped[i] = epoch;
      }
      return 0;
    }
    // While every node visited so far is dropped, `start` follows the walk.
    let prefix = true;
    for (let i = room.next(this.start, requests); i >= 0; i = room.next(i + 1, requests)) {
      if (prefix) this.start = i;
      if (dropped[i] !== epoch) {
        const placed = this.tryPlanned(i, request);
        if (placed > 0) return placed;
        if (placed < 0) {
          prefix = false;
          continue;
        }
        dropped[i] = epoch;
      }
      if (prefix) this.start = i + 1;
    }
    if (prefix) this.start = room.length;
    return 0;
  }

  /**
   * Places what planned node `i` takes of the pending pods: how many, 0 when the node cannot
   * take the group (it is then dropped for the group), −1 when it may later (its zone is merely
   * not allowed at this moment).
   */
  private tryPlanned(i: number, request: PlacementRequest): number {
    const { group, profile, topology, pending, bulk, pinKeys, restrictions } = request;
    const node = this.planned[i];
    const requests = group.requests;
    if (
      firstUntoleratedTaint(group.representative.tolerations, node.context.nodePool.template.taints) ||
      !node.mayHold(requests)
    ) {
      return 0;
    }
    const cap = Math.min(bulk, hostnameCap(profile, topology, node.name));
    if (cap <= 0) return 0;
    let tried = false;
    for (const term of profile.terms) {
      const alternatives = this.domains.pinAlternatives(
        term,
        pinKeys,
        restrictions,
        node.requirements,
        node.options,
      );
      for (const pinned of alternatives) {
        tried = true;
        const fit = node.evaluate(pinned.requirements, pinned.key, requests, cap);
        if (fit.kind !== 'fits') continue;
        node.commit(fit, pending.slice(0, fit.copies), requests, isTopologyBound(topology));
        this.room.set(i, node.freeRoom());
        recordPlacement(topology, fit.copies, (key) => plannedDomain(node, key));
        return fit.copies;
      }
    }
    return tried ? 0 : -1;
  }

  /**
   * Under a required hostname affinity term that already matches pods, only the nodes holding
   * them may take the group ({@link hostnameCap} is 0 on every other node): their indices in
   * `planned`, in order. Undefined when the profile has no such term. Walking every node with
   * room instead was most of the placement time on Karpenter's benchmark mix.
   */
  private affinityHolders(profile: PlacementProfile): number[] | undefined {
    for (const a of profile.affinities) {
      if (a.counter.topologyKey !== LABEL_HOSTNAME || a.counter.total === 0) continue;
      const out: number[] = [];
      for (const [name, count] of a.counter.counts) {
        const i = count === 0 ? undefined : this.indexByName.get(name);
        if (i !== undefined) out.push(i);
      }
      return out.sort((x, y) => x - y);
    }
    return undefined;
  }

  /** Opens a new planned node for the group in the heaviest NodePool that can take it, or says why none can. */
  open(request: PlacementRequest): Attempt {
    if (this.contexts.length === 0) return { reason: { kind: 'no-nodepool' } };
    const tolerations = request.group.representative.tolerations;
    const reasons: UnschedulableReason[] = [];
    const taints: Taint[] = [];
    for (const ctx of this.contexts) {
      if (ctx.unusable) {
        reasons.push(rejectedBy(ctx, ctx.unusable));
        continue;
      }
      const taint = firstUntoleratedTaint(tolerations, ctx.nodePool.template.taints);
      if (taint) {
        taints.push(taint);
        reasons.push(rejectedBy(ctx, { kind: 'untolerated-taint', taint }));
        continue;
      }
      const attempt = this.openIn(ctx, request);
      if (attempt && 'placed' in attempt) return attempt;
      if (attempt) reasons.push(attempt.reason);
    }
    // One taint on every NodePool says more than the same sentence per NodePool.
    if (taints.length === this.contexts.length && new Set(taints.map(formatTaint)).size === 1) {
      return { reason: { kind: 'no-nodepool-tolerates-taint', taint: taints[0] } };
    }
    return { reason: reasons.length === 1 ? reasons[0] : { kind: 'every-nodepool-rejected', reasons } };
  }

  /**
   * Opens a node in one NodePool, trying each requirement term and each allowed domain in
   * order; the last reason it failed, or undefined when there was nothing to try.
   */
  private openIn(ctx: NodePoolContext, request: PlacementRequest): Attempt | undefined {
    const { profile, pinKeys, restrictions } = request;
    let reason: UnschedulableReason | undefined;
    for (const term of profile.terms) {
      const incompatible = ctx.requirements.compatible(term.requirements, WELL_KNOWN_LABELS);
      if (incompatible) {
        reason = rejectedBy(ctx, { kind: 'incompatible-requirements', detail: incompatible });
        continue;
      }
      const baseTypes = this.typesFor(ctx, term).types;
      if (baseTypes.length === 0) {
        const requirements = term.requirements.toString();
        reason = rejectedBy(ctx, { kind: 'no-instance-type-satisfies', requirements });
        continue;
      }
      const alternatives = this.domains.pinAlternatives(
        term,
        pinKeys,
        restrictions,
        ctx.requirements,
        baseTypes,
      );
      for (const pinned of alternatives) {
        const attempt = this.tryOpen(ctx, pinned, request);
        if ('placed' in attempt) return attempt;
        reason = attempt.reason;
      }
      if (pinKeys.size > 0 && reason === undefined) {
        reason = rejectedBy(ctx, { kind: 'no-allowed-domain-offered', topologyKeys: [...pinKeys] });
      }
    }
    return reason && { reason };
  }

  /** Opens a node in `ctx` under one (pinned) term and places what it takes. */
  private tryOpen(ctx: NodePoolContext, term: RequirementTerm, request: PlacementRequest): Attempt {
    const { group, profile, topology, pending } = request;
    const name = `${ctx.nodePool.name}-planned-${this.planned.length}`;
    const cap = Math.min(request.bulk, hostnameCap(profile, topology, name));
    if (cap <= 0) return { reason: hostnameBlock(profile) };
    const { requirements } = this.typesFor(ctx, term);
    const options = this.newNodeOptions(ctx, term, group);
    if ('kind' in options) return { reason: rejectedBy(ctx, options) };
    const node = new PlannedNode(name, ctx, requirements, options, ctx.daemonSetOverhead(requirements));
    const fit = node.evaluate(Requirements.EMPTY, 'empty', group.requests, cap);
    if (fit.kind !== 'fits') {
      node.release();
      return { reason: rejectedBy(ctx, fit) };
    }
    this.indexByName.set(name, this.planned.length);
    this.planned.push(node);
    node.commit(fit, pending.slice(0, fit.copies), group.requests, isTopologyBound(topology));
    this.room.push(node.freeRoom());
    if (this.dropped.length < this.planned.length) {
      const grown = new Int32Array(this.dropped.length * 2);
      grown.set(this.dropped);
      this.dropped = grown;
    }
    recordPlacement(topology, fit.copies, (key) => plannedDomain(node, key));
    return { placed: fit.copies };
  }

  /** The instance type options a new node in `ctx` under `term` starts with, within the NodePool's limits. */
  private newNodeOptions(
    ctx: NodePoolContext,
    term: RequirementTerm,
    group: PodGroup,
  ): readonly InstanceType[] | NodePoolRejection {
    const types = this.startingTypes(ctx, term, group);
    if (!('fitting' in types)) return types;
    const withinLimits = ctx.withinLimits(types.fitting);
    if (withinLimits.length === 0) {
      const smallest = types.fitting.reduce((a, b) =>
        (a.capacity.cpu ?? 0) <= (b.capacity.cpu ?? 0) ? a : b,
      );
      const resource = ctx.exceededLimit(smallest.capacity) ?? 'cpu';
      return { kind: 'limit-reached', resource, limit: ctx.nodePool.limits[resource] };
    }
    // With few nodes left under a `nodes` limit, each node must be able to grow as large as
    // the limits allow (Karpenter's fill-towards-largest), not only the cheapest per pod.
    const nodesLeft = ctx.remaining[NODES_LIMIT];
    if (nodesLeft !== undefined && nodesLeft <= FEW_NODES_LEFT) return withinLimits;
    if (withinLimits.length === types.fitting.length) return types.efficient;
    return efficientOptions(withinLimits, this.typesFor(ctx, term).requirements, types.ds, types.average);
  }

  /**
   * The types with room for one pod of the group, cached per NodePool, term and group. The
   * efficient set depends on the pending workload's average shape: it is refreshed as that drains.
   */
  private startingTypes(
    ctx: NodePoolContext,
    term: RequirementTerm,
    group: PodGroup,
  ): StartingTypes | NodePoolRejection {
    const cacheKey = `${ctx.nodePool.name}|${term.key}|${group.key}`;
    const cached = this.startingTypesCache.get(cacheKey);
    if (cached && this.demand.count >= cached.atCount * 0.8) return cached;
    const { requirements, types } = this.typesFor(ctx, term);
    if (types.length === 0) return { kind: 'no-instance-type-in-domain' };
    const ds = ctx.daemonSetOverhead(requirements);
    const need = { ...ds };
    addInto(need, group.requests);
    const fitting = types.filter((it) => copiesThatFit(need, {}, it.allocatable) >= 1);
    if (fitting.length === 0) {
      return { kind: 'no-room-for-requests', requests: group.requests, daemonSetOverhead: ds };
    }
    const average = this.demand.averagePod();
    const fresh: StartingTypes = {
      fitting,
      ds,
      average,
      efficient: efficientOptions(fitting, requirements, ds, average),
      atCount: this.demand.count,
    };
    this.startingTypesCache.set(cacheKey, fresh);
    return fresh;
  }

  /** NodePool requirements ∩ term and the instance types compatible with them, cached per NodePool and term. */
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
}

/** A NodePool's rejection as the reason a pod is unschedulable. */
function rejectedBy(ctx: NodePoolContext, rejection: NodePoolRejection): UnschedulableReason {
  return { kind: 'nodepool', nodePool: ctx.nodePool.name, rejection };
}
