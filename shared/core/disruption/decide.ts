import { isStaticNodePool } from '../model/nodepool';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { balancedApproves, canPassBalanced, nodePoolTotals } from './balanced';
import type { DisruptionReason } from './budgets';
import { blockedFor, type Candidate, disruptionCandidates, withReschedulablePods } from './candidates';
import { underCommand } from './command-record';
import { besideCommandsInFlight } from './commands-in-flight';
import { CONSOLIDATABLE } from './consolidatable';
import { consolidationRoom, waitsForEmptiness } from './deletion-cost';
import { driftedCondition, driftOrder } from './drift';
import { clearsGlobalThreshold, globalConsolidation } from './global-consolidation';
import {
  alreadyDisrupting,
  budgetFor,
  type Consolidation,
  computeConsolidation,
  countedUntilMoved,
  type DisruptionCommand,
  multiNodeConsolidation,
  poolDisruptionCounts,
  replacementPlans,
  simulateRemoval,
  withinBudgetInOrder,
} from './methods';
import { type ConsolidationSettings, DEFAULT_CONSOLIDATION_SETTINGS } from './replacement-options';
import { interleaveByNodePool, resumeOrder, walkCandidates } from './single-node-walk';
import { staticDriftChoice } from './static-drift';

/**
 * Multi-node consolidation searches at most this many candidates (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/multinodeconsolidation.go `ComputeCommands`: "Only consider a
 * maximum batch of 100 NodeClaims"). Single-node walks every candidate within a time budget.
 */
export const MAX_CONSOLIDATION_SIMULATIONS = 100;

/** The order consolidation takes candidates in: fewest pods first, the dearer first among equals. */
export function byConsolidationOrder(a: Candidate, b: Candidate): number {
  return a.pods.length - b.pods.length || b.price - a.price;
}

/** What a decision needs besides the cluster: the operator's settings and the run's time budget. */
export interface DisruptionSettings extends ConsolidationSettings {
  /**
   * True once single-node consolidation must stop walking its candidates (the function's time
   * budget, singlenodeconsolidation.go `SingleNodeConsolidationTimeoutDuration`); core reads no
   * clock. @default never
   */
  readonly outOfTime?: () => boolean;
  /**
   * The `GlobalConsolidation` feature gate: when Karpenter's methods find nothing, one
   * global-consolidation step (global-consolidation.ts). @default false
   */
  readonly globalConsolidation?: boolean;
}

/** A candidate and why a method did not take it. */
export interface PassedOver {
  readonly nodeClaim: string;
  readonly node: string;
  readonly why: string;
}

/** What the disruption loop may start this run, and the candidates it had to pass over. */
export interface DisruptionDecision {
  readonly command?: DisruptionCommand;
  /** Candidates a method would have taken, and why it did not (a `DisruptionBlocked` Event each). */
  readonly passedOver: readonly PassedOver[];
  /**
   * Candidates consolidation may not take whatever their pods, and why (an `Unconsolidatable`
   * Event each, worded as Karpenter's emptiness.go and consolidation.go `ShouldDisrupt`).
   */
  readonly unconsolidatable: readonly PassedOver[];
  /**
   * Where single-node consolidation starts next run (single-node-walk.ts): a NodeClaim name to
   * mark, null to clear the mark (it went round every candidate), absent when it did not walk.
   */
  readonly resumeAt?: string | null;
}

/**
 * Whether consolidation (emptiness included) may take the candidate: its NodeClaim is
 * `Consolidatable` (consolidatable.ts; emptiness.go and consolidation.go `ShouldDisrupt`).
 */
export function isConsolidatable(c: Candidate): boolean {
  return c.claim.status.conditions?.some((k) => k.type === CONSOLIDATABLE && k.status === 'True') === true;
}

/**
 * The next command, trying the methods in Karpenter's order and stopping at the first that finds
 * one. Candidates already under a command are not taken again, their nodes take no pods in the
 * simulations and their pods are placed first, as Karpenter's `SimulateScheduling` does with the
 * pods of nodes marked for deletion (helpers.go), so commands run side by side. Emptiness (every
 * empty Consolidatable candidate, within budget, in one command), static drift (drifted nodes of
 * static NodePools, replaced from their template: static-drift.ts), drift (Drifted=True, the
 * longest drifted first: every empty one the budget allows in one command, deleted, else one
 * non-empty one, replaced), then consolidation for NodePools with WhenEmptyOrUnderutilized or
 * Balanced (a Balanced move must also score; balanced.ts): with the GlobalConsolidation gate,
 * podlift's global step first (global-consolidation.ts), and every move of the methods after it
 * scored at the NodePool's global k as well; multi-node (the most candidates, fewest
 * pods first, whose pods fit on the rest plus at most one cheaper node, searched only among as
 * many of each NodePool's candidates as its budget allows), then single-node (delete when its pods
 * fit elsewhere, else replace it with one cheaper node). With the PodDeletionCostManagement gate,
 * nodes a scale-down emptied are left to emptiness (deletion-cost.ts).
 */
