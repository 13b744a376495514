import { staleDisruptionMarks } from '../../shared/core/disruption/commands-in-flight';
import { decideDisruption } from '../../shared/core/disruption/decide';
import { expiredClaims } from '../../shared/core/disruption/methods';
import { resumeMarkChanges } from '../../shared/core/disruption/single-node-walk';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { loadClusterSnapshot } from '../cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint, withClusterLease } from '../lease';
import { METRICS, timeDecision } from '../observability';
import type { LoopRuntime } from '../runtime';
import { recordedCommands } from './commands';
import { recordConsolidatable } from './consolidatable-conditions';
import { recordDriftConditions } from './drift-conditions';
import { explainAll, nodeClaimObject, nodeObject } from './events';
import { restampHashVersions } from './hash-versions';
import { advanceCommand, unmark } from './orchestration';
import { steerScaleDowns, steerScaleUps } from './steering';

/** What one disruption run did. */
export interface DisruptionSummary {
  readonly ran: boolean;
  readonly expired: number;
  /** What happened to commands: recorded, waiting, cancelled, replacing, timed out, executed. */
  readonly steps: readonly string[];
}

/**
 * One disruption run, holding the cluster Lease. NodeClaims' drift hashes of another hash version
 * are re-stamped (hash-versions.ts), then their Drifted conditions, their
 * lastPodEventTime and Consolidatable conditions are brought up to date first, so the methods and
 * their validation go by them. Expired NodeClaims are deleted (forceful, not budgeted). Marks
 * left by a command that is no more are removed (controller.go `Reconcile`). Every command
 * recorded advances one step (orchestration.ts), side by side as in Karpenter's queue, and the
 * methods decide the next one among the candidates no command holds, which is only recorded on
 * its NodeClaims this run.
 */
export async function runDisruption(
  runtime: LoopRuntime,
  invocation: Invocation,
): Promise<DisruptionSummary> {
  const run = await withClusterLease(runtime.ports.lease, invocation, async (held) => {
    const loaded = await loadClusterSnapshot(runtime.ports, held, runtime.unavailable, {
      resolveNodeClasses: true,
      // Consolidation schedules the pending pods with the candidates' (helpers.go SimulateScheduling).
      instances: true,
    });
    const now = held.time.now();
    const restamped = await restampHashVersions(runtime, held, loaded.snapshot);
    const drifted = await recordDriftConditions(runtime, held, restamped);
    const snapshot = await recordConsolidatable(runtime, held, drifted, now);
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
    for (const name of unreadable) {
      await runtime.ports.cluster.patchNodeClaimMetadata(name, {
        annotations: { [ANNOTATIONS.disruptionCommand]: null },
      });
    }
    const stale = staleDisruptionMarks(snapshot);
    if (stale.length > 0) {
      checkpoint(held);
      await unmark(runtime, snapshot, stale);
      held.log.info('removed the disrupted taint of a command that is no more', {
        nodeClaims: stale.map((c) => c.name),
      });
    }
    const inFlight = commands.reduce((n, c) => n + c.candidates.length, 0);
    const steps: string[] = [];
    for (const recorded of commands)
      steps.push(await advanceCommand(runtime, held, snapshot, recorded, now, inFlight));
    const next = await decideNext(runtime, held, snapshot, now);
    if (next !== 'none' || commands.length === 0) steps.push(next);
    await steerScaleDowns(runtime, held, snapshot);
    await steerScaleUps(runtime, held, snapshot);
    return { expired: expired.length, steps };
  });
  return run.ran ? { ran: true, ...run.result } : { ran: false, expired: 0, steps: [] };
}

/** Time kept back from the deadline after a decision, to record its command and Events. */
const RECORD_RESERVE_MS = 10_000;

/**
 * How long single-node consolidation walks in one run. Karpenter's walk goes on for up to 3
 * minutes (singlenodeconsolidation.go `SingleNodeConsolidationTimeoutDuration`) in a controller
 * of its own; a podlift run holds the cluster Lease the provisioner needs, so it walks 10 s and the
 * next run, a minute later, resumes where it stopped (`podlift.dev/consolidation-resume`).
 */
export const WALK_PER_RUN_MS = 10_000;

/**
 * Moves the single-node walk's mark to `resumeAt` (null: removes it), touching only the
 * NodeClaims that change; a mark lost with a crash makes the next walk start at the top.
 */
async function markResume(runtime: LoopRuntime, snapshot: ClusterSnapshot, resumeAt: string | null) {
  for (const { nodeClaim, mark } of resumeMarkChanges(snapshot.nodeClaims, resumeAt))
    await runtime.ports.cluster.patchNodeClaimMetadata(nodeClaim, {
      annotations: { [ANNOTATIONS.consolidationResume]: mark ? 'true' : null },
    });
}

async function decideNext(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  now: number,
) {
  // Single-node consolidation walks until its budget is spent, or less when the invocation has
  // less left (time to record what was decided kept back).
  const walkEnds = Math.min(invocation.time.now() + WALK_PER_RUN_MS, invocation.deadline - RECORD_RESERVE_MS);
  const { command, passedOver, unconsolidatable, resumeAt } = timeDecision(invocation.metrics, () =>
    decideDisruption(snapshot, now, {
      ...runtime.ports.config.featureGates,
      outOfTime: () => invocation.time.now() >= walkEnds,
    }),
  );
  if (resumeAt !== undefined) await markResume(runtime, snapshot, resumeAt);
  // On the Node and its NodeClaim, as Karpenter's disruptionevents.Blocked and Unconsolidatable.
  await explainAll(
    runtime,
    invocation,
    (
      [
        ['DisruptionBlocked', passedOver],
        ['Unconsolidatable', unconsolidatable],
      ] as const
    ).flatMap(([reason, list]) =>
      list.flatMap((p) =>
        [nodeObject(p.node), nodeClaimObject(p.nodeClaim)].map((object) => ({
          object,
          type: 'Normal' as const,
          reason,
          message: p.why,
        })),
      ),
    ),
  );
  if (!command) return 'none';
  // A global-consolidation step says what it saves and moves (its detail), on each candidate.
  if (command.method === 'consolidation' && command.detail)
    await explainAll(
      runtime,
      invocation,
      command.candidates.map((name) => ({
        object: nodeClaimObject(name),
        type: 'Normal' as const,
        reason: 'GlobalConsolidation',
        message: command.detail ?? '',
      })),
    );
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
