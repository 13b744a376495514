import type { Pod } from '../model/pod';
import { fits, type MutableResources, PODS, type Resources } from '../model/resources';
import type { Priced } from './instance-selection';

/**
 * Repacking the pods of interchangeable planned nodes (same NodePool, same requirements, no
 * topology) by sequential value correction, a cutting-stock heuristic (Belov and Scheithauer):
 * each pod class carries a value, an estimate of what one of its pods costs in a good plan;
 * nodes are opened one pattern at a time, choosing the instance type and the pods on it that
 * buy the most value per dollar; after each pass the values are corrected towards what the
 * pass actually paid per pod, and the cheapest pass wins.
 *
 * First-fit-decreasing sizes a node by whatever type it started from; this chooses the type
 * by what the remaining pods would fill, so large memory nodes take the memory-heavy pods and
 * small nodes the rest, and the last nodes shrink to what is left.
 */

/** Passes of value correction; the first uses sizes only. */
const PASSES = 6;
/** How far each pass moves a class's value towards what it was charged. */
const CORRECTION = 0.5;

/** Pods with identical requests. */
interface PodClass {
  readonly requests: Resources;
  readonly pods: Pod[];
  /** Pods not yet placed in the current pass. */
  left: number;
  value: number;
}

/** A node of a pass: its type and how many pods of each class. */
interface PatternNode {
  readonly type: Priced;
  readonly counts: readonly number[];
  readonly copies: number;
}

function classesOf(pods: readonly Pod[]): PodClass[] {
  const byKey = new Map<string, PodClass>();
  for (const p of pods) {
    const key = Object.keys(p.requests)
      .sort()
      .map((k) => `${k}=${p.requests[k]}`)
      .join(',');
    const c = byKey.get(key);
    if (c) c.pods.push(p);
    else byKey.set(key, { requests: p.requests, pods: [p], left: 0, value: 0 });
  }
  return [...byKey.values()];
}

/** The largest share of a type's room (after DaemonSets) one pod of `requests` takes. */
function share(requests: Resources, room: Resources): number {
  let s = 0;
  for (const k in requests) {
    const r = requests[k];
    if (r <= 0) continue;
    const free = room[k] ?? 0;
    if (free <= 0) return Number.POSITIVE_INFINITY;
    s = Math.max(s, r / free);
  }
  return s;
}

/** Room for pods on each type: allocatable minus DaemonSet overhead. */
function roomOf(type: Priced, ds: Resources): MutableResources {
  const room: MutableResources = { ...type.it.allocatable };
  for (const k in ds) room[k] = (room[k] ?? 0) - ds[k];
  return room;
}

/** Drops types another type beats on price while having at least as much room for every resource the pods use. */
function usefulTypes(types: readonly Priced[], keys: readonly string[]): Priced[] {
  const kept: Priced[] = [];
  // `types` is cheapest first, so a dominating type is always already kept.
  for (const t of types) {
    const dominated = kept.some((k) =>
      keys.every((r) => (k.it.allocatable[r] ?? 0) >= (t.it.allocatable[r] ?? 0)),
    );
    if (!dominated) kept.push(t);
  }
  return kept;
}

/** Requests and rooms as dense vectors over the resources the pods use, for the inner loop. */
interface Dense {
  /** Per class, its requests over `keys`. */
  readonly requests: readonly Float64Array[];
  /** Per type, its room over `keys`. */
  readonly rooms: readonly Float64Array[];
}

/**
 * Fills one node greedily in `order` (most value per share of the node first), as many of
 * each class as fit; the counts and their total value.
 */
function fillNode(
  classes: readonly PodClass[],
  dense: Dense,
  t: number,
  order: readonly number[],
  used: Float64Array,
): { counts: number[]; value: number } {
  const counts = new Array<number>(classes.length).fill(0);
  const room = dense.rooms[t];
  used.fill(0);
  let value = 0;
  for (const i of order) {
    const c = classes[i];
    if (c.left <= 0) continue;
    const req = dense.requests[i];
    let n = c.left;
    for (let k = 0; k < req.length && n > 0; k++) {
      if (req[k] > 0) n = Math.min(n, Math.floor((room[k] - used[k]) / req[k]));
    }
    if (n <= 0) continue;
    counts[i] = n;
    for (let k = 0; k < req.length; k++) used[k] += req[k] * n;
    value += n * c.value;
  }
  return { counts, value };
}

