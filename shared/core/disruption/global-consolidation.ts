import { durationMs } from '../model/duration';
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
  /**
   * A phased step's candidates past the budget, whose pods the new nodes are sized for too; a
   * later step moves them ({@link phasedStep}).
   */
  readonly makesRoomFor?: readonly Candidate[];
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
 * `podlift.dev/global-consolidation-k` once it has settled ({@link thresholdK}), or Balanced's 2 —
 * so the cluster never churns for cents.
 * Of the steps found, the one saving most; `settings.outOfTime` ends the search early.
 *
 * When none is found within the budgets, a step that needs more candidates than they allow at
 * once is taken in two phases ({@link phasedStep}): `pastBudget` are the Consolidatable
 * candidates the budgets hold back now.
 */
export function globalConsolidation(
  eligible: readonly Candidate[],
  snapshot: ClusterSnapshot,
  totals: ReadonlyMap<string, NodePoolTotals>,
  settings: GlobalSearchSettings = DEFAULT_CONSOLIDATION_SETTINGS,
  pastBudget: readonly Candidate[] = [],
): GlobalStep | undefined {
  return (
    search(eligible, snapshot, totals, settings) ??
    phasedStep(eligible, pastBudget, snapshot, totals, settings)
  );
}

/** The consolidation settings and when the run is out of time for the search. */
type GlobalSearchSettings = ConsolidationSettings & { readonly outOfTime?: () => boolean };

/**
 * A step the budgets cut short, taken in two phases, each within them. A NodePool's budget bounds
 * how many of its nodes are disrupted at once (Karpenter's `nodes`: kubernetes-sigs/karpenter
 * pkg/controllers/disruption/helpers.go `BuildDisruptionBudgetMapping`), and Karpenter's
 * multi-node consolidation searches only as many candidates as it allows
 * (multinodeconsolidation.go `ComputeCommands`). The cheapest fleet for a set of under-used nodes
 * may need more of them than that — five single-pod nodes onto one new node, where three of them
 * onto a smaller one save too little to clear the threshold — and a cluster held there stays
 * above it for good (in the soak, seed 4 spent its last ten quiet minutes at 1.49 × the bound).
 * So the search runs again over `eligible` and `pastBudget` together, for a step with new nodes
 * that takes at least one eligible candidate. Its first phase is a command of its eligible
 * candidates that launches the new nodes the whole step needs, sized for the others' pods too
 * (the command's `makesRoomFor`: neither marked nor deleted, so they use none of the budget);
 * its recorded saving is the first phase's own, which may be nothing or less. Once the first
 * phase is done and the budget has room again, the others move onto the new nodes' room as a
 * step of their own, a deletion that saves their whole price. The whole step is what clears the
 * threshold, judged as any step; the validation holds the first phase to it (decide.ts
 * `commandStillValid`): every candidate of both phases still a candidate, the whole step still
 * possible with new nodes.
 */
function phasedStep(
  eligible: readonly Candidate[],
  pastBudget: readonly Candidate[],
  snapshot: ClusterSnapshot,
  totals: ReadonlyMap<string, NodePoolTotals>,
  settings: GlobalSearchSettings,
): GlobalStep | undefined {
  const now = new Set(eligible);
  const held = pastBudget.filter((c) => !now.has(c));
  if (held.length === 0) return undefined;
  const later = (step: readonly Candidate[]) => step.filter((c) => !now.has(c));
  // The new nodes, sized for the pods of both phases, run beside every candidate of the step for
  // a while: the first phase's until they have drained, the held-back ones until the second phase.
  // So the simulation moves their pods but still counts all their nodes against the NodePool's
  // limits — stricter than a replacement of Karpenter's, which frees its candidates' share
  // (scheduling/scheduler.go `calculateExistingNodeClaims` counts only the nodes that stay). In the
  // soak, freeing the held-back nodes took the NodePool to 66 vCPU over a limits.cpu of 64, and
  // freeing the first phase's still did, while it drained.
  const whole = search(
    [...eligible, ...held],
    snapshot,
    totals,
    settings,
    (step, consolidation) =>
      consolidation.action === 'replace' && step.some((c) => now.has(c)) && later(step).length > 0,
    (step) => (later(step).length > 0 ? step : []),
  );
  if (whole?.consolidation.action !== 'replace') return undefined;
  const first = whole.candidates.filter((c) => now.has(c));
  const rest = later(whole.candidates);
  const { plans } = whole.consolidation;
  const consolidation: Consolidation = {
    action: 'replace',
    plans,
    savings: first.reduce((sum, c) => sum + c.price, 0) - plans.reduce((sum, p) => sum + p.price, 0),
  };
  return {
    candidates: first,
    consolidation,
    detail: `${describe(first, consolidation, 'global consolidation, first of two phases,')}; the new nodes make room for the pods of ${rest.map((c) => c.node.name).join(', ')}, which move once the budget allows (both phases save $${whole.consolidation.savings.toFixed(4)}/h)`,
    makesRoomFor: rest,
  };
}

