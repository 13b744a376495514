import highsLoader from 'highs';

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
 * each multiplier), so the bound stays valid even when the search over multipliers stops early.
 */

/** One class of identical pods: requests and how many. */
export interface PodClass {
  /** Millicores. */
  readonly cpu: number;
  /** Bytes. */
  readonly memory: number;
  readonly count: number;
  /**
   * Pods of all classes with the same `apart` key never share a node (required hostname
   * anti-affinity among them): a node holds at most one of them. Every real plan obeys it, so
   * the bound stays a bound.
   */
  readonly apart?: string;
}

/** One instance type as the bound sees it: room left for pods and one price. */
export interface BinType {
  readonly name: string;
  /** Millicores available to pods (allocatable minus DaemonSet overhead). */
  readonly cpu: number;
  /** Bytes available to pods. */
  readonly memory: number;
  /** Pods it still takes (max pods minus DaemonSet pods). */
  readonly pods: number;
  /** USD per hour. */
  readonly price: number;
}

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
  readonly ms: number;
  /**
   * Column generation stopped at the time cap before master and bound met: `cost` is still a
   * valid bound (Farley's holds at every round) but may be far below the LP optimum.
   */
  readonly timedOut: boolean;
}

/** Options of {@link configurationBound}. */
export interface ConfigurationBoundOptions {
  /** Stop column generation after the round that passes this many milliseconds. @default no cap */
  readonly maxMs?: number;
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

/**
 * Exact max of Σ v_i a_i subject to Σ c_i a_i ≤ capacity, 0 ≤ a_i ≤ bound_i, over integer
 * cpu units (bounded knapsack by binary splitting); the counts that reach it.
 */
function cpuKnapsack(
  values: readonly number[],
  units: readonly number[],
  bounds: readonly number[],
  capacity: number,
): { value: number; counts: number[] } {
  const best = new Float64Array(capacity + 1);
  // Items after binary splitting: (class, multiplicity); take[item] per capacity is kept to rebuild.
  const items: { cls: number; mult: number }[] = [];
  // Pods that request no cpu cost the knapsack nothing: all of them are taken.
  let free = 0;
  const freeCounts = new Array<number>(values.length).fill(0);
  for (let i = 0; i < values.length; i++) {
    if (values[i] <= 0 || units[i] > capacity || bounds[i] <= 0) continue;
    if (units[i] === 0) {
      free += values[i] * bounds[i];
      freeCounts[i] = bounds[i];
      continue;
    }
    let left = Math.min(bounds[i], Math.floor(capacity / units[i]));
    for (let m = 1; left > 0; m *= 2) {
      const mult = Math.min(m, left);
      items.push({ cls: i, mult });
      left -= mult;
    }
  }
  const take = new Uint8Array(items.length * (capacity + 1));
  for (let k = 0; k < items.length; k++) {
    const { cls, mult } = items[k];
    const w = units[cls] * mult;
    const v = values[cls] * mult;
    for (let c = capacity; c >= w; c--) {
      const cand = best[c - w] + v;
      if (cand > best[c]) {
        best[c] = cand;
        take[k * (capacity + 1) + c] = 1;
      }
    }
  }
  const counts = freeCounts;
  let c = capacity;
  for (let k = items.length - 1; k >= 0; k--) {
    if (take[k * (capacity + 1) + c]) {
      counts[items[k].cls] += items[k].mult;
      c -= units[items[k].cls] * items[k].mult;
    }
  }
  return { value: best[capacity] + free, counts };
}

/** Whether the counts fit the type on every axis. */
function fitsType(t: BinType, classes: readonly PodClass[], counts: readonly number[]): boolean {
  let cpu = 0;
  let memory = 0;
  let pods = 0;
  for (let i = 0; i < counts.length; i++) {
    cpu += counts[i] * classes[i].cpu;
    memory += counts[i] * classes[i].memory;
    pods += counts[i];
  }
  return cpu <= t.cpu && memory <= t.memory && pods <= t.pods;
}

/** Keeps one pod per `apart` group, then removes pods (lowest dual value per byte first) until the counts fit the type. */
function repair(
  t: BinType,
  classes: readonly PodClass[],
  counts: number[],
  duals: readonly number[],
): number[] {
  const out = [...counts];
  // At most one pod per `apart` group: the one of highest dual value stays.
  const kept = new Map<string, number>();
  classes.forEach((c, i) => {
    if (c.apart === undefined || out[i] <= 0) return;
    out[i] = 1;
    const k = kept.get(c.apart);
    if (k === undefined) kept.set(c.apart, i);
    else if (duals[i] > duals[k]) {
      out[k] = 0;
      kept.set(c.apart, i);
    } else out[i] = 0;
  });
  const order = classes
    .map((_, i) => i)
    .sort((a, b) => duals[a] / Math.max(1, classes[a].memory) - duals[b] / Math.max(1, classes[b].memory));
  while (!fitsType(t, classes, out)) {
    const i = order.find((j) => out[j] > 0);
    if (i === undefined) break;
    out[i]--;
  }
  return out;
}

/**
 * Pricing for one type: an upper bound on the best pattern's dual value (min over the
 * multipliers tried of the Lagrangian knapsack) and the best feasible pattern met on the way.
 */
function price(
  highs: Highs,
  t: BinType,
  classes: readonly PodClass[],
  duals: readonly number[],
  unit: number,
): { upper: number; pattern: number[]; patternValue: number } {
  const units = classes.map((c) => c.cpu / unit);
  const capacity = Math.floor(t.cpu / unit);
  const bounds = classes.map(perNodeCap);
  let upper = Number.POSITIVE_INFINITY;
  let pattern: number[] = new Array(classes.length).fill(0);
  let patternValue = 0;
  const evaluate = (lm: number, lp: number): { memOver: number; podsOver: number } => {
    const values = classes.map((c, i) => duals[i] - lm * c.memory - lp);
    const r = cpuKnapsack(values, units, bounds, capacity);
    upper = Math.min(upper, r.value + lm * t.memory + lp * t.pods);
    const feasible = repair(t, classes, r.counts, duals);
    const v = feasible.reduce((s, n, i) => s + n * duals[i], 0);
    if (v > patternValue) {
      patternValue = v;
      pattern = feasible;
    }
    let memory = 0;
    let pods = 0;
    for (let i = 0; i < classes.length; i++) {
      memory += r.counts[i] * classes[i].memory;
      pods += r.counts[i];
    }
    return { memOver: memory - t.memory, podsOver: pods - t.pods };
  };
  // Multipliers are searched by bisection on the sign of the violated constraint: the
  // Lagrangian is convex in each, and a subgradient is the constraint's excess.
  const maxDual = Math.max(...duals, 0);
  let lp = 0;
  for (let round = 0; round < 2; round++) {
    let lo = 0;
    let hi = maxDual / Math.max(1, Math.min(...classes.map((c) => c.memory)));
    let first = evaluate(0, lp);
    if (first.memOver > 0) {
      for (let k = 0; k < 14; k++) {
        const mid = (lo + hi) / 2;
        const r = evaluate(mid, lp);
        if (r.memOver > 0) lo = mid;
        else hi = mid;
      }
      first = evaluate(hi, lp);
    }
    const lm = first.memOver > 0 ? lo : hi;
    if (first.podsOver <= 0) break;
    let plo = 0;
    let phi = maxDual;
    for (let k = 0; k < 14; k++) {
      const mid = (plo + phi) / 2;
      const r = evaluate(lm, mid);
      if (r.podsOver > 0) plo = mid;
      else phi = mid;
    }
    lp = phi;
  }
  // The Lagrangian is loose on small types (a few pods, memory for one or two), and only
  // types whose bound exceeds their price can raise θ: those get the exact knapsack as a MIP.
  const tolerance = 1e-6 * t.price;
  if (upper > t.price + tolerance && upper > patternValue + tolerance) {
    const exact = exactKnapsack(highs, t, classes, duals);
    upper = Math.min(upper, exact.bound);
    if (exact.value > patternValue) {
      patternValue = exact.value;
      pattern = exact.counts;
    }
  }
  return { upper, pattern, patternValue };
}

const MIB = 2 ** 20;

/**
 * How many pods of a class one node may hold at most: all of them, or one when they must be
 * apart. (The knapsacks also keep one per `apart` group where they can; where they cannot,
 * as in the Lagrangian bound, they only over-estimate, which keeps the bound valid.)
 */
function perNodeCap(c: PodClass): number {
  return c.apart === undefined ? c.count : Math.min(c.count, 1);
}

/** The pricing knapsack solved to optimality by HiGHS: the value, a proven upper bound and the counts. */
function exactKnapsack(
  highs: Highs,
  t: BinType,
  classes: readonly PodClass[],
  duals: readonly number[],
): { value: number; bound: number; counts: number[] } {
  const used = classes.map((_, i) => i).filter((i) => duals[i] > 0);
  if (used.length === 0) return { value: 0, bound: 0, counts: classes.map(() => 0) };
  const sum = (coef: (i: number) => number) => used.map((i) => `${coef(i)} a${i}`).join(' + ');
  const text = [
    'Maximize',
    ` obj: ${sum((i) => duals[i])}`,
    'Subject To',
    ` cpu: ${sum((i) => classes[i].cpu)} <= ${t.cpu}`,
    ` mem: ${sum((i) => classes[i].memory / MIB)} <= ${t.memory / MIB}`,
    ` pods: ${sum(() => 1)} <= ${t.pods}`,
    ...apartRows(classes, used),
    'Bounds',
    ...used.map((i) => ` 0 <= a${i} <= ${perNodeCap(classes[i])}`),
    'Generals',
    ` ${used.map((i) => `a${i}`).join(' ')}`,
    'End',
  ].join('\n');
  const r = highs.solve(text, { output_flag: false, mip_rel_gap: 1e-9, mip_abs_gap: 1e-12 });
  if (r.Status !== 'Optimal') throw new Error(`configuration bound: pricing MIP for ${t.name}: ${r.Status}`);
  const counts = repair(
    t,
    classes,
    classes.map((_, i) => Math.round(r.Columns[`a${i}`]?.Primal ?? 0)),
    duals,
  );
  const value = counts.reduce((s, n, i) => s + n * duals[i], 0);
  // A small margin keeps the bound valid against the solver's feasibility tolerances.
  return { value, bound: Math.max(value, r.ObjectiveValue) * (1 + 1e-7) + 1e-12, counts };
}

/** One row per `apart` group with two or more classes among `used`: at most one of its pods. */
function apartRows(classes: readonly PodClass[], used: readonly number[]): string[] {
  const groups = new Map<string, number[]>();
  for (const i of used) {
    const key = classes[i].apart;
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .map((g, k) => ` apart${k}: ${g.map((i) => `a${i}`).join(' + ')} <= 1`);
}

type Highs = Awaited<ReturnType<typeof highsLoader>>;
let highsPromise: Promise<Highs> | undefined;

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
export async function configurationBound(
  types: readonly BinType[],
  classes: readonly PodClass[],
  options: ConfigurationBoundOptions = {},
): Promise<ConfigurationBound> {
  const start = performance.now();
  const live = classes.filter((c) => c.count > 0);
  if (live.length === 0) return { cost: 0, master: 0, rounds: 0, mix: [], ms: 0, timedOut: false };
  const bins = undominated(types);
  // Pods' cpu is a multiple of the classes' gcd, so the cpu knapsack works in those units exactly.
  const unit = live.map((c) => c.cpu).reduce(gcd) || 1;
  highsPromise ??= highsLoader();
  const highs = await highsPromise;

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
      throw new Error(`configuration bound: pod class ${cls.cpu}m/${cls.memory}B fits no instance type`);
    columns.push(best);
  });

