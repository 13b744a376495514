import { disruptionCandidates, withReschedulablePods } from '../../shared/core/disruption/candidates';
import {
  besideCommandsInFlight,
  commandStartedAt,
  commandTimeoutMs,
  DISRUPTION_REASON,
  whyNotDeleteNow,
} from '../../shared/core/disruption/commands-in-flight';
import { commandStillValid } from '../../shared/core/disruption/decide';
import { disruptionTerminating } from '../../shared/core/disruption/events';
import {
  countedUntilMoved,
  type DisruptionCommand,
  plannedCandidates,
  replacementPlans,
  VALIDATION_DELAY_MS,
} from '../../shared/core/disruption/methods';
import { replacementsOptions } from '../../shared/core/disruption/replacement-options';
import { staticReplacementPlans } from '../../shared/core/disruption/static-drift';
import { ANNOTATIONS, DISRUPTED_TAINT } from '../../shared/core/model/labels';
import { conditionIsTrue, type NodeClaim } from '../../shared/core/model/nodeclaim';
import { isStaticNodePool } from '../../shared/core/model/nodepool';
import { podKey } from '../../shared/core/model/pod';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { joinNodesAndClaims } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import { METRICS } from '../observability';
import { provisionerCapacity } from '../provisioner/capacity';
import type { LoopRuntime } from '../runtime';
import type { RecordedCommand } from './commands';
import { explain, nodeClaimObject, nodeObject } from './events';

/**
 * One step of a recorded command, as Karpenter's orchestration queue runs one
 * (kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go). At least 15 s after it was
 * decided it is validated again (validation.go) and cancelled if it no longer holds; then it
 * starts (`StartCommand`): its candidates are tainted `karpenter.sh/disrupted:NoSchedule` and
 * marked `DisruptionReason` (`markDisrupted`) before any replacement launches, so no new pod lands
 * on them. Started, it waits for its replacements to initialize (`waitOrTerminate`, with
 * `DisruptionLaunching` and `DisruptionWaitingReadiness` Events on them), gives up once it has
 * waited {@link commandTimeoutMs} (uninitialized replacements deleted, candidates unmarked), and
 * checks once more before it deletes its candidates, which hands them to termination's drain.
 * `inFlight` is the number of candidates of every command in flight (the timeout scales by it).
 */
