import type { InstanceType } from '../catalog/instance-type';
import { WELL_KNOWN_LABELS } from '../model/labels';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import {
  addInto,
  copiesThatFit,
  fits,
  type MutableResources,
  maxResources,
  type Resources,
  subtractResources,
} from '../model/resources';
import { type NodePoolContext, offeringAllowed } from './nodepool-context';
import type { NodePoolRejection } from './unschedulable-reason';

/** What adding pods to a planned node would make of it. */
export interface PlannedFit {
  readonly kind: 'fits';
  readonly requirements: Requirements;
  readonly options: readonly InstanceType[];
  readonly daemonSetOverhead: Resources;
  /** How many copies of the request fit. */
  readonly copies: number;
  /** What the node would then count against its NodePool's limits. */
  readonly reserved: Resources;
}

// Planned nodes are evaluated many times per placement and most evaluations fail: the
// rejections without data are shared rather than allocated each time.
const NO_COMPATIBLE_OPTION: NodePoolRejection = { kind: 'no-compatible-option' };
const NO_OPTION_HAS_ROOM: NodePoolRejection = { kind: 'no-option-has-room' };

/** Instance types of `types` compatible with `requirements` with a usable offering. */
export function compatibleTypes(types: readonly InstanceType[], requirements: Requirements): InstanceType[] {
  return types.filter(
    (it) =>
      requirements.intersects(it.requirements) === undefined &&
      it.offerings.some((o) => offeringAllowed(o, requirements)),
  );
}

/** Element-wise max capacity over instance types: what a node with these options may count against limits. */
export function maxCapacity(types: readonly InstanceType[]): Resources {
  let out: Resources = {};
  for (const it of types) out = maxResources(out, it.capacity);
  return out;
}

/** Limited resources may grow to this multiple of the expected instance type's size among a NodeClaim's options. */
export const LIMITED_OPTION_SPREAD = 1.5;

/**
 * What a node with these options counts against its NodePool's limits. Any option may launch,
 * so the largest counts (Karpenter's rule); for a limited NodePool the options are those within
 * {@link LIMITED_OPTION_SPREAD} × the cheapest option that holds `need`, which is also how the
 * NodeClaim's options are cut when it is finalised, so packing never reserves more headroom
 * than the launch will.
 */
export function reservationFor(
  context: NodePoolContext,
  options: readonly InstanceType[],
  need: Resources,
): Resources {
  if (!context.limited) return {};
  const band = limitedBand(context, options, need);
  return maxCapacity(band.length > 0 ? band : options);
}

/** The options within the limited size band around the cheapest option that holds `need`. */
export function limitedBand(
  context: NodePoolContext,
  options: readonly InstanceType[],
  need: Resources,
): InstanceType[] {
  let expected: InstanceType | undefined;
  let price = Number.POSITIVE_INFINITY;
  for (const it of options) {
    // The price is a cached lookup; fits is only asked of a type that would be cheaper.
    const p = context.price(it);
    if (p < price && fits(need, {}, it.allocatable)) {
      price = p;
      expected = it;
    }
  }
  if (!expected) return [];
  const reference = expected.capacity;
  return options.filter(
    (it) =>
      context.withinFactor(it.capacity, reference, LIMITED_OPTION_SPREAD) && fits(need, {}, it.allocatable),
  );
}

/**
 * A node the scheduler is planning to create (Karpenter's in-memory NodeClaim): the NodePool,
 * requirements narrowed by the pods placed so far, the instance types that could still hold
 * them, and the pods. Its capacity is reserved against the NodePool's limits as the maximum
 * over its remaining options, so whichever option launches the limits hold.
 */
export class PlannedNode {
  readonly pods: Pod[] = [];
  readonly used: MutableResources = {};
  /** Whether any pod on it takes part in topology (spread, affinity): then it may not be split. */
  topologyBound = false;
  /**
   * The pods on it that take part in topology: they must stay on this node. The others count
   * in no rule, so finalising may move them to other nodes of the same requirements.
   */
  readonly boundPods: Pod[] = [];
  private reserved: Resources;
  private readonly evaluations = new Map<
    string,
    { version: number; requirements: Requirements; options: InstanceType[]; ds: Resources }
  >();
  private version = 0;

  constructor(
    readonly name: string,
    readonly context: NodePoolContext,
    public requirements: Requirements,
    public options: readonly InstanceType[],
    public daemonSetOverhead: Resources,
  ) {
    this.reserved = reservationFor(context, options, daemonSetOverhead);
    context.reserve(this.reserved, 1);
  }

