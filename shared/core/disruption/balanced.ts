import { evictionCost } from '../model/eviction-cost';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import type { NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { isReschedulable } from '../provisioning/pods-to-provision';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { Candidate } from './candidates';

/**
 * `consolidationPolicy: Balanced` (kubernetes-sigs/karpenter pkg/controllers/disruption/balanced.go,
 * designs/balanced-consolidation.md): a consolidation move is taken only when the share of the
 * NodePool's cost it saves is at least half the share of the NodePool's disruption it causes,
 * `(savings / pool cost) / (disruption / pool disruption) ≥ 1/k` with k = 2. Disruption is what
 * Karpenter's EvictionCost says a pod costs to move (pod-deletion-cost and priority), plus 1 per
 * node for cordoning, draining and the replacement's start. WhenEmptyOrUnderutilized is k = ∞
 * (any saving passes); emptiness is not scored.
 */

/** Karpenter's `BalancedK` (apis/v1/nodepool.go): the score must reach 1/k. */
export const BALANCED_K = 2;
/** Karpenter's `PerNodeBaseDisruptionCost` (disruption/types.go). */
export const PER_NODE_DISRUPTION_COST = 1;

/** A node's disruption cost: 1 plus the positive eviction costs of the pods that would move. */
export function nodeDisruptionCost(pods: readonly Pod[]): number {
  return pods.reduce((sum, pod) => sum + Math.max(0, evictionCost(pod)), PER_NODE_DISRUPTION_COST);
}

/** A NodePool's cost ($/h of its NodeClaims) and disruption cost (of all its nodes), the score's denominators. */
export interface NodePoolTotals {
  readonly cost: number;
  readonly disruptionCost: number;
  /**
   * How long the NodePool has been settled: since the last of its NodeClaims was created or its
   * last pod event (`status.lastPodEventTime`, a pod bound to or gone from its node); podlift's
   * global consolidation threshold reads it (global-consolidation.ts `thresholdK`). Absent, the
   * NodePool counts as settled long since.
   */
  readonly settledForMs?: number;
}

/**
 * Every NodePool's totals (balanced.go `computeNodePoolTotals`): the hourly prices of all its
 * NodeClaims, and the disruption cost of all its nodes, candidates or not (in-flight NodeClaims
 * count their base cost); and how long it has been settled.
 */
export function nodePoolTotals(snapshot: ClusterSnapshot): Map<string, NodePoolTotals> {
  const totals = new Map<string, { cost: number; disruptionCost: number; settledForMs: number }>();
  for (const { node, nodeClaim } of joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims)) {
    const pool = nodeClaim?.labels[LABEL_NODEPOOL];
    if (!nodeClaim || !pool) continue;
    const entry = totals.get(pool) ?? { cost: 0, disruptionCost: 0, settledForMs: Number.POSITIVE_INFINITY };
    entry.cost += Number(nodeClaim.annotations[ANNOTATIONS.hourlyPrice] ?? 0) || 0;
    entry.disruptionCost += nodeDisruptionCost(node ? node.pods.filter(isReschedulable) : []);
    const changed = Date.parse(nodeClaim.status.lastPodEventTime ?? nodeClaim.creationTimestamp ?? '');
    if (Number.isFinite(changed)) entry.settledForMs = Math.min(entry.settledForMs, snapshot.now - changed);
    totals.set(pool, entry);
  }
  return totals;
}

/** How a move scored against one NodePool (balanced.go `ScoreResult`). */
export interface BalancedScore {
  readonly savingsFraction: number;
  readonly disruptionFraction: number;
  /** savingsFraction / disruptionFraction; 0 when nothing is saved. */
  readonly score: number;
  readonly approved: boolean;
}

/** Scores a move that saves `savings` $/h at `disruptionCost`, approved at 1/k (balanced.go `ScoreMove`). */
export function scoreMove(
  savings: number,
  disruptionCost: number,
  totals: NodePoolTotals | undefined,
  k = BALANCED_K,
): BalancedScore {
  // Zero totals leave nothing to normalize against (balanced.go `ScoreMove`): both fractions 0,
  // so the move scores 0.
  const normalizable = totals !== undefined && totals.cost > 0 && totals.disruptionCost > 0;
  const savingsFraction = normalizable ? savings / totals.cost : 0;
  const disruptionFraction = normalizable ? disruptionCost / totals.disruptionCost : 0;
  // types.go `ScoreResult.Score`: nothing saved scores 0; a move that disrupts nothing scores
  // +Infinity, which dividing a positive number by 0 already gives.
  const score = savingsFraction <= 0 ? 0 : savingsFraction / disruptionFraction;
  return { savingsFraction, disruptionFraction, score, approved: score >= 1 / k };
}

/**
 * Whether every Balanced NodePool among the candidates approves the move (balanced.go
 * `EvaluateBalancedMove`); other pools pass. With candidates of several pools, each pool is
 * credited the share of the net savings its candidates' prices make up.
 */
export function balancedApproves(
  candidates: readonly Candidate[],
  savings: number,
  totals: ReadonlyMap<string, NodePoolTotals>,
): boolean {
  return everyPoolApproves(candidates, savings, totals, (pool) =>
    pool.disruption.consolidationPolicy === 'Balanced' ? BALANCED_K : undefined,
  );
}

/**
 * Whether every NodePool among the candidates approves the move at the k `kOf` gives it, as
 * {@link balancedApproves} scores a Balanced one; a NodePool without a k passes.
 */
export function everyPoolApproves(
  candidates: readonly Candidate[],
  savings: number,
  totals: ReadonlyMap<string, NodePoolTotals>,
  kOf: (pool: NodePool) => number | undefined,
): boolean {
  const byPool = new Map<string, Candidate[]>();
  for (const c of candidates) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
  const sourceCost = candidates.reduce((sum, c) => sum + c.price, 0);
  return [...byPool].every(([pool, group]) => {
    const k = kOf(group[0].pool);
    if (k === undefined) return true;
    const poolCost = group.reduce((sum, c) => sum + c.price, 0);
    // Karpenter credits only cross-pool moves (`len(byPool) > 1`); a single pool's share of the
    // source cost is all of it, the same sum in the same order, so its ratio is exactly 1.
    const poolSavings = sourceCost > 0 ? savings * (poolCost / sourceCost) : savings;
    const disruption = group.reduce((sum, c) => sum + nodeDisruptionCost(c.pods), 0);
    return scoreMove(poolSavings, disruption, totals.get(pool), k).approved;
  });
}

/**
 * Whether deleting the candidate outright — the best any move on it can do — would pass its
 * Balanced NodePool (balanced.go `CanPassThreshold`); candidates that cannot are not simulated.
 */
export function canPassBalanced(candidate: Candidate, totals: ReadonlyMap<string, NodePoolTotals>): boolean {
  if (candidate.pool.disruption.consolidationPolicy !== 'Balanced') return true;
  const poolTotals = totals.get(candidate.pool.name);
  if (!poolTotals || poolTotals.cost <= 0) return true;
  return scoreMove(candidate.price, nodeDisruptionCost(candidate.pods), poolTotals).approved;
}
