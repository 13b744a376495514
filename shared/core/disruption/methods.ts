import { durationMs } from '../model/duration';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import { conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodeClaimPlan } from '../scheduling/types';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import { allowedDisruptions, type DisruptionReason } from './budgets';
import type { Candidate, DisruptionMethod } from './candidates';
import { underCommand } from './command-record';
import {
  type ConsolidationSettings,
  DEFAULT_CONSOLIDATION_SETTINGS,
  replacementsOptions,
} from './replacement-options';
import { simulationBase } from './simulation-base';

/**
 * The disruption methods in Karpenter's order (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/controller.go: emptiness, drift, then consolidation; expiration is
 * forceful and separate, pkg/controllers/nodeclaim/expiration), each a pure decision over the
 * candidates of a snapshot.
 */

/** A decided disruption, recorded on its NodeClaims before anything is done. */
export interface DisruptionCommand {
  readonly id: string;
  readonly method: DisruptionMethod;
  readonly reason: DisruptionReason;
  /** RFC 3339; the command runs only after it is validated again at least 15 s later. */
  readonly decidedAt: string;
  /** NodeClaim names. */
  readonly candidates: readonly string[];
  /** Whether the candidates' pods need new capacity first (drift, replace-consolidation). */
  readonly replace: boolean;
  /**
   * How many new nodes a consolidation may launch (podlift's global consolidation; absent, one,
   * as Karpenter's consolidation).
   */
  readonly replacements?: number;
  /** USD per hour saved: candidates' prices minus the replacement's. */
  readonly savings: number;
  /** What the method found, in words (e.g. which subnet drifted). */
  readonly detail?: string;
  /**
   * NodeClaims the replacements make room for (global consolidation's phased step,
   * global-consolidation.ts `phasedStep`): their pods are planned with the candidates', but this
   * command neither marks nor deletes them.
   */
  readonly makesRoomFor?: readonly string[];
}

/**
 * The candidates whose pods a command's replacements are planned for: its own, and those a phased
 * step makes room for (`makesRoomFor`) while no other command has taken them.
 */
export function plannedCandidates(command: DisruptionCommand, candidates: readonly Candidate[]): Candidate[] {
  const own = new Set(command.candidates);
  const room = new Set(command.makesRoomFor ?? []);
  return candidates.filter(
    (c) => own.has(c.claim.name) || (room.has(c.claim.name) && !underCommand(c.claim)),
  );
}

/**
 * Those of `candidates` whose nodes still count against their NodePools' limits while the
 * command's replacements are planned: for a phased step (`makesRoomFor`), every one, its own and
 * those it makes room for (global-consolidation.ts `phasedStep`); for any other command, none.
 */
export function countedUntilMoved(
  command: DisruptionCommand,
  candidates: readonly Candidate[],
): readonly Candidate[] {
  return command.makesRoomFor?.length ? candidates : [];
}

/** Karpenter's consolidation validation delay (pkg/controllers/disruption/validation.go). */
export const VALIDATION_DELAY_MS = 15_000;

/** NodeClaims past their expireAfter (creation + expireAfter ≤ now): deleted, not budgeted. */
export function expiredClaims(claims: readonly NodeClaim[], now: number): NodeClaim[] {
  return claims.filter((claim) => {
    if (claim.deletionTimestamp || !claim.creationTimestamp || !claim.spec.expireAfter) return false;
    const ttl = durationMs(claim.spec.expireAfter);
    return ttl !== undefined && Date.parse(claim.creationTimestamp) + ttl <= now;
  });
}

/**
 * What consolidating candidates would do: delete them, or replace them with cheaper new nodes
 * (Karpenter's methods: one; podlift's global consolidation: several).
 */
export type Consolidation =
  | { readonly action: 'delete'; readonly savings: number }
  | { readonly action: 'replace'; readonly plans: readonly NodeClaimPlan[]; readonly savings: number };