export function decideDisruption(
  cluster: ClusterSnapshot,
  now: number,
  settings: DisruptionSettings = DEFAULT_CONSOLIDATION_SETTINGS,
): DisruptionDecision {
  const counts = poolDisruptionCounts(cluster);
  const snapshot = besideCommandsInFlight(cluster);
  const candidates = disruptionCandidates(snapshot).filter((c) => !underCommand(c.claim));
  const passedOver: PassedOver[] = [];
  const unconsolidatable: PassedOver[] = [];
  const pass = (c: Candidate, why: string) =>
    passedOver.push({ nodeClaim: c.claim.name, node: c.node.name, why });
  for (const c of candidates) {
    const why = unconsolidatableBecause(c);
    if (why) unconsolidatable.push({ nodeClaim: c.claim.name, node: c.node.name, why });
  }
  // With podlift's consolidation, a not-Ready candidate is charged to its budget once, not twice.
  const exempt = (c: Candidate) => settings.globalConsolidation === true && alreadyDisrupting(c, counts);
  const budget = (c: Candidate, reason: DisruptionReason) =>
    exempt(c) ? Number.POSITIVE_INFINITY : budgetFor(c, reason, counts, now);
  const withinBudget = (c: Candidate, reason: DisruptionReason) => {
    if (budget(c, reason) > 0) return true;
    pass(c, `the NodePool's disruption budget for ${reason} allows no more nodes now`);
    return false;
  };
  const command = (
    method: DisruptionCommand['method'],
    reason: DisruptionReason,
    chosen: readonly Candidate[],
    replace: boolean,
    savings: number,
    detail?: string,
    replacements = 1,
  ): DisruptionCommand => ({
    id: `${method}-${chosen[0].claim.name}-${now}`,
    method,
    reason,
    decidedAt: new Date(now).toISOString(),
    candidates: chosen.map((c) => c.claim.name),
    replace,
    ...(replacements > 1 ? { replacements } : {}),
    savings,
    ...(detail ? { detail } : {}),
  });

  // Every candidate of the list whose NodePool's budget for `reason` still has room, in order,
  // each counted against its NodePool's budget; the rest passed over.
  const togetherWithinBudget = (
    list: readonly Candidate[],
    reason: DisruptionReason,
    blockOf = (c: Candidate) => c.blocked,
  ) => {
    const chosen: Candidate[] = [];
    for (const c of list) {
      const blocked = blockOf(c);
      if (blocked) pass(c, blocked);
      else if (budget(c, reason) > chosen.filter((e) => e.pool.name === c.pool.name && !exempt(e)).length)
        chosen.push(c);
      else pass(c, `the NodePool's disruption budget for ${reason} allows no more nodes now`);
    }
    return chosen;
  };

  const decided = (
    decision: DisruptionCommand | undefined,
    resumeAt?: string | null,
  ): DisruptionDecision => ({
    ...(decision ? { command: decision } : {}),
    passedOver,
    unconsolidatable,
    ...(resumeAt !== undefined ? { resumeAt } : {}),
  });

  const chosenEmpty = togetherWithinBudget(
    candidates.filter((c) => c.pods.length === 0 && isConsolidatable(c)),
    'Empty',
  );
  if (chosenEmpty.length > 0) {
    const savings = chosenEmpty.reduce((sum, c) => sum + c.price, 0);
    return decided(command('emptiness', 'Empty', chosenEmpty, false, savings));
  }

  // Static drift before drift (controller.go's method order): drifted nodes of static NodePools
  // are replaced from their NodePool's template (static-drift.ts). Drift takes the others.
  const drifted = driftOrder(candidates);
  const staticDrift = staticDriftChoice(
    drifted.filter((c) => isStaticNodePool(c.pool)),
    snapshot,
    budget,
  );
  for (const p of staticDrift.passedOver) pass(p.candidate, p.why);
  if (staticDrift.chosen.length > 0) {
    const chosen = staticDrift.chosen;
    return decided(command('drift', 'Drifted', chosen, true, 0, driftDetail(chosen)));
  }
  // Drift takes the candidates whose Drifted condition is oldest first, the empty ones before the
  // rest (kubernetes-sigs/karpenter pkg/controllers/disruption/drift.go `ComputeCommands`, empty
  // first since #2423). There each command has one candidate and the controller requeues at once
  // with its queue still running the last, so every empty one the Drifted budget allows goes
  // within seconds; podlift decides one command per run (a minute apart), so they go together in
  // one command, deleted without replacement (as Karpenter's drift did until #2180 in May 2025).
  // Drift is eventual: its candidates are blocked by `eventualBlocked` (candidates.ts).
  const dynamic = drifted.filter((c) => !isStaticNodePool(c.pool));
  const chosenDrifted = togetherWithinBudget(
    dynamic.filter((c) => c.pods.length === 0),
    'Drifted',
    (c) => c.eventualBlocked,
  );
  if (chosenDrifted.length > 0) {
    const savings = chosenDrifted.reduce((sum, c) => sum + c.price, 0);
    return decided(command('drift', 'Drifted', chosenDrifted, false, savings, driftDetail(chosenDrifted)));
  }
  // A busy one is taken only when its pods would all schedule, on the capacity that stays or on
  // replacements; otherwise the next is tried (drift.go: `SimulateScheduling`, a Blocked event
  // and `continue` when not `AllNonPendingPodsScheduled`), so one that cannot move holds up none.
  for (const c of dynamic.filter((c) => c.pods.length > 0)) {
    if (c.eventualBlocked) pass(c, c.eventualBlocked);
    else if (withinBudget(c, 'Drifted')) {
      const moving = withReschedulablePods(c, snapshot.podDisruptionBudgets, now);
      const { unschedulable } = replacementPlans([moving], snapshot);
      if (unschedulable === 0) return decided(command('drift', 'Drifted', [c], true, 0, driftDetail([c])));
      pass(c, `drifted, but ${unschedulable} of its pods would not schedule elsewhere or on a replacement`);
    }
  }

  const underutilized: Candidate[] = [];
  for (const c of candidates
    .filter(
      (c) =>
        c.pool.disruption.consolidationPolicy !== 'WhenEmpty' && c.pods.length > 0 && isConsolidatable(c),
    )
    .sort(byConsolidationOrder)) {
    if (c.blocked) pass(c, c.blocked);
    else if (withinBudget(c, 'Underutilized')) underutilized.push(c);
  }
  // Balanced NodePools score each move against their totals; a candidate even whose deletion
  // would not pass is not simulated (balanced.go CanPassThreshold). With podlift's
  // GlobalConsolidation gate every NodePool scores every move, at its global k.
  const global = settings.globalConsolidation === true;
  const totals = nodePoolTotals(snapshot);
  const approves = (chosen: readonly Candidate[], consolidation: Consolidation) =>
    balancedApproves(chosen, consolidation.savings, totals) &&
    (!global || clearsGlobalThreshold(chosen, consolidation.savings, totals));
  const passable = underutilized.filter((c) => canPassBalanced(c, totals));
  const room = consolidationRoom(snapshot, settings);
  const waits = (chosen: readonly Candidate[], c: Consolidation) =>
    waitsForEmptiness(chosen, c, snapshot, settings);
  // With podlift's GlobalConsolidation gate, one step toward the cheapest plan of each NodePool's
  // candidates comes first, scored as Balanced scores whatever the policy: one step onto a set's
  // cheapest fleet in place of several greedy ones, each of which may move the same pods again.
  // Failing that, a step the budgets cut short in two phases, the first within them
  // (global-consolidation.ts `phasedStep`).
  const step = global
    ? globalConsolidation(
        withinBudgetInOrder(underutilized, counts, now, exempt),
        room,
        totals,
        settings,
        underutilized,
      )
    : undefined;
  if (step && !waits(step.candidates, step.consolidation)) {
    const { consolidation } = step;
    const replacements = consolidation.action === 'replace' ? consolidation.plans.length : 0;
    const recorded = command(
      'consolidation',
      'Underutilized',
      step.candidates,
      replacements > 0,
      consolidation.savings,
      step.detail,
      replacements,
    );
    const later = step.makesRoomFor?.map((c) => c.claim.name) ?? [];
    return decided(later.length > 0 ? { ...recorded, makesRoomFor: later } : recorded);
  }
  // Multi-node searches only what the budgets allow together; single-node takes one node at a
  // time, so any candidate whose NodePool allows one more may be it (singlenodeconsolidation.go).
  const multi = multiNodeConsolidation(
    withinBudgetInOrder(passable, counts, now, exempt).slice(0, MAX_CONSOLIDATION_SIMULATIONS),
    room,
    approves,
    settings,
  );
  if (multi && !waits(multi.candidates, multi.consolidation)) {
    const { consolidation } = multi;
    return decided(
      command(
        'consolidation',
        'Underutilized',
        multi.candidates,
        consolidation.action === 'replace',
        consolidation.savings,
      ),
    );
  }
  // Every candidate, NodePools interleaved, from where the last run stopped, until the budget is
  // spent (singlenodeconsolidation.go `ComputeCommands`); why a replacement is not possible is
  // an Unconsolidatable Event, as `computeConsolidation` publishes for a single candidate.
  const walked = walkCandidates(
    resumeOrder(interleaveByNodePool(passable)),
    (c) => {
      const consolidation = computeConsolidation([c], room, settings);
      if (consolidation.action === 'none') {
        if (consolidation.why)
          unconsolidatable.push({ nodeClaim: c.claim.name, node: c.node.name, why: consolidation.why });
        return undefined;
      }
      return approves([c], consolidation) && !waits([c], consolidation) ? consolidation : undefined;
    },
    settings.outOfTime ?? (() => false),
  );
  const resumeAt = walked.resumeAt ?? null;
  if (!walked.found) return decided(undefined, resumeAt);
  const { candidate, result } = walked.found;
  return decided(
    command('consolidation', 'Underutilized', [candidate], result.action === 'replace', result.savings),
    resumeAt,
  );
}

