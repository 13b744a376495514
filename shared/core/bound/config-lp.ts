import { PodliftError } from '../model/errors';
import type { LpSolver } from '../ports/lp-solver';
import type { BinType, PodClass } from './bins';
import { perNodeCap, price } from './config-lp-pricing';

/**
 * A lower bound on the cheapest fleet that holds a set of pods: the configuration LP (Gilmore
 * and Gomory's cutting-stock relaxation), solved by column generation with HiGHS.
 *
 *   minimise Σ_p price_p · x_p   subject to   Σ_p a_ip · x_p ≥ d_i  for every pod class i,  x ≥ 0
 *
 * where a column p is one node of one instance type with a_ip pods of class i that really fit
 * it (cpu, memory and max pods after DaemonSet overhead). Every plan is an integral point of
 * this program, so its optimum bounds every plan from below; unlike a cpu + memory bound it
 * knows that pods are indivisible and that a node's memory cannot be spent on another node's cpu.
 *
 * The bound reported is Farley's, valid for any dual prices π ≥ 0 of the restricted master:
 * with θ = max_t V_t / price_t, where V_t ≥ max { Σ π_i a_i : a fits type t } (the pricing
 * knapsack), π / θ is dual feasible, so Σ d_i π_i / θ ≤ LP optimum ≤ any plan. V_t is bounded
 * from above by Lagrangian relaxation of memory and max pods (an exact knapsack over cpu for
 * each multiplier), so the bound stays valid even when the search over multipliers stops early
 * (config-lp-pricing.ts).
 */

/** The bound and what the LP's best known fleet looks like. */
export interface ConfigurationBound {
  /** Farley's lower bound, USD per hour. */
  readonly cost: number;
  /** The restricted master's optimum (an upper bound on the LP optimum), USD per hour. */
  readonly master: number;
  /** Column-generation rounds run. */
  readonly rounds: number;
  /** Fractional node counts per type in the master's solution, largest share of cost first. */
  readonly mix: readonly { readonly name: string; readonly count: number }[];
  /**
   * Column generation stopped early (`shouldStop`) before master and bound met: `cost` is still a
   * valid bound (Farley's holds at every round) but may be far below the LP optimum.
   */
  readonly timedOut: boolean;
}

/** Options of {@link configurationBound}. */
export interface ConfigurationBoundOptions {
  /**
   * Asked after every round that did not converge; true stops column generation there (a time
   * cap: core reads no clock, the caller's predicate does). @default never stops early
   */
  readonly shouldStop?: () => boolean;
}

/** Column generation stops when master and bound are this close (relative). */
const GAP = 0.002;
const MAX_ROUNDS = 200;
/** Columns added per round at most: the most negative reduced costs, one per type. */
const COLUMNS_PER_ROUND = 40;

interface Column {
  readonly type: number;
  readonly counts: readonly number[];
}

