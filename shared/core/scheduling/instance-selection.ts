import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import { LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_TYPE, LABEL_ZONE } from '../model/labels';
import type { Requirements } from '../model/requirements';
import { addInto, fits, type Resources } from '../model/resources';
import { cheapestOffering, offeringAllowed } from './nodepool-context';
import type { ReservationLedger } from './reservation-ledger';
import type { NodePoolRejection } from './unschedulable-reason';

/** CreateFleet takes at most this many overrides; Karpenter caps options the same way. */
export const MAX_INSTANCE_TYPE_OPTIONS = 60;

/** How much dearer per pod an option may be than the best and still be packed towards. */
const EFFICIENCY_TOLERANCE = 0.1;

/**
 * The instance types worth filling for a new node: those whose price per "average pending
 * pod" is within 10 % of the best. Karpenter fills a new node towards the largest compatible
 * type and only then picks the cheapest that fits, so its nodes end up sized by whichever type
 * happens to be biggest; choosing the target by price per pod-equivalent (the pending pods'
 * average request, including the pods slot) packs towards the types that are cheap for this
 * workload's shape, and the node is still right-sized when it is finalised.
 */
export function efficientOptions(
  types: readonly InstanceType[],
  requirements: Requirements,
  daemonSetOverhead: Resources,
  averagePod: Resources,
): InstanceType[] {
  const scored: { it: InstanceType; cost: number }[] = [];
  let best = Number.POSITIVE_INFINITY;
  for (const it of types) {
    const price = offeringPrice(it, requirements);
    if (price === undefined) continue;
    let podEquivalents = Number.POSITIVE_INFINITY;
    for (const k in averagePod) {
      const avg = averagePod[k];
      if (avg <= 0) continue;
      const free = (it.allocatable[k] ?? 0) - (daemonSetOverhead[k] ?? 0);
      podEquivalents = Math.min(podEquivalents, free / avg);
    }
    if (!(podEquivalents > 0) || !Number.isFinite(podEquivalents)) continue;
    const cost = price / podEquivalents;
    scored.push({ it, cost });
    if (cost < best) best = cost;
  }
  const kept = scored.filter((s) => s.cost <= best * (1 + EFFICIENCY_TOLERANCE)).map((s) => s.it);
  return kept.length > 0 ? kept : [...types];
}

const offeringPrices = new WeakMap<Requirements, Map<InstanceType, number | null>>();

/**
 * The price of `it`'s cheapest offering under `requirements` (undefined when none is allowed),
 * once per (immutable) Requirements value and type: efficientOptions asks it of every fitting
 * type for each pod group, and the requirements it is given come from a cache, so the same
 * questions came back thousands of times.
 */
function offeringPrice(it: InstanceType, requirements: Requirements): number | undefined {
  let prices = offeringPrices.get(requirements);
  if (!prices) {
    prices = new Map();
    offeringPrices.set(requirements, prices);
  }
  let price = prices.get(it);
  if (price === undefined) {
    price = cheapestOffering(it, requirements)?.price ?? null;
    prices.set(it, price);
  }
  return price ?? undefined;
}

/** The launch decision for a finished planned node. */
export interface LaunchChoice {
  readonly kind: 'launch';
  readonly capacityType: CapacityType;
  readonly options: readonly InstanceTypeOption[];
  readonly zones: readonly string[];
  /** The instance types of `options`, in the same order. */
  readonly instanceTypes: readonly InstanceType[];
  /** For `reserved`: every reservation the options may launch into, one instance of each promised. */
  readonly reservationIds?: readonly string[];
}

/**
 * Prices the instance types that can hold `used + daemonSetOverhead` and decides the capacity
 * type as the AWS provider's instance.go `getCapacityType` prioritises it: reserved when the
 * requirements allow it and a fitting type has a reserved offering whose reservation still has
 * room in `ledger` (then one instance of each such reservation is taken from it), else spot
 * whenever allowed and some option has an available spot offering, else on-demand. Options
 * come cheapest first, at most 60, keeping every requirement's minValues satisfied; or why
 * nothing can launch. `admit`, when given, further restricts the types that may be chosen.
 */