export async function advanceCommand(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  { command, candidates, replacements }: RecordedCommand,
  now: number,
  inFlight: number,
): Promise<string> {
  if (candidates.some((c) => c.deletionTimestamp)) {
    // Deletion starts only once the command was validated and its replacements initialized, so a
    // run that stopped part-way through it (a crash, a lost Lease) is finished here rather than
    // left until the deleted candidates are gone and the command is judged again.
    const left = candidates.filter((c) => !c.deletionTimestamp);
    if (left.length > 0) {
      checkpoint(invocation);
      await deleteCandidates(runtime, invocation, snapshot, command, left);
      invocation.log.info('finishing a disruption command an earlier run left part-done', {
        id: command.id,
        nodeClaims: left.map((c) => c.name),
      });
    }
    return `executed ${command.id}`;
  }
  const startedAt = commandStartedAt(candidates);
  if (startedAt === undefined) {
    if (now - Date.parse(command.decidedAt) < VALIDATION_DELAY_MS) return `waiting ${command.id}`;
    if (!commandStillValid(command, snapshot, runtime.ports.config.featureGates)) {
      await cancelCommand(runtime, invocation, snapshot, candidates, false);
      invocation.log.info('disruption command no longer holds; cancelled', {
        id: command.id,
        method: command.method,
      });
      return `cancelled ${command.id}`;
    }
  } else if (now - startedAt > commandTimeoutMs(inFlight)) {
    return timeOut(runtime, invocation, snapshot, { command, candidates, replacements }, now - startedAt);
  }
  // Marked before anything launches; a run that stopped half-way marks the rest.
  await markDisrupted(runtime, invocation, snapshot, command.reason, candidates);
  if (command.replace) {
    if (replacements.some((r) => r.deletionTimestamp)) {
      // queue.go: a replacement deleted before it initialized fails the command for good; so does
      // one deleted while the command waited for a PodDisruptionBudget (disruption itself leaves
      // it alone then, candidates.ts, but a person may not).
      await cancelCommand(runtime, invocation, snapshot, candidates, true);
      invocation.log.warn('a replacement was deleted before the command finished; command cancelled', {
        id: command.id,
        replacements: replacements
          .filter((r) => r.deletionTimestamp)
          .map((r) => ({ nodeClaim: r.name, initialized: conditionIsTrue(r, 'Initialized') })),
      });
      return `cancelled ${command.id}`;
    }
    if (replacements.length === 0) {
      const replacing = await replace(runtime, invocation, snapshot, { command, candidates, replacements });
      if (replacing !== undefined) return replacing;
    } else {
      const waiting = replacements.filter((r) => !conditionIsTrue(r, 'Initialized'));
      for (const r of waiting) {
        await explain(runtime, invocation, [nodeClaimObject(r.name)], {
          type: 'Normal',
          reason: 'DisruptionLaunching',
          message: `Launching NodeClaim: ${command.reason}`,
        });
        await explain(runtime, invocation, [nodeClaimObject(r.name)], {
          type: 'Normal',
          reason: 'DisruptionWaitingReadiness',
          message: 'Waiting on readiness to continue disruption',
        });
      }
      if (waiting.length > 0) return `replacing ${command.id}`;
    }
  }
  const hold = whyNotDeleteNow(command, snapshot);
  if (hold?.wait === true) {
    // A budget at 0 is waited for with the replacements kept (until the timeout above), rather
    // than cancelled with them left empty.
    invocation.log.info('disruption command waits for a PodDisruptionBudget before deletion', {
      id: command.id,
      why: hold.why,
    });
    return `waiting ${command.id}`;
  }
  if (hold !== undefined) {
    await cancelCommand(runtime, invocation, snapshot, candidates, true);
    invocation.log.info('disruption command no longer holds before deletion; cancelled', {
      id: command.id,
      why: hold.why,
    });
    return `cancelled ${command.id}`;
  }
  checkpoint(invocation);
  await deleteCandidates(runtime, invocation, snapshot, command, candidates);
  invocation.metrics.add(METRICS.disruptionCommands, 'Count', 1, { method: command.method });
  invocation.metrics.add(METRICS.savingsPerHour, 'None', command.savings);
  invocation.log.info('disrupting', { ...command });
  return `executed ${command.id}`;
}

/**
 * Deletes a command's candidates, handing them to termination's drain, each with Karpenter's
 * `DisruptionTerminating` Events on its Node and NodeClaim (core/disruption/events.ts).
 */
async function deleteCandidates(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  command: DisruptionCommand,
  candidates: readonly NodeClaim[],
): Promise<void> {
  for (const claim of candidates) {
    await runtime.ports.cluster.deleteNodeClaim(claim.name);
    const node = snapshot.nodes.find(
      (n) => n.providerID !== undefined && n.providerID === claim.status.providerID,
    )?.name;
    for (const event of disruptionTerminating(claim, node, command.reason)) {
      await runtime.ports.events
        .record(event)
        .catch((error: unknown) =>
          invocation.log.warn('recording an Event failed', { nodeClaim: claim.name, error: String(error) }),
        );
    }
  }
}

/**
 * Taints the candidates' Nodes and sets `DisruptionReason` on their NodeClaims, in that order, so
 * a NodeClaim that carries the condition is known to be tainted (queue.go `markDisrupted`).
 */
async function markDisrupted(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  reason: string,
  candidates: readonly NodeClaim[],
): Promise<void> {
  const nodes = nodeNames(snapshot);
  for (const c of candidates.filter((c) => !conditionIsTrue(c, DISRUPTION_REASON))) {
    checkpoint(invocation);
    const node = nodes.get(c.name);
    if (node) await runtime.ports.cluster.taintNode(node, { add: [DISRUPTED_TAINT] });
    await runtime.ports.cluster.updateNodeClaimStatus(c.name, {
      conditions: [{ type: DISRUPTION_REASON, status: 'True', reason, message: reason }],
    });
  }
}

