import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { type NodePoolTotals, nodeDisruptionCost, scoreMove } from './balanced';
import type { Candidate } from './candidates';
import { type Consolidation, computeConsolidation } from './methods';
import { type ConsolidationSettings, DEFAULT_CONSOLIDATION_SETTINGS } from './replacement-options';
import { simulationBase } from './simulation-base';

/**
 * Global consolidation (podlift's own, behind the `GlobalConsolidation` feature gate; issue 23):
 * Karpenter's consolidation is local — single-node takes one candidate, multi-node only prefixes
 * of candidates sorted by pod count (multinodeconsolidation.go `firstNConsolidationOption`) — so a
 * running cluster stays well above the cheapest fleet for its pods. This plans the pods of all of a
 * NodePool's eligible candidates afresh (the planner, the nodes that stay as options) and, when
 * that fleet is cheaper than the candidates, takes one step towards it: several candidates removed
 * together, their pods onto the nodes that stay and at most one new node. A step is
 * an ordinary consolidation command (at most one replacement, checked by `computeConsolidation`,
 * which the command's validation and launch run again), so budgets, PDBs, do-not-disrupt,
 * minValues and limits hold as for Karpenter's methods; the caller passes only candidates those
 * filters already let through.
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
  if (!snapshot.catalog) return undefined;
  let best: GlobalStep | undefined;
  for (const group of byNodePool(eligible)) {
    if (group.length < 2) continue;
    if (!planIsCheaper(group, snapshot)) continue;
    const pool = totals.get(group[0].pool.name);
    const consider = (step: readonly Candidate[]) => {
      const consolidation = computeConsolidation(step, snapshot, settings);
      if (consolidation.action === 'none' || consolidation.savings <= 0) return false;
      const disruption = step.reduce((sum, c) => sum + nodeDisruptionCost(c.pods), 0);
      if (step.length >= 2 && scoreMove(consolidation.savings, disruption, pool).approved)
        if (!best || best.consolidation.savings < consolidation.savings)
          best = { candidates: step, consolidation, detail: describe(step, consolidation) };
      return true;
    };
    const ordered = [...group].sort(byMoveCostPerDollar).slice(0, MAX_GLOBAL_SIMULATIONS / 2);
    // Every prefix, largest first (multi-node's binary search assumes that a prefix that cannot
    // move means no longer one can, and misses the moves past such a gap)...
    for (let n = ordered.length; n >= 2; n--) consider(ordered.slice(0, n));
    // ...and grown one candidate at a time from the first, each kept only when the set still
    // moves onto the nodes that stay plus one new node: a candidate that does not fit is skipped,
    // not the end. The first is not tried alone (single-node consolidation did, and found nothing).
    const step: Candidate[] = [];
    for (const c of ordered) {
      step.push(c);
      if (step.length >= 2 && !consider([...step])) step.pop();
    }
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

/**
 * Whether planning the group's pods afresh with every candidate of the group gone (after the
 * pending pods, as `computeConsolidation` does) needs new nodes cheaper than the group: whether
 * the NodePool's fleet is cheaper rebuilt, so a step toward it is worth looking for.
 */
function planIsCheaper(group: readonly Candidate[], snapshot: ClusterSnapshot): boolean {
  if (!snapshot.catalog) return false;
  const leaving = new Set(group.map((c) => c.node.name));
  const moving = group.flatMap((c) => c.pods.map((p) => ({ ...p, nodeName: undefined })));
  const mine = new Set(moving.map((p) => p.uid));
  const result = simulationBase(snapshot, snapshot.catalog).planner.plan(
    [...snapshot.pendingPods, ...moving],
    leaving,
  );
  if (result.unschedulable.some((u) => mine.has(u.pod.uid))) return false;
  const newNodes = result.nodeClaims.filter((plan) => plan.pods.some((p) => mine.has(p.uid)));
  return newNodes.reduce((sum, plan) => sum + plan.price, 0) < group.reduce((sum, c) => sum + c.price, 0);
}

/** The step in words: what it saves, which nodes it removes, where their pods go. */
function describe(step: readonly Candidate[], consolidation: Consolidation): string {
  const pods = step.reduce((n, c) => n + c.pods.length, 0);
  const onto =
    consolidation.action === 'replace'
      ? `one new ${consolidation.plan.instanceType} (${consolidation.plan.capacityType}, $${consolidation.plan.price.toFixed(4)}/h) and the nodes that stay`
      : 'the nodes that stay';
  return `global consolidation saves $${consolidation.savings.toFixed(4)}/h: moves ${pods} pod(s) off ${step.map((c) => c.node.name).join(', ')} onto ${onto}`;
}