export function chooseLaunch(
  types: readonly InstanceType[],
  requirements: Requirements,
  used: Resources,
  daemonSetOverhead: Resources,
  admit?: (it: InstanceType) => boolean,
  ledger?: ReservationLedger,
): LaunchChoice | NodePoolRejection {
  const need = { ...used };
  addInto(need, daemonSetOverhead);
  const allowed = requirements.get(LABEL_CAPACITY_TYPE);
  const hasMinValues = [...requirements.values()].some((r) => r.minValues !== undefined);
  let anyFits = false;
  for (const capacityType of ['reserved', 'spot', 'on-demand'] as const) {
    if (allowed && !allowed.has(capacityType)) continue;
    if (capacityType === 'reserved') {
      const reserved = chooseReserved(types, requirements, need, admit, ledger);
      if (reserved !== undefined) return reserved;
      continue;
    }
    const fitting: Priced[] = [];
    // `types` is usually a cached array, so its priced list is too; `admit` narrows it
    // without building (and pricing) a new array per node.
    for (const p of pricedTypes(types, requirements, capacityType)) {
      if (!fits(need, {}, p.it.allocatable) || (admit && !admit(p.it))) continue;
      fitting.push(p);
      // Without minValues the cheapest 60 that fit are the answer: stop scanning.
      if (!hasMinValues && fitting.length >= MAX_INSTANCE_TYPE_OPTIONS) break;
    }
    if (fitting.length === 0) {
      anyFits ||= types.some((it) => fits(need, {}, it.allocatable));
      continue;
    }
    const chosen = truncateKeepingMinValues(fitting, requirements);
    if (!Array.isArray(chosen)) return chosen;
    const zones = new Set<string>();
    for (const c of chosen) for (const z of c.zones) zones.add(z);
    return {
      kind: 'launch',
      capacityType,
      options: chosen.map((c) => c.option),
      zones: [...zones].sort(),
      instanceTypes: chosen.map((c) => c.it),
    };
  }
  return anyFits || types.some((it) => fits(need, {}, it.allocatable))
    ? { kind: 'no-available-offering' }
    : { kind: 'no-instance-type-holds-pods' };
}

/**
 * The reserved launch: the fitting types with an allowed reserved offering whose reservation
 * has room, each priced at its cheapest such offering, cheapest first, at most 60; undefined
 * when there is none (or minValues cannot be met with them: the next capacity type is tried).
 */
function chooseReserved(
  types: readonly InstanceType[],
  requirements: Requirements,
  need: Resources,
  admit: ((it: InstanceType) => boolean) | undefined,
  ledger: ReservationLedger | undefined,
): LaunchChoice | undefined {
  const fitting: (Priced & { reservations: string[] })[] = [];
  for (const it of types) {
    const roomy = it.offerings.filter(
      (o) =>
        o.capacityType === 'reserved' &&
        o.reservation !== undefined &&
        offeringAllowed(o, requirements) &&
        (ledger?.remaining(o.reservation) ?? o.reservation.capacity) > 0,
    );
    if (roomy.length === 0 || !fits(need, {}, it.allocatable) || (admit && !admit(it))) continue;
    const best = roomy.reduce((a, b) =>
      b.price < a.price || (b.price === a.price && b.zone < a.zone) ? b : a,
    );
    fitting.push({
      it,
      option: { name: it.name, price: best.price, capacityType: 'reserved', zone: best.zone },
      zones: [...new Set(roomy.map((o) => o.zone))],
      reservations: roomy.map((o) => o.reservation!.id),
    });
  }
  if (fitting.length === 0) return undefined;
  fitting.sort((a, b) => a.option.price - b.option.price || (a.option.name < b.option.name ? -1 : 1));
  const chosen = truncateKeepingMinValues(fitting, requirements);
  if (!Array.isArray(chosen)) return undefined;
  const reservationIds = [...new Set(chosen.flatMap((c) => c.reservations))].sort();
  ledger?.take(reservationIds);
  return {
    kind: 'launch',
    capacityType: 'reserved',
    options: chosen.map((c) => c.option),
    zones: [...new Set(chosen.flatMap((c) => c.zones))].sort(),
    instanceTypes: chosen.map((c) => c.it),
    reservationIds,
  };
}