/** Why consolidating the candidates is not possible, when Karpenter says so in an Unconsolidatable Event. */
export interface NoConsolidation {
  readonly action: 'none';
  /** Karpenter's words; absent where it publishes no Event (the pods do not all schedule). */
  readonly why?: string;
}

/**
 * Simulates removing `candidate` (consolidation.go `computeConsolidation`): its pods scheduled
 * on the other Nodes and in-flight NodeClaims. Delete when they all fit there; replace when they
 * need exactly one new node with options cheaper than the candidate (replacement-options.ts);
 * otherwise nothing.
 */
export function simulateConsolidation(
  candidate: Candidate,
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
): Consolidation | undefined {
  return simulateRemoval([candidate], snapshot, settings);
}

/**
 * The same for several candidates at once (multinodeconsolidation.go): all their pods on the
 * capacity that stays plus at most one new node, cheaper than the candidates together.
 */
export function simulateRemoval(
  candidates: readonly Candidate[],
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
  maxReplacements = 1,
  stillCounted: readonly Candidate[] = [],
): Consolidation | undefined {
  const result = computeConsolidation(candidates, snapshot, settings, maxReplacements, stillCounted);
  return result.action === 'none' ? undefined : result;
}

/**
 * consolidation.go `computeConsolidation`, with why not when it finds nothing. Karpenter's
 * `SimulateScheduling` (helpers.go) schedules the pending pods and the pods of nodes being
 * deleted (besideCommandsInFlight) together with the candidates' pods, and gives up when a
 * candidate's pod would land on a node that is not initialized yet: otherwise the candidates'
 * pods are counted onto room others are about to take, and need a new node the moment they move.
 * Karpenter launches at most one replacement; podlift's global consolidation passes
 * `maxReplacements` to allow more (each narrowed by `replacementsOptions`), and
 * `stillCounted`: those of the candidates whose nodes still count against their NodePools'
 * limits, as a phased step's do (global-consolidation.ts `phasedStep`).
 */
export function computeConsolidation(
  candidates: readonly Candidate[],
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
  maxReplacements = 1,
  stillCounted: readonly Candidate[] = [],
): Consolidation | NoConsolidation {
  const price = candidates.reduce((sum, c) => sum + c.price, 0);
  if (!snapshot.catalog || candidates.length === 0 || candidates.some((c) => c.price <= 0))
    return { action: 'none' };
  const leaving = nodeNames(candidates);
  const { planner, uninitialized } = simulationBase(snapshot, snapshot.catalog);
  const moving = candidates.flatMap((c) => c.pods.map((p) => ({ ...p, nodeName: undefined })));
  const mine = new Set(moving.map((p) => p.uid));
  const result = planner.plan([...snapshot.pendingPods, ...moving], leaving, nodeNames(stillCounted));
  // `AllNonPendingPodsScheduled`: the pending pods may stay pending; the candidates' may not,
  // nor wait on a node that is still starting (helpers.go `UninitializedNodeError`).
  if (result.unschedulable.some((u) => mine.has(u.pod.uid))) return { action: 'none' };
  if (result.placements.some((p) => uninitialized.has(p.node) && p.pods.some((pod) => mine.has(pod.uid))))
    return { action: 'none' };
  if (result.nodeClaims.length === 0) return { action: 'delete', savings: price };
  if (result.nodeClaims.length > maxReplacements)
    return { action: 'none', why: `Can't remove without creating ${result.nodeClaims.length} candidates` };
  const options = replacementsOptions(candidates, result.nodeClaims, snapshot, settings);
  if ('why' in options) return { action: 'none', why: options.why };
  const cost = options.plans.reduce((sum, p) => sum + p.price, 0);
  return { action: 'replace', plans: options.plans, savings: price - cost };
}

/** The names of the candidates' nodes. */
function nodeNames(candidates: readonly Candidate[]): Set<string> {
  return new Set(candidates.map((c) => c.node.name));
}