/**
 * Gives a command up: its record is cleared first (a run that stops after it leaves marks that
 * the loop's stale-mark sweep removes), then, when it had started, the taint comes off its
 * candidates and `DisruptionReason` is removed (queue.go `Reconcile`: `RequireNoScheduleTaint`
 * false, `ClearNodeClaimsCondition`), so their pods stay and the provisioner stops finding them a
 * new home (it treats pods of tainted nodes as needing one, pods-to-provision.ts).
 */
export async function cancelCommand(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  candidates: readonly NodeClaim[],
  started: boolean,
): Promise<void> {
  checkpoint(invocation);
  for (const c of candidates) {
    await runtime.ports.cluster.patchNodeClaimMetadata(c.name, {
      annotations: { [ANNOTATIONS.disruptionCommand]: null },
    });
  }
  if (started) await unmark(runtime, snapshot, candidates);
}

/** Takes the disrupted taint off the NodeClaims' Nodes and removes `DisruptionReason`. */
export async function unmark(
  runtime: LoopRuntime,
  snapshot: ClusterSnapshot,
  claims: readonly NodeClaim[],
): Promise<void> {
  const nodes = nodeNames(snapshot);
  for (const c of claims) {
    const node = nodes.get(c.name);
    if (node) await runtime.ports.cluster.taintNode(node, { remove: [DISRUPTED_TAINT] });
    await runtime.ports.cluster.updateNodeClaimStatus(c.name, { removeConditions: [DISRUPTION_REASON] });
  }
}

/**
 * A started command waited too long for its replacements (queue.go `waitOrTerminate`: "command
 * reached timeout"): the replacements that never initialized are deleted — a startup taint nobody
 * removes would otherwise keep them, and the command, for ever (Karpenter leaves them to its
 * registration and initialization TTLs) — the candidates unmarked, and a Warning Event on each
 * candidate says why.
 */
async function timeOut(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  { command, candidates, replacements }: RecordedCommand,
  waited: number,
): Promise<string> {
  const stuck = replacements.filter((r) => !conditionIsTrue(r, 'Initialized') && !r.deletionTimestamp);
  checkpoint(invocation);
  for (const r of stuck) await runtime.ports.cluster.deleteNodeClaim(r.name);
  await cancelCommand(runtime, invocation, snapshot, candidates, true);
  const minutes = Math.round(waited / 60_000);
  const initialized = replacements.every((r) => conditionIsTrue(r, 'Initialized'));
  const hold = initialized ? whyNotDeleteNow(command, snapshot) : undefined;
  const message =
    `disruption command reached timeout after ${minutes}m ` +
    (hold ? `waiting to delete its candidates: ${hold.why}` : 'waiting for replacements to initialize') +
    (stuck.length > 0 ? `; deleted ${stuck.map((r) => r.name).join(', ')}, which never initialized` : '');
  const nodes = nodeNames(snapshot);
  for (const c of candidates) {
    const node = nodes.get(c.name);
    await explain(runtime, invocation, [nodeClaimObject(c.name), ...(node ? [nodeObject(node)] : [])], {
      type: 'Warning',
      reason: 'DisruptionFailed',
      message,
    });
  }
  invocation.metrics.add(METRICS.disruptionCommands, 'Count', 1, {
    method: command.method,
    outcome: 'timeout',
  });
  invocation.log.warn('disruption command timed out; cancelled', {
    id: command.id,
    deleted: stuck.map((r) => r.name),
  });
  return `timed out ${command.id}`;
}

