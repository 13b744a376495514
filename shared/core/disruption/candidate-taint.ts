import type { Taint } from '../model/taints';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { balancedApproves, canPassBalanced, nodePoolTotals } from './balanced';
import { type Candidate, disruptionCandidates } from './candidates';
import { underCommand } from './command-record';
import { besideCommandsInFlight } from './commands-in-flight';
import { byConsolidationOrder, type DisruptionSettings, MAX_CONSOLIDATION_SIMULATIONS } from './decide';
import { leaveEmptyNodesEmpty } from './deletion-cost';
import { globalConsolidation } from './global-consolidation';
import { computeConsolidation, multiNodeConsolidation } from './methods';
import { walkCandidates } from './single-node-walk';

/**
 * Scale-up steering (the `CandidateTaint` gate, podlift's own): the disruption loop puts
 * {@link CANDIDATE_TAINT} on the nodes consolidation is heading for, so that kube-scheduler places
 * the pods of a scale-up elsewhere when they fit. Its default profile scores nodes by
 * LeastAllocated, so without the taint the emptiest nodes — the ones a scale-down just thinned, the
 * ones consolidation waits `consolidateAfter` to take — draw new pods first; each such pod is
 * evicted again when the node goes, or keeps a node the cluster does not need. A PreferNoSchedule
 * taint outweighs LeastAllocated (TaintToleration's score weighs 3, NodeResourcesFit's 1:
 * kubernetes pkg/scheduler/apis/config/v1/default_plugins.go `getDefaultPlugins`) and never makes
 * a pod unschedulable, and podlift's own scheduling, as Karpenter's, ignores it.
 *
 * It is the Candidate state kubernetes-sigs/karpenter issue #624 ("Node Disruption Lifecycle
 * Taints") proposed — a node Karpenter identifies as a possible option for disruption carries a
 * PreferNoSchedule taint, and can always leave candidacy — and Karpenter never shipped. Which
 * nodes are candidates is podlift's: the nodes of a recorded command not yet carried out (its
 * validation, 15 s later, cancels it if pods arrive); empty nodes (emptiness takes them once
 * `consolidateAfter` has passed, unless it is `Never`); and the nodes of the step consolidation
 * would take next, were every candidate past `consolidateAfter` and every budget open, on the
 * cluster without the empty nodes — the global step with the `GlobalConsolidation` gate, else
 * multi-node's, else single-node's first move in consolidation's order (from the top: the resume
 * mark and the NodePools' interleaving are the decision's own). Nodes a do-not-disrupt pod
 * or annotation keeps and static NodePools' (`blocked`) are not.
 */

/** The taint on a node consolidation is heading for. */
export const CANDIDATE_TAINT: Taint = { key: 'podlift.dev/disruption-candidate', effect: 'PreferNoSchedule' };

/** The names of the nodes that should carry {@link CANDIDATE_TAINT}. */
export function candidateNodes(cluster: ClusterSnapshot, settings: DisruptionSettings): Set<string> {
  // The nodes of recorded commands take no pods here, theirs pending: they count as empty.
  const snapshot = besideCommandsInFlight(cluster);
  const nodes = new Set<string>();
  const busy: Candidate[] = [];
  // Blocked: a do-not-disrupt pod or annotation, a static NodePool (candidates.ts `blockedBecause`).
  for (const c of disruptionCandidates(snapshot).filter((c) => !c.blocked)) {
    if (c.pods.length > 0) {
      if (c.pool.disruption.consolidationPolicy !== 'WhenEmpty') busy.push(c);
    } else if (underCommand(c.claim) || c.pool.disruption.consolidateAfter !== 'Never')
      nodes.add(c.node.name);
  }
  for (const c of heading(busy, snapshot, settings)) nodes.add(c.node.name);
  return nodes;
}

/** The candidates of the step consolidation would take among `busy`, budgets and consolidateAfter aside. */
function heading(
  busy: Candidate[],
  snapshot: ClusterSnapshot,
  settings: DisruptionSettings,
): readonly Candidate[] {
  const ordered = busy.sort(byConsolidationOrder);
  // Emptiness goes first: the empty candidates are on their way out, not room.
  const room = leaveEmptyNodesEmpty(snapshot);
  const totals = nodePoolTotals(snapshot);
  if (settings.globalConsolidation)
    return globalConsolidation(ordered, room, totals, settings)?.candidates ?? [];
  const approves = (chosen: readonly Candidate[], savings: number) =>
    balancedApproves(chosen, savings, totals);
  const passable = ordered.filter((c) => canPassBalanced(c, totals));
  const batch = passable.slice(0, MAX_CONSOLIDATION_SIMULATIONS);
  const multi = multiNodeConsolidation(batch, room, (chosen, c) => approves(chosen, c.savings), settings);
  if (multi) return multi.candidates;
  const walked = walkCandidates(
    passable,
    (c) => {
      const consolidation = computeConsolidation([c], room, settings);
      return consolidation.action !== 'none' && approves([c], consolidation.savings) ? c : undefined;
    },
    () => settings.outOfTime?.() ?? false,
  );
  return walked.found ? [walked.found.candidate] : [];
}

/** A node whose {@link CANDIDATE_TAINT} must be put on (`taint`) or taken off. */
export interface CandidateTaintChange {
  readonly node: string;
  readonly taint: boolean;
}

/**
 * The registered Nodes whose {@link CANDIDATE_TAINT} must change: on for the
 * {@link candidateNodes} that lack it, off for the others that carry it — every one when the gate
 * is off, so turning it off leaves no taint behind. Nodes being deleted are left alone.
 */
export function candidateTaintChanges(
  snapshot: ClusterSnapshot,
  enabled: boolean,
  settings: DisruptionSettings,
): CandidateTaintChange[] {
  const wanted = enabled ? candidateNodes(snapshot, settings) : new Set<string>();
  const changes: CandidateTaintChange[] = [];
  for (const node of snapshot.nodes) {
    if (node.kind !== 'node' || node.deleting) continue;
    const tainted = node.taints.some(
      (t) => t.key === CANDIDATE_TAINT.key && t.effect === CANDIDATE_TAINT.effect,
    );
    if (tainted !== wanted.has(node.name)) changes.push({ node: node.name, taint: !tainted });
  }
  return changes;
}
