import { LABEL_NODEPOOL } from '../../shared/core/model/labels';
import { conditionIsTrue, type NodeClaim } from '../../shared/core/model/nodeclaim';
import { instanceTypesByNodePool } from '../../shared/core/scheduling/plan-capacity';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import type { LoopRuntime } from '../runtime';
import { planOptions } from './capacity';
import { launchNodeClaim } from './launch';

/**
 * Launches every NodeClaim recorded but not launched: a run that crashed or was throttled
 * between creating a NodeClaim and recording its launch. The launcher finds an instance the
 * earlier attempt may have started (by its `karpenter.sh/nodeclaim` tag), so the claim gets one
 * instance, never two; it launches one of the instance types the claim's requirements recorded
 * (launch.ts). Returns the NodeClaims launched now, by name.
 */
export async function launchRecordedClaims(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<Map<string, NodeClaim>> {
  const pending = snapshot.nodeClaims.filter(
    (c) => !conditionIsTrue(c, 'Launched') && !c.deletionTimestamp && c.labels[LABEL_NODEPOOL] !== undefined,
  );
  const done = new Map<string, NodeClaim>();
  if (pending.length === 0 || !snapshot.catalog) return done;
  const catalog = snapshot.catalog;
  await mapConcurrently(pending, 8, async (claim) => {
    const nodePool = snapshot.nodePools.find((p) => p.name === claim.labels[LABEL_NODEPOOL]);
    const nodeClass = snapshot.nodeClasses.find((c) => c.name === claim.spec.nodeClassRef.name);
    const resolved = nodeClass && snapshot.nodeClassStatus.get(nodeClass.name);
    if (!nodePool || !nodeClass || !resolved) return;
    // With the reservations too: a reserved NodeClaim launches only into the ones it was promised.
    const types =
      instanceTypesByNodePool([nodePool], [nodeClass], catalog, planOptions(runtime, snapshot)).get(
        nodePool.name,
      ) ?? [];
    checkpoint(invocation);
    invocation.log.info('launching a NodeClaim recorded by an earlier run', { nodeClaim: claim.name });
    const result = await launchNodeClaim(runtime, invocation, claim, {
      nodePool,
      nodeClass,
      resolved,
      instanceTypes: new Map(types.map((t) => [t.name, t])),
    });
    if (result.kind === 'launched') done.set(claim.name, result.nodeClaim);
  });
  return done;
}