  /**
   * How `maxCopies` (at most) pods with `request` and requirements `term` would fit, or why
   * none can. `termKey` identifies `term` for caching (the scheduler evaluates the same term
   * many times).
   */
  evaluate(
    term: Requirements,
    termKey: string,
    request: Resources,
    maxCopies: number,
  ): PlannedFit | NodePoolRejection {
    let e = this.evaluations.get(termKey);
    if (!e || e.version !== this.version) {
      const incompatible = this.requirements.compatible(term, WELL_KNOWN_LABELS);
      if (incompatible) return { kind: 'incompatible-requirements', detail: incompatible };
      const requirements = this.requirements.implies(term)
        ? this.requirements
        : this.requirements.intersect(term);
      const options =
        requirements === this.requirements ? [...this.options] : compatibleTypes(this.options, requirements);
      const ds =
        requirements === this.requirements
          ? this.daemonSetOverhead
          : this.context.daemonSetOverhead(requirements);
      e = { version: this.version, requirements, options, ds };
      this.evaluations.set(termKey, e);
    }
    if (e.options.length === 0) return NO_COMPATIBLE_OPTION;
    const base = { ...this.used };
    addInto(base, e.ds);
    let best = 0;
    for (const it of e.options) {
      const n = copiesThatFit(request, base, it.allocatable);
      if (n > best) best = n;
      if (best >= maxCopies) break;
    }
    let copies = Math.min(best, maxCopies);
    if (copies === 0) return NO_OPTION_HAS_ROOM;
    for (;;) {
      const need = { ...base };
      addInto(need, request, copies);
      const options = e.options.filter((it) => fits(need, {}, it.allocatable));
      const reserved = reservationFor(this.context, options, need);
      const grows = subtractResources(reserved, this.reserved);
      const limit = this.context.exceededLimit(grows, false);
      if (limit === undefined) {
        return {
          kind: 'fits',
          requirements: e.requirements,
          options,
          daemonSetOverhead: e.ds,
          copies,
          reserved,
        };
      }
      if (copies === 1) return { kind: 'limit-reached-by-node', resource: limit };
      copies = 1;
    }
  }

  /** Adds pods according to a fit returned by `evaluate`. */
  commit(fit: PlannedFit, pods: readonly Pod[], request: Resources, topologyBound: boolean): void {
    if (topologyBound) {
      this.topologyBound = true;
      this.boundPods.push(...pods);
    }
    this.maxFree = undefined;
    this.pods.push(...pods);
    addInto(this.used, request, pods.length);
    if (fit.requirements !== this.requirements || fit.options.length !== this.options.length) {
      this.requirements = fit.requirements;
      this.options = fit.options;
      this.daemonSetOverhead = fit.daemonSetOverhead;
      this.version++;
    }
    this.context.reserve(this.reserved, -1);
    this.context.reserve(fit.reserved, 1);
    this.reserved = fit.reserved;
  }

  private maxFree?: MutableResources;

  /**
   * The room left on the largest remaining option (per resource, the largest allocatable
   * among the options minus what the pods and DaemonSets use), ignoring requirement
   * narrowing: no pod that asks for more of some resource fits.
   */
  freeRoom(): Resources {
    if (!this.maxFree) {
      const free: MutableResources = {};
      for (const it of this.options) {
        for (const k in it.allocatable) {
          const v = it.allocatable[k];
          if (v > (free[k] ?? Number.NEGATIVE_INFINITY)) free[k] = v;
        }
      }
      for (const k in this.used) free[k] = (free[k] ?? 0) - this.used[k];
      for (const k in this.daemonSetOverhead) free[k] = (free[k] ?? 0) - this.daemonSetOverhead[k];
      this.maxFree = free;
    }
    return this.maxFree;
  }

  /**
   * A cheap necessary condition for `evaluate`: whether the largest remaining option still has
   * room for one `request` (ignoring requirement narrowing).
   */
  mayHold(request: Resources): boolean {
    const free = this.freeRoom();
    for (const k in request) {
      if (request[k] > 0 && request[k] > (free[k] ?? 0)) return false;
    }
    return true;
  }

  /** Releases this node's reservation against the NodePool limits (before finalising it). */
  release(): void {
    this.context.reserve(this.reserved, -1);
    this.reserved = {};
  }
}