/**
 * Why consolidation may never take the candidate as it is, in Karpenter's words
 * (emptiness.go and consolidation.go `ShouldDisrupt`, `disruptionevents.Unconsolidatable`):
 * its price is unknown (candidates.ts `candidatePrice`), its NodePool disables consolidation, or
 * allows only empty nodes and it is not empty.
 */
export function unconsolidatableBecause(c: Candidate): string | undefined {
  const { consolidateAfter, consolidationPolicy } = c.pool.disruption;
  if (c.unpriced) return c.unpriced;
  if (consolidateAfter === 'Never') return `NodePool "${c.pool.name}" has consolidation disabled`;
  if (consolidationPolicy === 'WhenEmpty' && c.pods.length > 0)
    return `NodePool "${c.pool.name}" has consolidation policy WhenEmpty, but node is not empty`;
  return undefined;
}

/**
 * Whether `command` still holds at least {@link VALIDATION_DELAY_MS} after it was decided
 * (validation.go): every candidate is still a candidate, not blocked, and its method still
 * chooses it — empty and Consolidatable still, drifted still drifted, a consolidation still
 * Consolidatable, possible and saving money — judged beside the other commands in flight. A
 * phased global step (`makesRoomFor`) is held to the whole step: the candidates it makes room for
 * still candidates of no other command, the whole step still possible with new nodes.
 */