/**
 * The step saving most among sets of `eligible`, one NodePool's at a time, that move and clear
 * the threshold, and that `accept` takes; `stillCounted` are those of a set whose nodes still
 * count against the limits (`computeConsolidation`'s).
 */
function search(
  eligible: readonly Candidate[],
  snapshot: ClusterSnapshot,
  totals: ReadonlyMap<string, NodePoolTotals>,
  settings: GlobalSearchSettings,
  accept: (step: readonly Candidate[], consolidation: Consolidation) => boolean = () => true,
  stillCounted: (step: readonly Candidate[]) => readonly Candidate[] = () => [],
): GlobalStep | undefined {
  let best: GlobalStep | undefined;
  for (const group of byNodePool(eligible)) {
    // Whether the set moves (onto the nodes that stay and at most MAX_GLOBAL_REPLACEMENTS new
    // nodes, for less); kept as the best when it also clears the threshold and saves more.
    const moves = (step: readonly Candidate[]) => {
      // Out of the run's time (the disruption function's budget), the search stops where it is
      // and the best step found so far stands.
      if (settings.outOfTime?.()) return false;
      const consolidation = computeConsolidation(
        step,
        snapshot,
        settings,
        MAX_GLOBAL_REPLACEMENTS,
        stillCounted(step),
      );
      if (consolidation.action === 'none') return false;
      if (
        accept(step, consolidation) &&
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

/** How long a NodePool must have been settled before its k applies, unless it says otherwise. */
export const DEFAULT_SETTLE_AFTER_MS = 3 * 60_000;

/**
 * The k a move of the NodePool is scored at: its `podlift.dev/global-consolidation-k` (else
 * Balanced's 2) once it has been settled — no NodeClaim of it created, no pod come or gone on its
 * nodes — for `podlift.dev/global-consolidation-settle-after` ({@link DEFAULT_SETTLE_AFTER_MS}),
 * and until then no more than Balanced's 2. A k above 2 takes moves that save less for what they disrupt,
 * worth it in a cluster that stays as it is; while its workload still changes, such a move is
 * often undone — its pods scaled away, its new nodes emptied — and its evictions wasted. In the
 * soak, on eight seeds at k = 3, this took the evictions from 54.6 an hour (more than Karpenter's
 * consolidation on three seeds) to 35.6, fewer than Karpenter's on every seed (docs/performance.md).
 * The NodePool's own moves settle it again: each step waits the time anew before the next at k.
 */
export function thresholdK(pool: NodePool, totals: NodePoolTotals | undefined): number {
  const k = pool.disruption.globalConsolidationK ?? BALANCED_K;
  const settleAfter = pool.disruption.globalConsolidationSettleAfter;
  const needed = settleAfter !== undefined ? (durationMs(settleAfter) ?? 0) : DEFAULT_SETTLE_AFTER_MS;
  return (totals?.settledForMs ?? Number.POSITIVE_INFINITY) >= needed ? k : Math.min(k, BALANCED_K);
}

/**
 * Whether a move clears global consolidation's threshold, which the `GlobalConsolidation` gate
 * applies to its own steps and to every move of Karpenter's methods whatever the NodePool's policy:
 * each NodePool among the candidates scores it as Balanced does, at its {@link thresholdK}.
 * Without it, the single-node and multi-node moves the global step left behind took any saving,
 * and evicted pods for cents: over the soak's eight seeds they made the gate evict 58.9 pods an
 * hour against 52.0 with it (docs/performance.md).
 */
export function clearsGlobalThreshold(
  candidates: readonly Candidate[],
  savings: number,
  totals: ReadonlyMap<string, NodePoolTotals>,
): boolean {
  return everyPoolApproves(candidates, savings, totals, (pool) => thresholdK(pool, totals.get(pool.name)));
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
function describe(
  step: readonly Candidate[],
  consolidation: Consolidation,
  what = 'global consolidation',
): string {
  const pods = step.reduce((n, c) => n + c.pods.length, 0);
  const onto =
    consolidation.action === 'replace'
      ? `${consolidation.plans
          .map((p) => `a new ${p.instanceType} (${p.capacityType}, $${p.price.toFixed(4)}/h)`)
          .join(', ')} and the nodes that stay`
      : 'the nodes that stay';
  const saving =
    consolidation.savings < 0
      ? `costs $${(-consolidation.savings).toFixed(4)}/h more`
      : `saves $${consolidation.savings.toFixed(4)}/h`;
  return `${what} ${saving}: moves ${pods} pod(s) off ${step.map((c) => c.node.name).join(', ')} onto ${onto}`;
}
