import type { VolumeAttachment } from '../../shared/core/ports/cluster';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { decideTermination } from '../../shared/core/termination/decide';
import { needsClaimedVolumes } from '../../shared/core/termination/node-termination';
import { loadClusterSnapshot } from '../cluster-snapshot';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import type { LoopRuntime } from '../runtime';
import { executeTermination } from './execute';
import { collectGarbage } from './garbage';
import { runHealthChecks } from './health';

/** What one termination run did. */
export interface TerminationSummary {
  readonly actions: number;
  readonly failed: number;
  /** Launch templates and instance profiles deleted. */
  readonly garbageCollected: number;
  /** NodeClaims deleted because EC2 reports their instance unhealthy. */
  readonly unhealthyInstances: number;
  /** NodeClaims node repair deleted (feature gate NodeRepair). */
  readonly repaired: number;
  readonly repairsBlocked: number;
}

/**
 * One termination and garbage-collection run: read the cluster and the cluster's instances,
 * delete the NodeClaims of unhealthy instances and Nodes (health.ts; they are drained from the
 * next run on), decide every step due now (core/termination), carry them out, then delete the launch templates
 * and instance profiles nothing uses any more. No Lease: every step is
 * idempotent, so two runs at once only repeat each other's harmless writes. One failed action
 * is logged and left for the next run; the others go on.
 */
export async function runTermination(
  runtime: LoopRuntime,
  invocation: Invocation,
): Promise<TerminationSummary> {
  const [{ snapshot }, instances] = await Promise.all([
    loadClusterSnapshot(runtime.ports, invocation, runtime.unavailable, {
      catalog: false,
      pendingPods: false,
    }),
    runtime.ports.instances.listClusterInstances(),
  ]);
  const health = await runHealthChecks(runtime, invocation, snapshot);
  const now = invocation.time.now();
  const volumes = await readVolumes(runtime, invocation, snapshot, now);
  const actions = decideTermination({
    now,
    nodes: snapshot.nodes,
    nodeClaims: snapshot.nodeClaims,
    nodePools: snapshot.nodePools,
    instances,
    ...volumes,
    unreadableNodeClaims: new Set(
      snapshot.invalid.flatMap((e) => /^NodeClaim\/(.+)$/.exec(e.location.object ?? '')?.[1] ?? []),
    ),
  });
  let failed = 0;
  await mapConcurrently(actions, 8, async (action) => {
    try {
      await executeTermination(runtime, invocation, action);
    } catch (error) {
      failed++;
      invocation.log.warn('termination step failed; the next run tries again', {
        action: action.kind,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
  const garbage = await collectGarbage(runtime, invocation, snapshot, instances);
  return {
    actions: actions.length,
    failed,
    garbageCollected: garbage.launchTemplates.length + garbage.instanceProfiles.length,
    ...health,
  };
}

/**
 * The VolumeAttachments, read only while a NodeClaim is being deleted (nothing else needs them),
 * and the claims' volumes only when a pod the drain leaves mounts one (needsClaimedVolumes). If
 * the claims cannot be read, every attachment of the node is waited for (until the
 * terminationGracePeriod, if any): slower, never unsafe, and no other node's step waits for it.
 */
async function readVolumes(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  now: number,
): Promise<{
  volumeAttachments?: readonly VolumeAttachment[];
  claimedVolumes?: ReadonlyMap<string, string>;
}> {
  if (!snapshot.nodeClaims.some((c) => c.deletionTimestamp)) return {};
  const volumeAttachments = await runtime.ports.cluster.volumeAttachments();
  if (!needsClaimedVolumes(snapshot.nodes, volumeAttachments, now)) return { volumeAttachments };
  try {
    return { volumeAttachments, claimedVolumes: await runtime.ports.cluster.claimedVolumes() };
  } catch (error) {
    invocation.log.warn('reading PersistentVolumeClaims failed; waiting for every VolumeAttachment', {
      error: error instanceof Error ? error.message : String(error),
    });
    return { volumeAttachments };
  }
}