/** An instance type with its cheapest usable offering. */
export interface Priced {
  readonly it: InstanceType;
  readonly option: InstanceTypeOption;
  /**
   * Zones with an available offering of the capacity type asked for (any allowed one when
   * none was) under the zone requirement: computed with the cached list, not per NodeClaim.
   */
  readonly zones: readonly string[];
}

const pricedCache = new WeakMap<readonly InstanceType[], Map<string, Priced[]>>();

/**
 * The types with a usable offering (of `capacityType`, or of any allowed capacity type) under
 * the zone and capacity-type requirements, cheapest first. Cached per types array and
 * requirement text: finalising thousands of nodes of one NodePool prices its types once.
 */
export function pricedTypes(
  types: readonly InstanceType[],
  requirements: Requirements,
  capacityType?: CapacityType,
): Priced[] {
  let byKey = pricedCache.get(types);
  if (!byKey) {
    byKey = new Map();
    pricedCache.set(types, byKey);
  }
  const key = `${capacityType ?? 'any'}|${requirements.get(LABEL_ZONE) ?? ''}|${requirements.get(LABEL_CAPACITY_TYPE) ?? ''}|${requirements.get(LABEL_CAPACITY_RESERVATION_ID) ?? ''}`;
  let list = byKey.get(key);
  if (!list) {
    list = [];
    for (const it of types) {
      const o = cheapestOffering(it, requirements, capacityType);
      if (o) {
        const zones = new Set<string>();
        for (const offering of it.offerings) {
          if (
            (!capacityType || offering.capacityType === capacityType) &&
            offeringAllowed(offering, requirements)
          )
            zones.add(offering.zone);
        }
        list.push({
          it,
          option: { name: it.name, price: o.price, capacityType: o.capacityType, zone: o.zone },
          zones: [...zones],
        });
      }
    }
    list.sort((a, b) => a.option.price - b.option.price || (a.option.name < b.option.name ? -1 : 1));
    byKey.set(key, list);
  }
  return list;
}

function distinctValues(items: readonly { it: InstanceType }[], key: string): Set<string> {
  const out = new Set<string>();
  for (const { it } of items) {
    const r = it.requirements.get(key);
    if (r && !r.complement) for (const v of r.values) out.add(v);
  }
  return out;
}

function truncateKeepingMinValues<T extends { it: InstanceType }>(
  sorted: readonly T[],
  requirements: Requirements,
): T[] | NodePoolRejection {
  const minValues = [...requirements.values()].filter((r) => r.minValues !== undefined);
  for (const r of minValues) {
    const have = distinctValues(sorted, r.key).size;
    if (have < (r.minValues ?? 0)) {
      return { kind: 'min-values', key: r.key, minValues: r.minValues ?? 0, available: have };
    }
  }
  if (sorted.length <= MAX_INSTANCE_TYPE_OPTIONS) return [...sorted];
  const head = sorted.slice(0, MAX_INSTANCE_TYPE_OPTIONS);
  if (minValues.every((r) => distinctValues(head, r.key).size >= (r.minValues ?? 0))) return head;
  // Take the cheapest type of each missing value first, then fill by price.
  const picked = new Set<T>();
  for (const r of minValues) {
    const seen = new Set<string>();
    for (const item of sorted) {
      if (seen.size >= (r.minValues ?? 0)) break;
      const v = item.it.requirements.get(r.key)?.single;
      if (v !== undefined && !seen.has(v)) {
        seen.add(v);
        picked.add(item);
      }
    }
  }
  for (const item of sorted) {
    if (picked.size >= MAX_INSTANCE_TYPE_OPTIONS) break;
    picked.add(item);
  }
  return sorted.filter((item) => picked.has(item));
}