/** Drops instance types another type dominates (at least as much room on every axis, no dearer). */
export function undominated(types: readonly BinType[]): BinType[] {
  const usable = types.filter((t) => t.cpu > 0 && t.memory > 0 && t.pods > 0);
  const sorted = [...usable].sort((a, b) => a.price - b.price || b.cpu - a.cpu || b.memory - a.memory);
  const kept: BinType[] = [];
  for (const t of sorted) {
    if (kept.some((k) => k.cpu >= t.cpu && k.memory >= t.memory && k.pods >= t.pods)) continue;
    kept.push(t);
  }
  return kept;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function masterText(
  columns: readonly Column[],
  types: readonly BinType[],
  classes: readonly PodClass[],
): string {
  const obj = columns.map((c, j) => `${types[c.type].price} x${j}`).join(' + ');
  const rows = classes.map((cls, i) => {
    const terms = columns
      .map((c, j) => (c.counts[i] > 0 ? `${c.counts[i]} x${j}` : ''))
      .filter((s) => s !== '')
      .join(' + ');
    return ` d${i}: ${terms} >= ${cls.count}`;
  });
  return `Minimize\n obj: ${obj}\nSubject To\n${rows.join('\n')}\nEnd\n`;
}

/**
 * The configuration-LP bound for `classes` on `types`. Classes that fit no type are an error:
 * no plan could hold them, so there is nothing to bound.
 */
export function configurationBound(
  solver: LpSolver,
  types: readonly BinType[],
  classes: readonly PodClass[],
  options: ConfigurationBoundOptions = {},
): ConfigurationBound {
  const live = classes.filter((c) => c.count > 0);
  if (live.length === 0) return { cost: 0, master: 0, rounds: 0, mix: [], timedOut: false };
  const bins = undominated(types);
  // Pods' cpu is a multiple of the classes' gcd, so the cpu knapsack works in those units exactly.
  const unit = live.map((c) => c.cpu).reduce(gcd) || 1;

  // Start from the cheapest single-class node per class, which makes the master feasible.
  const columns: Column[] = [];
  live.forEach((cls, i) => {
    let best: Column | undefined;
    let bestPerPod = Number.POSITIVE_INFINITY;
    bins.forEach((b, ti) => {
      const n = Math.min(
        cls.cpu > 0 ? Math.floor(b.cpu / cls.cpu) : b.pods,
        cls.memory > 0 ? Math.floor(b.memory / cls.memory) : b.pods,
        b.pods,
        perNodeCap(cls),
      );
      if (n < 1 || b.price / n >= bestPerPod) return;
      bestPerPod = b.price / n;
      const counts = new Array<number>(live.length).fill(0);
      counts[i] = n;
      best = { type: ti, counts };
    });
    if (!best)
      throw new PodliftError(
        `configuration bound: pod class ${cls.cpu}m/${cls.memory}B fits no instance type`,
      );
    columns.push(best);
  });

  let bound = 0;
  let master = Number.POSITIVE_INFINITY;
  let primal: number[] = [];
  let rounds = 0;
  let timedOut = false;
  while (rounds < MAX_ROUNDS) {
    rounds++;
    const solution = solver.solve(masterText(columns, bins, live));
    if (solution.status !== 'Optimal')
      throw new PodliftError(`configuration bound: master LP ${solution.status}`);
    master = solution.objective;
    primal = columns.map((_, j) => solution.columns[`x${j}`] ?? 0);
    // The master has no integer columns, so every row carries a dual.
    const duals = solution.rowDuals.map((d) => Math.max(0, d));
    const dualValue = duals.reduce((s, p, i) => s + p * live[i].count, 0);
    let theta = 1;
    const candidates: { reduced: number; column: Column }[] = [];
    bins.forEach((b, ti) => {
      const priced = price(solver, b, live, duals, unit);
      theta = Math.max(theta, priced.upper / b.price);
      const reduced = b.price - priced.patternValue;
      if (reduced < -1e-9 * b.price)
        candidates.push({ reduced, column: { type: ti, counts: priced.pattern } });
    });
    bound = Math.max(bound, dualValue / theta);
    if (candidates.length === 0 || master - bound <= GAP * master) break;
    // A round is the unit of work: the cap is checked between rounds, so one slow round overruns it.
    if (options.shouldStop?.()) {
      timedOut = true;
      break;
    }
    candidates.sort((a, b) => a.reduced - b.reduced);
    columns.push(...candidates.slice(0, COLUMNS_PER_ROUND).map((c) => c.column));
  }
  const byType = new Map<string, { count: number; cost: number }>();
  primal.forEach((x, j) => {
    if (x <= 1e-9) return;
    const t = bins[columns[j].type];
    const e = byType.get(t.name) ?? { count: 0, cost: 0 };
    e.count += x;
    e.cost += x * t.price;
    byType.set(t.name, e);
  });
  const mix = [...byType.entries()]
    .sort((a, b) => b[1].cost - a[1].cost)
    .map(([name, e]) => ({ name, count: e.count }));
  return { cost: bound, master, rounds, mix, timedOut };
}
