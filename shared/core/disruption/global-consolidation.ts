import type { NodePool } from '../model/nodepool';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { BALANCED_K, everyPoolApproves, type NodePoolTotals, nodeDisruptionCost } from './balanced';
import type { Candidate } from './candidates';
import { type Consolidation, computeConsolidation } from './methods';
import { type ConsolidationSettings, DEFAULT_CONSOLIDATION_SETTINGS } from './replacement-options';

/**
 * Global consolidation (podlift's own, behind the `GlobalConsolidation` feature gate; issue 23):
 * Karpenter's consolidation is local — single-node takes one candidate, multi-node only prefixes
 * of candidates sorted by pod count (multinodeconsolidation.go `firstNConsolidationOption`), and
 * either launches at most one new node (consolidation.go `computeConsolidation`: "Can't remove
 * without creating N candidates") — so a running cluster stays well above the cheapest fleet for
 * its pods. This plans the pods of sets of a NodePool's eligible candidates afresh (the planner,
 * the nodes that stay as options) and takes one step: one or several candidates removed
 * together, their pods onto the nodes that stay and as many new nodes as the cheapest plan
 * needs (up to {@link MAX_GLOBAL_REPLACEMENTS}) — fewer, as many, or more than it removes: a big
 * node whose pods cost less on several small ones is split — each new node narrowed below its
 * share of the candidates' price (`replacementsOptions`), so whichever options EC2 picks the step
 * saves. Budgets, PDBs, do-not-disrupt, minValues, limits and the SpotToSpotConsolidation gate
 * hold as for Karpenter's methods: the caller passes only candidates those filters let through,
 * and the plan and its narrowing are `computeConsolidation`'s, which the command's validation and
 * launch run again.
 */

/** A step of global consolidation: the candidates removed together and what that does. */
export interface GlobalStep {
  readonly candidates: readonly Candidate[];
  readonly consolidation: Consolidation;
  /** What the step saves and moves, in words (the command's detail, its Event and log line). */
  readonly detail: string;
}

/**
 * The most new nodes one step launches (Karpenter's methods launch one): the command waits for
 * all of them to initialize before it drains a candidate, so one that cannot launch holds the
 * step back until the command times out, and its launched siblings are deleted.
 */
export const MAX_GLOBAL_REPLACEMENTS = 10;

/**
 * One global-consolidation step, or undefined. `eligible` are the candidates consolidation may
 * take now (Consolidatable, not blocked, within their NodePools' Underutilized budgets taken
 * together); `totals` are every NodePool's cost and disruption cost (balanced.ts). A step must
 * save money and clear Balanced's threshold whatever the NodePool's policy — saving ÷ pool cost
 * at least 1/k of disruption ÷ pool disruption (balanced.go `ScoreMove`), k the NodePool's
 * `podlift.dev/global-consolidation-k` or Balanced's 2 — so the cluster never churns for cents.
 * Of the steps found, the one saving most; `settings.outOfTime` ends the search early.
 */
export function globalConsolidation(
  eligible: readonly Candidate[],
  snapshot: ClusterSnapshot,
  totals: ReadonlyMap<string, NodePoolTotals>,
  settings: ConsolidationSettings & { readonly outOfTime?: () => boolean } = DEFAULT_CONSOLIDATION_SETTINGS,
): GlobalStep | undefined {
  let best: GlobalStep | undefined;
  for (const group of byNodePool(eligible)) {
    // Whether the set moves (onto the nodes that stay and at most MAX_GLOBAL_REPLACEMENTS new
    // nodes, for less); kept as the best when it also clears the threshold and saves more.
    const moves = (step: readonly Candidate[]) => {
      // Out of the run's time (the disruption function's budget), the search stops where it is
      // and the best step found so far stands.
      if (settings.outOfTime?.()) return false;
      const consolidation = computeConsolidation(step, snapshot, settings, MAX_GLOBAL_REPLACEMENTS);
      if (consolidation.action === 'none') return false;
      if (
        clearsGlobalThreshold(step, consolidation.savings, totals) &&
        (!best || best.consolidation.savings < consolidation.savings)
      )
        best = { candidates: step, consolidation, detail: describe(step, consolidation) };
      return true;
    };
    const sorted = [...group].sort(byMoveCostPerDollar).slice(0, MAX_GLOBAL_PREFIX);
    const ordered = sorted.slice(0, MAX_GLOBAL_CANDIDATES);
    // Past the window, the longest prefix that moves, by binary search as multi-node's
    // (multinodeconsolidation.go `firstNConsolidationOption`), so a mass scale-down goes a
    // budget's worth at a time...
    for (let lo = ordered.length + 1, hi = sorted.length; lo <= hi; ) {
      const n = Math.floor((lo + hi) / 2);
      if (moves(sorted.slice(0, n))) lo = n + 1;
      else hi = n - 1;
    }
    // ...every prefix of the window, largest first (a binary search assumes that a prefix that
    // cannot move means no longer one can, and misses the moves past such a gap), down to the
    // first alone...
    for (let n = ordered.length; n >= 1; n--) moves(ordered.slice(0, n));
    // ...every other candidate alone (single-node consolidation tried each with one new node at
    // most; split over several, it may save)...
    for (const c of ordered.slice(1)) moves([c]);
    // ...and grown one candidate at a time from the first, each kept only when the set still
    // moves: a candidate that does not fit is skipped, not the end. When nothing joins the first
    // (it is in every prefix too), once more from the second without it: a first candidate whose
    // pods no set can move more cheaply — a replacement of its own type is barred, as multi-node's
    // `filterOutSameInstanceType` bars it — must not hold back the sets of the others.
    if (grow(ordered, moves).length === 1) grow(ordered.slice(1), moves);
  }
  return best;
}

