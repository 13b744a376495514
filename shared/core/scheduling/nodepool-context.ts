import type { InstanceType, Offering } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import {
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_TYPE,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  WELL_KNOWN_LABELS,
} from '../model/labels';
import { NODES_LIMIT, type NodePool } from '../model/nodepool';
import { type NodeSelectorRequirement, Requirement, Requirements } from '../model/requirements';
import { addInto, fits, type MutableResources, maxResources, type Resources } from '../model/resources';
import { firstUntoleratedTaint } from '../model/taints';
import type { DaemonSet, StateNode } from '../state/cluster-state';
import type { NodePoolRejection } from './unschedulable-reason';

/** Whether an offering is usable under `requirements` (zone and capacity type allowed, available). */
export function offeringAllowed(o: Offering, requirements: Requirements): boolean {
  if (!o.available) return false;
  const zone = requirements.get(LABEL_ZONE);
  if (zone && !zone.has(o.zone)) return false;
  const ct = requirements.get(LABEL_CAPACITY_TYPE);
  if (ct && !ct.has(o.capacityType)) return false;
  // A reserved offering carries capacity-reservation-id In [its id], the others DoesNotExist
  // (Karpenter's reserved_capacity_resolver.go / base_resolver.go offering requirements).
  const reservation = requirements.get(LABEL_CAPACITY_RESERVATION_ID);
  if (!reservation) return true;
  return o.reservation
    ? reservation.has(o.reservation.id)
    : reservation.operator === 'NotIn' || reservation.operator === 'DoesNotExist';
}

/** The cheapest usable offering of `it` under `requirements`, optionally of one capacity type. */
export function cheapestOffering(
  it: InstanceType,
  requirements: Requirements,
  capacityType?: CapacityType,
): Offering | undefined {
  let best: Offering | undefined;
  for (const o of it.offerings) {
    if (capacityType && o.capacityType !== capacityType) continue;
    if (!offeringAllowed(o, requirements)) continue;
    if (!best || o.price < best.price || (o.price === best.price && o.zone < best.zone)) best = o;
  }
  return best;
}

/**
 * Everything about one NodePool the scheduler needs, computed once per run: its requirements
 * (template requirements ∩ template labels ∩ its own name), the instance types it may launch,
 * its taints, the resources its limits still allow and the DaemonSets that run on its nodes.
 */
export class NodePoolContext {
  readonly requirements: Requirements;
  readonly instanceTypes: readonly InstanceType[];
  /** Set when the NodePool cannot launch anything at all: why. */
  readonly unusable?: NodePoolRejection;
  /** Limits minus existing and in-flight capacity minus what this run has reserved. */
  readonly remaining: MutableResources;
  readonly daemonSets: readonly DaemonSet[];
  /** The limited resources (keys of `remaining`). */
  private readonly limitKeys: readonly string[];

  constructor(
    readonly nodePool: NodePool,
    readonly nodeClass: EC2NodeClass | undefined,
    instanceTypes: readonly InstanceType[],
    nodes: readonly StateNode[],
    daemonSets: readonly DaemonSet[],
  ) {
    const t = nodePool.template;
    this.requirements = Requirements.from(t.requirements)
      .intersect(Requirements.fromLabels(t.labels))
      .with(Requirement.of(LABEL_NODEPOOL, 'In', [nodePool.name]))
      .with(Requirement.of(LABEL_NODECLASS, 'In', [t.nodeClassRef.name]));
    this.instanceTypes = instanceTypes.filter(
      (it) =>
        this.requirements.intersects(it.requirements) === undefined &&
        it.offerings.some((o) => offeringAllowed(o, this.requirements)),
    );
    if (!nodeClass) {
      this.unusable = {
        kind: 'node-class-not-found',
        nodeClassKind: t.nodeClassRef.kind,
        nodeClassName: t.nodeClassRef.name,
      };
    } else if (this.instanceTypes.length === 0) {
      this.unusable = { kind: 'no-offered-instance-type' };
    }
    this.remaining = {};
    for (const [k, v] of Object.entries(nodePool.limits)) this.remaining[k] = v;
    this.limitKeys = Object.keys(this.remaining);
    for (const n of nodes) {
      if (n.nodePool !== nodePool.name || this.limitKeys.length === 0) continue;
      const counted = n.launchRequirements
        ? largestLaunch(n, n.launchRequirements, instanceTypes)
        : (n.capacity ?? n.allocatable);
      for (const k of this.limitKeys) {
        this.remaining[k] -= k === NODES_LIMIT ? 1 : (counted[k] ?? 0);
      }
    }
    // DaemonSet pods that tolerate the pool's taints and can run on its nodes add overhead to
    // every new node. Startup taints do not count: they are lifted once the node is ready and
    // the DaemonSet's pod then runs (Karpenter's isDaemonPodCompatible checks spec.taints only).
    // Checked against the pool's requirements: conservative when a DaemonSet targets only some
    // of the pool's nodes (e.g. one architecture).
    this.daemonSets = daemonSets.filter(
      (ds) =>
        firstUntoleratedTaint(ds.pod.tolerations, t.taints) === undefined &&
        daemonSetRequirementTerms(ds).some(
          (term) => this.requirements.compatible(term, WELL_KNOWN_LABELS) === undefined,
        ),
    );
  }