/**
 * The largest prefix of `ordered` (cheapest to disrupt first) that can be removed together, by
 * binary search as Karpenter's multi-node consolidation does (`firstNConsolidationOption`); at
 * least two candidates, or undefined. `approve` may still reject a possible move (Balanced scoring).
 */
export function multiNodeConsolidation(
  ordered: readonly Candidate[],
  snapshot: ClusterSnapshot,
  approve: (candidates: readonly Candidate[], consolidation: Consolidation) => boolean = () => true,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
): { candidates: readonly Candidate[]; consolidation: Consolidation } | undefined {
  let best: { candidates: readonly Candidate[]; consolidation: Consolidation } | undefined;
  let low = 2;
  let high = ordered.length;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const prefix = ordered.slice(0, mid);
    // A replacement's options already exclude the candidates' own types unless cheaper
    // (replacement-options.ts, `filterOutSameInstanceType`).
    const consolidation = simulateRemoval(prefix, snapshot, settings);
    // A move a Balanced NodePool rejects shrinks the window, as an impossible one does.
    if (consolidation && approve(prefix, consolidation)) {
      best = { candidates: prefix, consolidation };
      low = mid + 1;
    } else high = mid - 1;
  }
  return best;
}

/**
 * Nodes of each NodePool a budget is a share of, and how many of them already use it, counted as
 * Karpenter counts them (kubernetes-sigs/karpenter pkg/controllers/disruption/helpers.go
 * `BuildDisruptionBudgetMapping`): only initialized NodeClaims with their registered Node count
 * towards the total — a replacement still booting must not raise a percentage budget and let
 * more working nodes go — and of those, a Node that is not Ready, or a NodeClaim being deleted or
 * under a disruption command, is disrupting.
 */
export function poolDisruptionCounts(snapshot: ClusterSnapshot): Map<string, PoolCounts> {
  const counts = new Map<string, { nodes: number; disrupting: number; notReady: number }>();
  for (const { node, nodeClaim: claim } of joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims)) {
    const pool = claim?.labels[LABEL_NODEPOOL];
    if (!node || !claim || !pool || !conditionIsTrue(claim, 'Initialized')) continue;
    const entry = counts.get(pool) ?? { nodes: 0, disrupting: 0, notReady: 0 };
    entry.nodes++;
    if (node.ready !== true) entry.notReady++;
    if (
      node.ready !== true ||
      node.deleting ||
      claim.deletionTimestamp ||
      claim.annotations[ANNOTATIONS.disruptionCommand]
    )
      entry.disrupting++;
    counts.set(pool, entry);
  }
  return counts;
}

/** A NodePool's nodes as its budgets count them (`poolDisruptionCounts`). */
export interface PoolCounts {
  readonly nodes: number;
  /** Nodes not Ready, being deleted or under a disruption command. */
  readonly disrupting: number;
  /** Nodes whose Node is not Ready (each also counted in `disrupting`). */
  readonly notReady: number;
}

/** How many nodes of the candidate's pool may still be disrupted for `reason`. */
export function budgetFor(
  candidate: Candidate,
  reason: DisruptionReason,
  counts: ReadonlyMap<string, PoolCounts>,
  now: number,
): number {
  const count = counts.get(candidate.pool.name) ?? { nodes: 1, disrupting: 0 };
  return allowedDisruptions(candidate.pool, reason, count.nodes, count.disrupting, now);
}

/**
 * The NodeClaims that must exist before a command's candidates drain: their pods planned on the
 * capacity that stays (every Node and in-flight NodeClaim but the candidates), after the pending
 * pods — with `besideCommandsInFlight` (commands-in-flight.ts), the pods of the other commands' candidates — so room
 * a replacement launched for another command holds for that command's pods is not counted twice
 * (helpers.go `SimulateScheduling` schedules the pods of deleting nodes with the candidates').
 * Only the plans holding candidates' pods are returned, and only their pods count as unschedulable.
 * The nodes of `stillCounted` (among `candidates`) still count against their NodePools' limits,
 * as in {@link computeConsolidation}.
 */
