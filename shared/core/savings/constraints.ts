import type { BinType } from '../bound/bins';
import { selfRepellingOnHostname } from '../bound/bound-input';
import { doNotDisruptActive } from '../model/do-not-disrupt';
import { labelSelectorMatches } from '../model/label-selector';
import { ANNOTATIONS, LABEL_HOSTNAME } from '../model/labels';
import type { Pod } from '../model/pod';
import { CPU, MEMORY } from '../model/resources';
import type { UnschedulablePod } from '../scheduling/unschedulable-reason';
import type { PodDisruptionBudget } from '../state/cluster-state';

/**
 * The pods that hold a saving back most, and why: what a platform engineer would change first
 * (right-size a request, relax an anti-affinity, loosen a budget) to save more.
 */

/** One reason some pods constrain the plan. */
export interface Constraint {
  readonly kind:
    | 'unschedulable'
    | 'large-requests'
    | 'anti-affinity'
    | 'pod-disruption-budget'
    | 'do-not-disrupt';
  /** How many pods it concerns. */
  readonly count: number;
  /** `namespace/name` of the first few of them. */
  readonly pods: readonly string[];
  /** One sentence: what it is and what it costs. */
  readonly detail: string;
}

/** Pods named per constraint. */
const NAMED = 3;
/** Sizes of large pods reported. */
const LARGE_SIZES = 3;

/** What {@link constrainingPods} looks at. */
export interface ConstraintInput {
  /** The pods compared (running today, moved by the plan). */
  readonly pods: readonly Pod[];
  readonly unschedulable: readonly UnschedulablePod[];
  /** The instance types the plan may use, as the bound sees them. */
  readonly bins: readonly BinType[];
  readonly podDisruptionBudgets: readonly PodDisruptionBudget[];
  /** Epoch milliseconds, for do-not-disrupt durations. */
  readonly now: number;
}

/** The constraints, most binding first: pods that cannot be placed, then the rest by pods concerned. */
export function constrainingPods(input: ConstraintInput): Constraint[] {
  const out: Constraint[] = [];
  const unschedulable = groupBy(input.unschedulable, (u) => u.reason);
  for (const [reason, group] of unschedulable) {
    out.push({
      kind: 'unschedulable',
      count: group.length,
      pods: names(group.map((u) => u.pod)),
      detail: `no NodePool can run them (${reason}): the plan leaves them out, so its cost is too low by their nodes`,
    });
  }
  const rest: Constraint[] = [...largeRequests(input.pods, input.bins), ...antiAffinity(input.pods)];
  rest.push(...budgets(input.pods, input.podDisruptionBudgets));
  const pinned = input.pods.filter((p) => doNotDisruptActive(p, input.now));
  if (pinned.length > 0) {
    rest.push({
      kind: 'do-not-disrupt',
      count: pinned.length,
      pods: names(pinned),
      detail: `annotated ${ANNOTATIONS.doNotDisrupt}: their nodes cannot be replaced while they run, so the saving waits for them to finish`,
    });
  }
  return [...out, ...rest.sort((a, b) => b.count - a.count)];
}

/**
 * Pod sizes no cheapest node can hold: for each distinct (cpu, memory) request, the cheapest
 * instance type that holds one such pod alone; the sizes whose cheapest node costs most, as
 * long as it costs more than the cheapest node of all (a pod that fits anywhere constrains nothing).
 */
function largeRequests(pods: readonly Pod[], bins: readonly BinType[]): Constraint[] {
  if (bins.length === 0) return [];
  const cheapestOfAll = Math.min(...bins.map((b) => b.price));
  const bySize = groupBy(pods, (p) => `${p.requests[CPU] ?? 0}|${p.requests[MEMORY] ?? 0}`);
  const sizes: { pods: Pod[]; bin: BinType }[] = [];
  for (const group of bySize.values()) {
    const { requests } = group[0];
    let best: BinType | undefined;
    for (const b of bins) {
      if (b.cpu < (requests[CPU] ?? 0) || b.memory < (requests[MEMORY] ?? 0)) continue;
      if (!best || b.price < best.price) best = b;
    }
    if (best && best.price > cheapestOfAll) sizes.push({ pods: group, bin: best });
  }
  return sizes
    .sort((a, b) => b.bin.price - a.bin.price || b.pods.length - a.pods.length)
    .slice(0, LARGE_SIZES)
    .map(({ pods: group, bin }) => ({
      kind: 'large-requests' as const,
      count: group.length,
      pods: names(group),
      detail: `each requests ${cores(group[0].requests[CPU] ?? 0)} cpu and ${gib(group[0].requests[MEMORY] ?? 0)} memory: the cheapest node that holds one is ${bin.name} at $${bin.price.toFixed(4)}/h`,
    }));
}

/** Pods that repel their own kind on hostname: a node each, whatever their size. */
function antiAffinity(pods: readonly Pod[]): Constraint[] {
  const groups = new Map<string, Pod[]>();
  for (const p of pods) {
    const term = p.podAntiAffinity.find((t) => selfRepellingOnHostname(p, t));
    if (!term) continue;
    const key = `${p.namespace}|${JSON.stringify(term.labelSelector ?? {})}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .map((g) => ({
      kind: 'anti-affinity' as const,
      count: g.length,
      pods: names(g),
      detail: `required pod anti-affinity on ${LABEL_HOSTNAME}: ${g.length} nodes at least, one pod each`,
    }));
}

/** Budgets that allow no disruption now, over the pods they select. */
function budgets(pods: readonly Pod[], pdbs: readonly PodDisruptionBudget[]): Constraint[] {
  const out: Constraint[] = [];
  for (const pdb of pdbs) {
    if (pdb.disruptionsAllowed > 0 || pdb.selector === undefined) continue;
    const selected = pods.filter(
      (p) => p.namespace === pdb.namespace && labelSelectorMatches(pdb.selector, p.labels),
    );
    if (selected.length === 0) continue;
    out.push({
      kind: 'pod-disruption-budget',
      count: selected.length,
      pods: names(selected),
      detail: `PodDisruptionBudget ${pdb.namespace}/${pdb.name} allows no disruption now: these pods cannot move to new nodes until it does`,
    });
  }
  return out;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function names(pods: readonly Pod[]): string[] {
  return pods.slice(0, NAMED).map((p) => `${p.namespace}/${p.name}`);
}

function cores(millis: number): string {
  return `${Number((millis / 1000).toFixed(3))}`;
}

function gib(bytes: number): string {
  return `${Number((bytes / 2 ** 30).toFixed(2))}Gi`;
}
