import { PodliftError } from '../model/errors';
import type { LpSolver } from '../ports/lp-solver';
import type { BinType, PodClass } from './bins';

/**
 * The pricing problem of the configuration LP (config-lp.ts): for one instance type and the
 * master's dual prices, an upper bound on the most valuable set of pods one node of that type
 * holds (V_t in Farley's bound) and the best feasible pattern met on the way, which becomes a
 * new column when its reduced cost is negative.
 */

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
export function price(
  solver: LpSolver,
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
    const exact = exactKnapsack(solver, t, classes, duals);
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
export function perNodeCap(c: PodClass): number {
  return c.apart === undefined ? c.count : Math.min(c.count, 1);
}

/** The pricing knapsack solved to optimality by HiGHS: the value, a proven upper bound and the counts. */
function exactKnapsack(
  solver: LpSolver,
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
  const r = solver.solve(text, { mip_rel_gap: 1e-9, mip_abs_gap: 1e-12 });
  if (r.status !== 'Optimal')
    throw new PodliftError(`configuration bound: pricing MIP for ${t.name}: ${r.status}`);
  const counts = repair(
    t,
    classes,
    classes.map((_, i) => Math.round(r.columns[`a${i}`] ?? 0)),
    duals,
  );
  const value = counts.reduce((s, n, i) => s + n * duals[i], 0);
  // A small margin keeps the bound valid against the solver's feasibility tolerances.
  return { value, bound: Math.max(value, r.objective) * (1 + 1e-7) + 1e-12, counts };
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