/** One pass: nodes opened pattern by pattern until every pod is placed, or undefined if some pod fits no type. */
function pass(
  classes: PodClass[],
  types: readonly Priced[],
  dense: Dense,
  shares: readonly Float64Array[],
): PatternNode[] | undefined {
  const used = new Float64Array(dense.rooms[0]?.length ?? 0);
  for (const c of classes) c.left = c.pods.length;
  let remaining = classes.reduce((s, c) => s + c.left, 0);
  // Values are fixed within a pass, so each type's fill order is too.
  const orders = types.map((_, t) =>
    classes
      .map((_, i) => i)
      .filter((i) => Number.isFinite(shares[t][i]))
      .sort((a, b) => classes[b].value / shares[t][b] - classes[a].value / shares[t][a] || a - b),
  );
  const nodes: PatternNode[] = [];
  while (remaining > 0) {
    let best: { type: number; counts: number[]; ratio: number } | undefined;
    for (let t = 0; t < types.length; t++) {
      const { counts, value } = fillNode(classes, dense, t, orders[t], used);
      if (value <= 0) continue;
      const ratio = types[t].option.price / value;
      if (!best || ratio < best.ratio) best = { type: t, counts, ratio };
    }
    if (!best) return undefined;
    // The same pattern repeats while its pods last: one decision for many identical nodes.
    let copies = Number.POSITIVE_INFINITY;
    best.counts.forEach((n, i) => {
      if (n > 0) copies = Math.min(copies, Math.floor(classes[i].left / n));
    });
    copies = Math.max(1, copies);
    best.counts.forEach((n, i) => {
      classes[i].left -= n * copies;
      remaining -= n * copies;
    });
    nodes.push({ type: types[best.type], counts: best.counts, copies });
  }
  return nodes;
}

function cost(nodes: readonly PatternNode[]): number {
  return nodes.reduce((s, n) => s + n.type.option.price * n.copies, 0);
}

/**
 * Moves each class's value towards what the pass charged its pods: a node's price split
 * over its pods in proportion to the share of the node each takes.
 */
function correctValues(
  classes: PodClass[],
  nodes: readonly PatternNode[],
  rooms: Map<Priced, Resources>,
): void {
  const paid = new Array<number>(classes.length).fill(0);
  const placed = new Array<number>(classes.length).fill(0);
  for (const node of nodes) {
    const room = rooms.get(node.type)!;
    let total = 0;
    node.counts.forEach((n, i) => {
      if (n > 0) total += n * share(classes[i].requests, room);
    });
    node.counts.forEach((n, i) => {
      if (n <= 0) return;
      const each = (node.type.option.price * share(classes[i].requests, room)) / total;
      paid[i] += each * n * node.copies;
      placed[i] += n * node.copies;
    });
  }
  classes.forEach((c, i) => {
    if (placed[i] > 0) c.value = (1 - CORRECTION) * c.value + (CORRECTION * paid[i]) / placed[i];
  });
}

/**
 * The pods split into nodes by value correction, each part with the type it was packed
 * for; undefined when some pod fits none of `types`. `types` must be cheapest first.
 */
export function repack(
  types: readonly Priced[],
  pods: readonly Pod[],
  ds: Resources,
): { parts: Pod[][]; cost: number } | undefined {
  if (pods.length === 0) return { parts: [], cost: 0 };
  const classes = classesOf(pods);
  const keys = [...new Set([PODS, ...classes.flatMap((c) => Object.keys(c.requests))])];
  const useful = usefulTypes(
    types.filter((t) => fits(ds, {}, t.it.allocatable)),
    keys,
  );
  const rooms = useful.map((t) => roomOf(t, ds));
  const shares = rooms.map((room) => Float64Array.from(classes, (c) => share(c.requests, room)));
  const roomByType = new Map(useful.map((t, i) => [t, rooms[i]]));
  const dense: Dense = {
    requests: classes.map((c) => Float64Array.from(keys, (k) => c.requests[k] ?? 0)),
    rooms: rooms.map((room) => Float64Array.from(keys, (k) => room[k] ?? 0)),
  };
  // A pod's first value: the cheapest fraction of a node its size takes, on any type.
  for (const c of classes) {
    c.value = Number.POSITIVE_INFINITY;
    const i = classes.indexOf(c);
    useful.forEach((t, ti) => {
      c.value = Math.min(c.value, t.option.price * shares[ti][i]);
    });
    if (!Number.isFinite(c.value)) return undefined;
  }
  let best: PatternNode[] | undefined;
  for (let p = 0; p < PASSES; p++) {
    const nodes = pass(classes, useful, dense, shares);
    if (!nodes) return undefined;
    if (!best || cost(nodes) < cost(best)) best = nodes;
    correctValues(classes, nodes, roomByType);
  }
  const cursor = classes.map(() => 0);
  const parts: Pod[][] = [];
  for (const node of best!) {
    for (let k = 0; k < node.copies; k++) {
      const part: Pod[] = [];
      node.counts.forEach((n, i) => {
        part.push(...classes[i].pods.slice(cursor[i], cursor[i] + n));
        cursor[i] += n;
      });
      parts.push(part);
    }
  }
  return { parts, cost: cost(best!) };
}