  /** Requests of the DaemonSets that would run on a node with `requirements`. */
  daemonSetOverhead(requirements: Requirements): Resources {
    const out: MutableResources = {};
    for (const ds of this.daemonSets) {
      if (
        daemonSetRequirementTerms(ds).some(
          (term) => requirements.compatible(term, WELL_KNOWN_LABELS) === undefined,
        )
      ) {
        addInto(out, ds.pod.requests);
      }
    }
    return out;
  }

  /** Whether launching `capacity` stays within the limits; returns the first exceeded limit. */
  exceededLimit(capacity: Resources, newNode = true): string | undefined {
    // Hot on the limited-NodePool path (every option of every node): no allocation.
    for (const k of this.limitKeys) {
      const need = k === NODES_LIMIT ? (newNode ? 1 : 0) : (capacity[k] ?? 0);
      if (need > this.remaining[k]) return k;
    }
    return undefined;
  }

  /**
   * The types of `types` a new node may launch within the limits. While even the largest of
   * them fits what the limits leave, all do, and the list is returned as is: the limited path
   * then costs one check per call instead of one per option.
   */
  withinLimits(types: readonly InstanceType[]): readonly InstanceType[] {
    if (!this.limited) return types;
    let largest = this.largestCache.get(types);
    if (!largest) {
      largest = maxOf(types);
      this.largestCache.set(types, largest);
    }
    if (this.exceededLimit(largest) === undefined) return types;
    return types.filter((it) => this.exceededLimit(it.capacity) === undefined);
  }

  private readonly largestCache = new WeakMap<readonly InstanceType[], Resources>();

  /** Whether the NodePool has any limit. */
  get limited(): boolean {
    return Object.keys(this.nodePool.limits).length > 0;
  }

  /** Whether `capacity` is at most `factor` × `reference` on every limited resource. */
  withinFactor(capacity: Resources, reference: Resources, factor: number): boolean {
    for (const k of this.limitKeys) {
      if (k === NODES_LIMIT) continue;
      if ((capacity[k] ?? 0) > (reference[k] ?? 0) * factor) return false;
    }
    return true;
  }

  /**
   * The price of `it`'s cheapest usable offering under this NodePool's requirements, cached:
   * the limited path prices every option of every node.
   */
  price(it: InstanceType): number {
    let p = this.prices.get(it);
    if (p === undefined) {
      p = cheapestOffering(it, this.requirements)?.price ?? Number.POSITIVE_INFINITY;
      this.prices.set(it, p);
    }
    return p;
  }

  private readonly prices = new Map<InstanceType, number>();

  /**
   * The cheapest type of `types` (by {@link price}) whose allocatable holds `need`, as
   * limitedBand finds it; `types` is sorted by price once per array, so finalising thousands
   * of nodes of one NodePool stops at the first fit instead of scanning every type.
   */
  cheapestFitting(types: readonly InstanceType[], need: Resources): InstanceType | undefined {
    let sorted = this.byPrice.get(types);
    if (!sorted) {
      // Stable: equal prices keep the order of `types`, as limitedBand's scan does.
      sorted = types
        .filter((it) => Number.isFinite(this.price(it)))
        .sort((a, b) => this.price(a) - this.price(b));
      this.byPrice.set(types, sorted);
    }
    return sorted.find((it) => fits(need, {}, it.allocatable));
  }

  private readonly byPrice = new WeakMap<readonly InstanceType[], InstanceType[]>();

  reserve(capacity: Resources, sign: 1 | -1): void {
    for (const k of this.limitKeys) {
      this.remaining[k] -= sign * (k === NODES_LIMIT ? 1 : (capacity[k] ?? 0));
    }
  }
}

const dsTermCache = new WeakMap<DaemonSet, Requirements[]>();

function daemonSetRequirementTerms(ds: DaemonSet): Requirements[] {
  let terms = dsTermCache.get(ds);
  if (!terms) {
    const base = Requirements.fromLabels(ds.pod.nodeSelector);
    const affinity = ds.pod.requiredNodeAffinity;
    terms =
      affinity && affinity.length > 0
        ? affinity.map((t) => base.intersect(Requirements.from(t.matchExpressions)))
        : [base];
    dsTermCache.set(ds, terms);
  }
  return terms;
}

/**
 * What a NodeClaim whose launch is not recorded counts against its NodePool's limits: the
 * largest capacity among the instance types its requirements allow (offerings marked
 * unavailable included: the claim may still launch as one), and at least what it requests. This
 * is what the scheduler reserved for it when it planned it (finalise.ts: "Any option may
 * launch, so the largest counts against the limits"; kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/scheduling/scheduler.go `subtractMax` over the new NodeClaim's
 * `InstanceTypeOptions`), so a later run does not hand the same room out again.
 */
function largestLaunch(
  node: StateNode,
  launchRequirements: readonly NodeSelectorRequirement[],
  instanceTypes: readonly InstanceType[],
): Resources {
  const requirements = Requirements.from(launchRequirements);
  const allowed = instanceTypes.filter((it) => requirements.intersects(it.requirements) === undefined);
  return maxResources(maxOf(allowed), node.capacity ?? node.allocatable);
}

/** Element-wise maximum capacity over instance types. */
function maxOf(types: readonly InstanceType[]): Resources {
  const out: MutableResources = {};
  for (const it of types) {
    for (const k in it.capacity) if (it.capacity[k] > (out[k] ?? 0)) out[k] = it.capacity[k];
  }
  return out;
}
