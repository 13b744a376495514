import { disruptionCandidates } from '../../shared/core/disruption/candidates';
import { commandStillValid, decideDisruption } from '../../shared/core/disruption/decide';
import { disruptionTerminating } from '../../shared/core/disruption/events';
import {
  type DisruptionCommand,
  expiredClaims,
  replacementPlans,
  VALIDATION_DELAY_MS,
} from '../../shared/core/disruption/methods';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import { conditionIsTrue, type NodeClaim } from '../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { loadClusterSnapshot } from '../cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint, withClusterLease } from '../lease';
import { METRICS } from '../observability';
import { provisionerCapacity } from '../provisioner/capacity';
import type { LoopRuntime } from '../runtime';
import { type RecordedCommand, recordedCommands } from './commands';
import { recordDriftConditions } from './drift-conditions';

/** What one disruption run did. */
export interface DisruptionSummary {
  readonly ran: boolean;
  readonly expired: number;
  /** What happened to commands: recorded, waiting, cancelled, replacing, executed. */
  readonly steps: readonly string[];
}

/**
 * One disruption run, holding the cluster Lease. NodeClaims' Drifted conditions are brought up
 * to date first, so drift and its validation go by them. Expired NodeClaims are deleted
 * (forceful, not budgeted). A command already recorded advances one step: at least 15 s after it was decided it
 * is validated again (cancelled if it no longer holds), its replacements are launched, and once
 * they are all Initialized its candidates are deleted, which hands them to termination's drain.
 * With no command in flight the methods decide the next one, which is only recorded on its
 * NodeClaims this run. Karpenter runs one command at a time too.
 */
export async function runDisruption(
  runtime: LoopRuntime,
  invocation: Invocation,
): Promise<DisruptionSummary> {
  const run = await withClusterLease(runtime.ports.lease, invocation, async (held) => {
    const loaded = await loadClusterSnapshot(runtime.ports, held, runtime.unavailable, {
      resolveNodeClasses: true,
      pendingPods: false,
      instances: true,
    });
    const now = held.time.now();
    const snapshot = await recordDriftConditions(runtime, held, loaded.snapshot);
    const expired = expiredClaims(snapshot.nodeClaims, now);
    for (const claim of expired) {
      checkpoint(held);
      await runtime.ports.cluster.deleteNodeClaim(claim.name);
      held.metrics.add(METRICS.disruptionCommands, 'Count', 1, { method: 'expiration' });
      held.log.info('NodeClaim expired; deleting it', {
        nodeClaim: claim.name,
        expireAfter: claim.spec.expireAfter,
      });
    }
    const { commands, unreadable } = recordedCommands(snapshot.nodeClaims);
    for (const name of unreadable) await clearCommand(runtime, name);
    const steps: string[] = [];
    for (const recorded of commands) steps.push(await advance(runtime, held, snapshot, recorded, now));
    if (commands.length === 0) steps.push(await decideNext(runtime, held, snapshot, now));
    return { expired: expired.length, steps };
  });
  return run.ran ? { ran: true, ...run.result } : { ran: false, expired: 0, steps: [] };
}

async function decideNext(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  now: number,
) {
  const started = performance.now();
  const { command, passedOver } = decideDisruption(snapshot, now);
  invocation.metrics.add(METRICS.decisionTime, 'Milliseconds', performance.now() - started);
  for (const p of passedOver) {
    await runtime.ports.events
      .record({
        object: { apiVersion: 'v1', kind: 'Node', name: p.node },
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message: p.why,
      })
      .catch((error: unknown) =>
        invocation.log.warn('recording an Event failed', { node: p.node, error: String(error) }),
      );
  }
  if (!command) return 'none';
  const text = JSON.stringify(command);
  // One checkpoint per command, not per candidate: a command recorded on (or deleting) only some
  // of its candidates would be carried out on those alone by the next run.
  checkpoint(invocation);
  for (const name of command.candidates) {
    await runtime.ports.cluster.patchNodeClaimMetadata(name, {
      annotations: { [ANNOTATIONS.disruptionCommand]: text },
    });
  }
  invocation.log.info('disruption command recorded; it runs after validation', { ...command });
  return `recorded ${command.method}`;
}

async function advance(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  { command, candidates, replacements }: RecordedCommand,
  now: number,
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
  if (now - Date.parse(command.decidedAt) < VALIDATION_DELAY_MS) return `waiting ${command.id}`;
  if (replacements.length === 0) {
    if (!commandStillValid(command, snapshot, now)) {
      checkpoint(invocation);
      for (const c of candidates) await clearCommand(runtime, c.name);
      invocation.log.info('disruption command no longer holds; cancelled', {
        id: command.id,
        method: command.method,
      });
      return `cancelled ${command.id}`;
    }
    if (command.replace) {
      const replacing = await replace(runtime, invocation, snapshot, command);
      if (replacing !== undefined) return replacing;
    }
  } else if (!replacements.every((c) => conditionIsTrue(c, 'Initialized'))) {
    return `replacing ${command.id}`;
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

/** Launches the command's replacements; undefined when none are needed any more. */
async function replace(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  command: RecordedCommand['command'],
): Promise<string | undefined> {
  const chosen = disruptionCandidates(snapshot).filter((c) => command.candidates.includes(c.claim.name));
  const { plans, unschedulable } = replacementPlans(chosen, snapshot);
  // The candidates' pods left since the command was decided: nothing needs new capacity, so the
  // command runs as a plain deletion (otherwise it would wait for replacements never launched).
  if (plans.length === 0 && unschedulable === 0) return undefined;
  if (unschedulable > 0) {
    checkpoint(invocation);
    for (const name of command.candidates) await clearCommand(runtime, name);
    return `cancelled ${command.id}`;
  }
  const outcomes = await provisionerCapacity(runtime).provision(plans, snapshot, invocation, {
    annotations: { [ANNOTATIONS.replaces]: command.id },
    reason: `disruption ${command.method}`,
  });
  const failed = outcomes.filter((o) => 'failed' in o);
  if (failed.length > 0)
    invocation.log.warn('replacement launch failed; trying again next run', { id: command.id });
  return `replacing ${command.id}`;
}

async function clearCommand(runtime: LoopRuntime, nodeClaim: string): Promise<void> {
  await runtime.ports.cluster.patchNodeClaimMetadata(nodeClaim, {
    annotations: { [ANNOTATIONS.disruptionCommand]: null },
  });
}
