import { lifecycleStep } from '../../shared/core/lifecycle/registration';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { joinNodesAndClaims } from '../../shared/core/state/cluster-snapshot';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/**
 * Advances every NodeClaim whose Node has joined by one lifecycle step (registered, then
 * initialized), writing the Node first and the NodeClaim's condition last, so a crash in
 * between repeats the (idempotent) Node writes on the next run instead of skipping them. A
 * step that fails is logged and left for the next run; the others go on. Returns the NodeClaims
 * advanced now.
 */
export async function advanceLifecycle(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<Map<string, NodeClaim>> {
  const { cluster } = runtime.ports;
  const steps = joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims).flatMap(({ node, nodeClaim }) => {
    const step = node && nodeClaim ? lifecycleStep(nodeClaim, node) : undefined;
    return step ? [step] : [];
  });
  const createdAt = new Map(snapshot.nodeClaims.map((c) => [c.name, Date.parse(c.creationTimestamp ?? '')]));
  const updated = new Map<string, NodeClaim>();
  await mapConcurrently(steps, 8, async (step) => {
    try {
      if (step.nodeMetadata) await cluster.patchNodeMetadata(step.node, step.nodeMetadata);
      if (step.nodeTaints) await cluster.taintNode(step.node, step.nodeTaints);
      if (step.nodeFinalizer) await cluster.addNodeFinalizer(step.node, step.nodeFinalizer);
      if (step.nodeOwner) await cluster.addNodeOwnerReference(step.node, step.nodeOwner);
      updated.set(step.nodeClaim, await cluster.updateNodeClaimStatus(step.nodeClaim, step.status));
    } catch (error) {
      // One Node the API server refuses must not hold back the others or the launches after
      // this step: Karpenter's lifecycle controller reconciles each NodeClaim on its own.
      invocation.log.warn(`NodeClaim not ${step.transition}; the next run tries again`, {
        nodeClaim: step.nodeClaim,
        node: step.node,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    const metric =
      step.transition === 'registered' ? METRICS.nodeClaimsRegistered : METRICS.nodeClaimsInitialized;
    invocation.metrics.add(metric, 'Count', 1);
    const created = createdAt.get(step.nodeClaim) ?? Number.NaN;
    if (step.transition === 'initialized' && !Number.isNaN(created))
      invocation.metrics.add(
        METRICS.timeToInitialized,
        'Seconds',
        Math.max(0, (invocation.time.now() - created) / 1000),
      );
    invocation.log.info(`${step.transition} NodeClaim`, { nodeClaim: step.nodeClaim, node: step.node });
  });
  return updated;
}
