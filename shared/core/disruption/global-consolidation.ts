import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { type NodePoolTotals, nodeDisruptionCost, scoreMove } from './balanced';
import type { Candidate } from './candidates';
import { type Consolidation, computeConsolidation } from './methods';
import { type ConsolidationSettings, DEFAULT_CONSOLIDATION_SETTINGS } from './replacement-options';

/**
 * Global consolidation (podlift's own, behind the `GlobalConsolidation` feature gate; issue 23):
 * Karpenter's consolidation is local — single-node takes one candidate, multi-node only prefixes
 * of candidates sorted by pod count (multinodeconsolidation.go `firstNConsolidationOption`), and
 * either launches at most one new node — so a running cluster stays well above the cheapest fleet
 * for its pods. This plans the pods of sets of a NodePool's eligible candidates afresh (the
 * planner, the nodes that stay as options) and takes one step: several candidates removed
 * together, their pods onto the nodes that stay and as many new nodes as the plan needs, fewer
 * than the candidates removed, each narrowed below its share of their price
 * (`replacementsOptions`), so whichever options EC2 picks the step saves. Budgets, PDBs,
 * do-not-disrupt, minValues, limits and the SpotToSpotConsolidation gate hold as for Karpenter's
 * methods: the caller passes only candidates those filters let through, and the plan and its
 * narrowing are `computeConsolidation`'s, which the command's validation and launch run again.
 */

/** A step of global consolidation: the candidates removed together and what that does. */
export interface GlobalStep {
  readonly candidates: readonly Candidate[];
  readonly consolidation: Consolidation;
  /** What the step saves and moves, in words (the command's detail, its Event and log line). */
  readonly detail: string;
}

/**
 * One global-consolidation step, or undefined. `eligible` are the candidates consolidation may
 * take now (Consolidatable, not blocked, within their NodePools' Underutilized budgets taken
 * together); `totals` are every NodePool's cost and disruption cost (balanced.ts). A step must
 * remove at least two candidates (one alone is single-node consolidation's), save money, and clear
 * Balanced's threshold whatever the NodePool's policy — saving ÷ pool cost at least half the
 * disruption ÷ pool disruption (balanced.go `ScoreMove`, k = 2) — so the cluster never churns for
 * cents. Of the steps found, the one saving most.
 */
export function globalConsolidation(
  eligible: readonly Candidate[],
  snapshot: ClusterSnapshot,
  totals: ReadonlyMap<string, NodePoolTotals>,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
): GlobalStep | undefined {
  let best: GlobalStep | undefined;
  for (const group of byNodePool(eligible)) {
    const pool = totals.get(group[0].pool.name);
    // Whether the set moves (onto the nodes that stay and fewer new nodes than it removes);
    // kept as the best when it also clears the threshold and saves more than the best so far.
    const moves = (step: readonly Candidate[]) => {
      const consolidation = computeConsolidation(step, snapshot, settings, step.length - 1);
      if (consolidation.action === 'none') return false;
      const disruption = step.reduce((sum, c) => sum + nodeDisruptionCost(c.pods), 0);
      if (
        scoreMove(consolidation.savings, disruption, pool).approved &&
        (!best || best.consolidation.savings < consolidation.savings)
      )
        best = { candidates: step, consolidation, detail: describe(step, consolidation) };
      return true;
    };
    const ordered = [...group].sort(byMoveCostPerDollar).slice(0, MAX_GLOBAL_SIMULATIONS / 2);
    // Every prefix, largest first (multi-node's binary search assumes that a prefix that cannot
    // move means no longer one can, and misses the moves past such a gap)...
    for (let n = ordered.length; n >= 2; n--) moves(ordered.slice(0, n));
    // ...and grown one candidate at a time from the first, each kept only when the set still
    // moves: a candidate that does not fit is skipped, not the end. The first is not tried alone
    // (single-node consolidation did, and found nothing).
    const step: Candidate[] = ordered.slice(0, 1);
    for (const c of ordered.slice(1)) if (moves([...step, c])) step.push(c);
  }
  return best;
}

/**
 * Simulations one NodePool's step may take, half over the prefixes, half growing a set (each is
 * one scheduling run, as one of multi-node's binary-search probes): the search looks at the first
 * half as many candidates, cheapest to move first; the others wait for a later run.
 */
export const MAX_GLOBAL_SIMULATIONS = 40;

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