export function commandStillValid(
  command: DisruptionCommand,
  cluster: ClusterSnapshot,
  settings: ConsolidationSettings = DEFAULT_CONSOLIDATION_SETTINGS,
): boolean {
  const snapshot = besideCommandsInFlight(cluster, command.id);
  const byName = new Map(disruptionCandidates(snapshot).map((c) => [c.claim.name, c]));
  const roomFor = command.makesRoomFor ?? [];
  const planned = [...command.candidates, ...roomFor];
  return (
    planned.every((name) => {
      const c = byName.get(name);
      if (!c || blockedFor(c, command.method)) return false;
      // A phased step's candidates past the budget stay unmarked, so another command may take
      // them; then the step is no longer whole.
      if (roomFor.includes(name) && underCommand(c.claim)) return false;
      // Emptiness and consolidation take Consolidatable candidates only; a pod event since the
      // decision took the condition away (validation.go re-runs `ShouldDisrupt`).
      if (command.method === 'emptiness') return c.pods.length === 0 && isConsolidatable(c);
      if (command.method === 'consolidation') return isConsolidatable(c);
      // Drifted still; and a drift command that deletes without replacement, still empty.
      return driftedCondition(c.claim) !== undefined && (command.replace || c.pods.length === 0);
    }) &&
    consolidationHolds(
      command,
      planned.flatMap((name) => byName.get(name) ?? []),
      snapshot,
      settings,
    )
  );
}

/** Whether the consolidation still holds for `chosen`: its candidates and those it makes room for. */
function consolidationHolds(
  command: DisruptionCommand,
  chosen: readonly Candidate[],
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings,
): boolean {
  if (command.method !== 'consolidation') return true;
  const room = consolidationRoom(snapshot, settings);
  const consolidation = simulateRemoval(
    chosen,
    room,
    settings,
    command.replacements,
    countedUntilMoved(command, chosen),
  );
  return consolidation !== undefined && (consolidation.action === 'replace') === command.replace;
}

/** What drifted on the chosen candidates, each different message once. */
function driftDetail(chosen: readonly Candidate[]): string {
  return [...new Set(chosen.map((c) => driftedCondition(c.claim)?.message || 'drifted'))].join('; ');
}