export function replacementPlans(
  candidates: readonly Candidate[],
  snapshot: ClusterSnapshot,
  stillCounted: readonly Candidate[] = [],
): { plans: readonly NodeClaimPlan[]; unschedulable: number } {
  if (!snapshot.catalog)
    return { plans: [], unschedulable: candidates.reduce((n, c) => n + c.pods.length, 0) };
  const leaving = nodeNames(candidates);
  const moving = candidates.flatMap((c) => c.pods.map((p) => ({ ...p, nodeName: undefined })));
  const mine = new Set(moving.map((p) => p.uid));
  const result = simulationBase(snapshot, snapshot.catalog).planner.plan(
    [...snapshot.pendingPods, ...moving],
    leaving,
    nodeNames(stillCounted),
  );
  return {
    plans: result.nodeClaims.filter((plan) => plan.pods.some((p) => mine.has(p.uid))),
    unschedulable: result.unschedulable.filter((u) => mine.has(u.pod.uid)).length,
  };
}

/**
 * The share of a NodePool's nodes that may be not Ready for {@link alreadyDisrupting} to hold:
 * node repair's `allowedUnhealthyPercent` (kubernetes-sigs/karpenter
 * pkg/controllers/node/health/controller.go), past which a failure is too wide to be the nodes'.
 */
const ALREADY_DISRUPTING_PERCENT = 20;

/**
 * Whether the candidate's Node is not Ready and so already counted as disrupting by its NodePool's
 * budgets (`poolDisruptionCounts`, as Karpenter's `BuildDisruptionBudgetMapping`): disrupting it
 * takes nothing more from them — a not-Ready node removed is still one node out. Karpenter charges
 * it twice (once as not Ready, once as the candidate), so a few dead kubelets hold every budget at
 * 0 and nothing is consolidated until they are gone. podlift's consolidation
 * (`GlobalConsolidation`) charges it once, but only while at most
 * {@link ALREADY_DISRUPTING_PERCENT} % of the NodePool's nodes are not Ready: a wider failure (a
 * zone or the network) is not the nodes' and removes nothing more than the budget allows.
 */
export function alreadyDisrupting(candidate: Candidate, counts: ReadonlyMap<string, PoolCounts>): boolean {
  const count = counts.get(candidate.pool.name);
  return (
    candidate.node.ready !== true &&
    count !== undefined &&
    count.notReady * 100 <= count.nodes * ALREADY_DISRUPTING_PERCENT
  );
}

/**
 * The candidates multi-node consolidation may search, in order: from each NodePool only as many
 * as its Underutilized budget still allows (nodes already disrupting counted), the rest passed
 * by before the search rather than after it, so that every prefix the binary search tries is a
 * command the budgets allow (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/multinodeconsolidation.go `MultiNodeConsolidation.ComputeCommands`:
 * it walks the sorted candidates, skips one whose NodePool's `disruptionBudgetMapping` entry is 0
 * and decrements the entry for each it keeps, then caps the batch at 100). An `exempt` candidate
 * (`alreadyDisrupting`, with podlift's consolidation) is kept without being charged.
 */
export function withinBudgetInOrder(
  ordered: readonly Candidate[],
  counts: ReadonlyMap<string, PoolCounts>,
  now: number,
  exempt: (c: Candidate) => boolean = () => false,
): Candidate[] {
  const remaining = new Map<string, number>();
  const kept: Candidate[] = [];
  for (const c of ordered) {
    if (exempt(c)) {
      kept.push(c);
      continue;
    }
    const left = remaining.get(c.pool.name) ?? budgetFor(c, 'Underutilized', counts, now);
    if (left <= 0) continue;
    kept.push(c);
    remaining.set(c.pool.name, left - 1);
  }
  return kept;
}