/** A NodePool's k for global consolidation: `podlift.dev/global-consolidation-k`, else Balanced's 2. */
export function globalConsolidationK(pool: NodePool): number {
  return pool.disruption.globalConsolidationK ?? BALANCED_K;
}

/**
 * Whether a move clears global consolidation's threshold, which the `GlobalConsolidation` gate
 * applies to its own steps and to every move of Karpenter's methods whatever the NodePool's policy:
 * each NodePool among the candidates scores it as Balanced does, at its
 * {@link globalConsolidationK}. Without it, the single-node and multi-node moves the global step
 * left behind took any saving, and evicted pods for cents: over the soak's eight seeds they made
 * the gate evict 58.9 pods an hour against 52.0 with it (docs/performance.md).
 */
export function clearsGlobalThreshold(
  candidates: readonly Candidate[],
  savings: number,
  totals: ReadonlyMap<string, NodePoolTotals>,
): boolean {
  return everyPoolApproves(candidates, savings, totals, globalConsolidationK);
}

/**
 * A set grown from the first of `ordered`: each next candidate kept when the set with it moves.
 * One scheduling run per candidate after the first.
 */
function grow(ordered: readonly Candidate[], moves: (step: readonly Candidate[]) => boolean): Candidate[] {
  const step: Candidate[] = ordered.slice(0, 1);
  for (const c of ordered.slice(1)) if (moves([...step, c])) step.push(c);
  return step;
}

/**
 * The longest prefix the search tries, as multi-node consolidation's batch
 * (multinodeconsolidation.go `ComputeCommands`: "Only consider a maximum batch of 100 NodeClaims").
 */
export const MAX_GLOBAL_PREFIX = 100;

/**
 * Candidates of one NodePool the search looks at closely, cheapest to move first; past them only
 * the longest prefix that moves is searched for, and the others wait for a later run. Each is one scheduling run per pass (prefixes, alone, growing a set from the first
 * and from the second): 4n − 4 = 40 simulations, and at most 7 more for the binary search past
 * them.
 */
export const MAX_GLOBAL_CANDIDATES = 11;

/** Fewest pods per dollar of the node first: the cheapest disruption for what it saves. */
function byMoveCostPerDollar(a: Candidate, b: Candidate): number {
  return (
    nodeDisruptionCost(a.pods) / a.price - nodeDisruptionCost(b.pods) / b.price ||
    a.claim.name.localeCompare(b.claim.name)
  );
}

/** The candidates grouped by NodePool, in the order given. */
function byNodePool(candidates: readonly Candidate[]): Candidate[][] {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) groups.set(c.pool.name, [...(groups.get(c.pool.name) ?? []), c]);
  return [...groups.values()];
}

/** The step in words: what it saves, which nodes it removes, where their pods go. */
function describe(step: readonly Candidate[], consolidation: Consolidation): string {
  const pods = step.reduce((n, c) => n + c.pods.length, 0);
  const onto =
    consolidation.action === 'replace'
      ? `${consolidation.plans
          .map((p) => `a new ${p.instanceType} (${p.capacityType}, $${p.price.toFixed(4)}/h)`)
          .join(', ')} and the nodes that stay`
      : 'the nodes that stay';
  return `global consolidation saves $${consolidation.savings.toFixed(4)}/h: moves ${pods} pod(s) off ${step.map((c) => c.node.name).join(', ')} onto ${onto}`;
}