/** Launches the command's replacements; undefined when none are needed any more. */
async function replace(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  { command, candidates }: RecordedCommand,
): Promise<string | undefined> {
  // A phased global step's replacements are sized for the pods of the candidates it makes room for too.
  const chosen = plannedCandidates(command, disruptionCandidates(snapshot));
  const beside = besideCommandsInFlight(snapshot, command.id);
  // A static NodePool's node is replaced from its template whatever its pods (static-drift.ts).
  const fixed = staticReplacementPlans(chosen, snapshot);
  const moving = chosen
    .filter((c) => !isStaticNodePool(c.pool))
    .map((c) => withReschedulablePods(c, snapshot.podDisruptionBudgets, snapshot.now));
  const planned = replacementPlans(moving, beside, countedUntilMoved(command, moving));
  const unschedulable = planned.unschedulable + fixed.missing;
  // The candidates' pods left since the command was decided: nothing needs new capacity, so the
  // command runs as a plain deletion (otherwise it would wait for replacements never launched).
  if (planned.plans.length === 0 && fixed.plans.length === 0 && unschedulable === 0) return undefined;
  // A consolidation launches its one replacement (global consolidation's several, as many as it
  // was decided with at most) with only the options it was decided with (cheaper than the
  // candidates: replacement-options.ts), never a dearer type EC2 might pick.
  const options =
    command.method === 'consolidation' && planned.plans.length <= (command.replacements ?? 1)
      ? replacementsOptions(chosen, planned.plans, beside, runtime.ports.config.featureGates)
      : undefined;
  if (unschedulable > 0 || (command.method === 'consolidation' && !(options && 'plans' in options))) {
    await cancelCommand(runtime, invocation, snapshot, candidates, true);
    invocation.log.info('disruption command no longer finds its replacement; cancelled', {
      id: command.id,
      ...(options && 'why' in options ? { why: options.why } : { unschedulable }),
    });
    return `cancelled ${command.id}`;
  }
  const plans = [...fixed.plans, ...(options && 'plans' in options ? options.plans : planned.plans)];
  const outcomes = await provisionerCapacity(runtime).provision(plans, snapshot, invocation, {
    annotations: {
      [ANNOTATIONS.replaces]: command.id,
      // A phased step's room, kept from consolidation until the rest has moved (candidates.ts).
      ...(command.makesRoomFor?.length ? { [ANNOTATIONS.makesRoomFor]: command.makesRoomFor.join(',') } : {}),
    },
    reason: `disruption ${command.method}`,
    // Planned again without a refused offering, the pods could get a dearer type than decided;
    // the next run plans and narrows again instead.
    ...(options ? { replan: false } : {}),
  });
  // queue.go `waitOrTerminate`: a replacement deleted before it initialized ("replacement was
  // deleted", after an ICE) fails the command for good; the replacements that did launch stay as
  // ordinary capacity, as in Karpenter. A pod whose new home launched, on a second try within this
  // run too (drift plans again), or stays to be launched by the next run (throttled), is provided
  // for; one left without any fails the command, which untaints its candidates at once, before
  // the provisioner takes their tainted nodes' pods for pods in need of a home.
  const provided = new Set(
    outcomes.flatMap((o) => ('launched' in o || o.retrying ? o.plan.pods.map(podKey) : [])),
  );
  const homeless = plans.flatMap((p) => p.pods.map(podKey)).filter((pod) => !provided.has(pod));
  if (homeless.length > 0) {
    await cancelCommand(runtime, invocation, snapshot, candidates, true);
    invocation.log.warn('a replacement could not launch; command cancelled', {
      id: command.id,
      pods: homeless.length,
      why: outcomes.flatMap((o) => ('failed' in o ? [o.failed] : [])),
    });
    return `cancelled ${command.id}`;
  }
  return `replacing ${command.id}`;
}

/** NodeClaim name → its Node's name. */
function nodeNames(snapshot: ClusterSnapshot): Map<string, string> {
  return new Map(
    joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims).flatMap(({ node, nodeClaim }) =>
      node && nodeClaim ? [[nodeClaim.name, node.name] as const] : [],
    ),
  );
}