  let bound = 0;
  let master = Number.POSITIVE_INFINITY;
  let primal: number[] = [];
  let rounds = 0;
  let timedOut = false;
  while (rounds < MAX_ROUNDS) {
    rounds++;
    const solution = highs.solve(masterText(columns, bins, live), { output_flag: false });
    if (solution.Status !== 'Optimal') throw new Error(`configuration bound: master LP ${solution.Status}`);
    master = solution.ObjectiveValue;
    primal = columns.map((_, j) => solution.Columns[`x${j}`]?.Primal ?? 0);
    // The master has no integer columns, so every row carries a dual.
    const duals = solution.Rows.map((r) => Math.max(0, 'Dual' in r ? r.Dual : 0));
    const dualValue = duals.reduce((s, p, i) => s + p * live[i].count, 0);
    let theta = 1;
    const candidates: { reduced: number; column: Column }[] = [];
    bins.forEach((b, ti) => {
      const priced = price(highs, b, live, duals, unit);
      theta = Math.max(theta, priced.upper / b.price);
      const reduced = b.price - priced.patternValue;
      if (reduced < -1e-9 * b.price)
        candidates.push({ reduced, column: { type: ti, counts: priced.pattern } });
    });
    bound = Math.max(bound, dualValue / theta);
    if (candidates.length === 0 || master - bound <= GAP * master) break;
    // A round is the unit of work: the cap is checked between rounds, so one slow round overruns it.
    if (options.maxMs !== undefined && performance.now() - start > options.maxMs) {
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
  return { cost: bound, master, rounds, mix, ms: performance.now() - start, timedOut };
}
