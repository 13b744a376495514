import type { InstanceType } from '../shared/core/catalog/instance-type';
import type { Requirements } from '../shared/core/model/requirements';
import { CPU, MEMORY, PODS } from '../shared/core/model/resources';
import { cheapestOffering } from '../shared/core/scheduling/nodepool-context';
import { compatibleTypes } from '../shared/core/scheduling/planned-node';

/** An instance type reduced to what the bound needs: allocatable cpu and memory and one price. */
export interface PricedType {
  readonly name: string;
  /** Allocatable millicores. */
  readonly cpu: number;
  /** Allocatable bytes. */
  readonly memory: number;
  /** Allocatable pods (max pods per node). */
  readonly pods: number;
  /** USD per hour of its cheapest allowed, available offering (spot or on-demand). */
  readonly price: number;
}

/** Total cpu (millicores) and memory (bytes) to cover. */
export interface Demand {
  readonly cpu: number;
  readonly memory: number;
}

/** The optimum of the relaxation and the (fractional) fleet that reaches it. */
export interface LowerBound {
  /** USD per hour. */
  readonly cost: number;
  /** One or two types with fractional counts. */
  readonly mix: readonly { readonly name: string; readonly count: number }[];
}

/**
 * The instance types a NodePool may launch, each priced at its cheapest offering the
 * requirements allow (zone, capacity type, availability), as the scheduler itself prices them.
 */
export function pricedTypes(types: readonly InstanceType[], requirements: Requirements): PricedType[] {
  const out: PricedType[] = [];
  for (const it of compatibleTypes(types, requirements)) {
    const offering = cheapestOffering(it, requirements);
    const cpu = it.allocatable[CPU] ?? 0;
    const memory = it.allocatable[MEMORY] ?? 0;
    if (offering === undefined || cpu <= 0 || memory <= 0) continue;
    out.push({ name: it.name, cpu, memory, pods: it.allocatable[PODS] ?? 0, price: offering.price });
  }
  return out;
}

/**
 * A lower bound on the hourly cost of any fleet that can hold `demand`: the LP relaxation
 *
 *   minimise Σ x_t·price_t  subject to  Σ x_t·cpu_t ≥ demand.cpu,  Σ x_t·memory_t ≥ demand.memory,  x ≥ 0
 *
 * where x_t is a fractional number of nodes of type t. Every real plan is a feasible point of
 * this program (integral x, and its nodes hold at least the requests), so no plan costs less
 * than the optimum. It is deliberately loose: it ignores that pods are indivisible, the per-node
 * pod limit, DaemonSet overhead, and topology rules (spread, anti-affinity) that force extra
 * nodes, so a ratio of plan cost to bound near 1 is a strong result and one well above 1 on a
 * constrained workload is not necessarily waste.
 *
 * With two constraints an optimal basic solution has at most two non-zero variables, so the
 * optimum is the cheapest of: each type alone (x_t = max(cpu/cpu_t, memory/memory_t)), and each
 * pair with both constraints tight (a 2×2 system; pairs whose solution is singular or negative
 * are skipped, their optimum being a single type's). O(types²), about 0.1 s for the full catalog.
 */
export function lowerBound(types: readonly PricedType[], demand: Demand): LowerBound {
  let best: LowerBound = { cost: Number.POSITIVE_INFINITY, mix: [] };
  if (demand.cpu <= 0 && demand.memory <= 0) return { cost: 0, mix: [] };
  for (const t of types) {
    const count = Math.max(demand.cpu / t.cpu, demand.memory / t.memory);
    const cost = count * t.price;
    if (cost < best.cost) best = { cost, mix: [{ name: t.name, count }] };
  }
  for (let i = 0; i < types.length; i++) {
    const a = types[i];
    for (let j = i + 1; j < types.length; j++) {
      const b = types[j];
      const det = a.cpu * b.memory - b.cpu * a.memory;
      if (det === 0) continue;
      const xa = (demand.cpu * b.memory - b.cpu * demand.memory) / det;
      const xb = (a.cpu * demand.memory - demand.cpu * a.memory) / det;
      if (xa < 0 || xb < 0) continue;
      const cost = xa * a.price + xb * b.price;
      if (cost < best.cost) {
        best = {
          cost,
          mix: [
            { name: a.name, count: xa },
            { name: b.name, count: xb },
          ],
        };
      }
    }
  }
  return best;
}

/** What a homogeneous fleet must hold: totals, pod count and the largest single request. */
export interface FleetDemand extends Demand {
  readonly pods: number;
  readonly largest: Demand;
}

/**
 * Not a bound, a yardstick: the cheapest fleet of a single instance type that can hold the
 * largest pod on its own, sized fractionally as max(cpu, memory, pod count ratios) × price.
 * It respects what the LP bound ignores (every pod's cpu and memory on one node, max pods per
 * node) but not fragmentation, and a plan mixing types can beat it; a plan near or below it is
 * packing well, one far above it is not.
 */
export function singleTypeReference(types: readonly PricedType[], demand: FleetDemand): LowerBound {
  let best: LowerBound = { cost: Number.POSITIVE_INFINITY, mix: [] };
  for (const t of types) {
    if (t.cpu < demand.largest.cpu || t.memory < demand.largest.memory || t.pods < 1) continue;
    const count = Math.max(demand.cpu / t.cpu, demand.memory / t.memory, demand.pods / t.pods);
    const cost = count * t.price;
    if (cost < best.cost) best = { cost, mix: [{ name: t.name, count }] };
  }
  return best;
}
