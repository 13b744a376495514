import { driftConditionChanges } from '../../shared/core/disruption/drift';
import { isNotFoundError } from '../../shared/core/model/errors';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/**
 * Records drift on the NodeClaims' status as Karpenter's nodeclaim disruption controller does
 * (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go `Drift.Reconcile`):
 * `Drifted=True` with its reason when a claim drifted, the condition removed when it no longer
 * has, written only on a change (the kube adapter re-reads and re-applies on 409). Returns the
 * snapshot with the NodeClaims as stored, so the run decides from the conditions just written.
 * A claim that is gone is skipped; another failure is logged and leaves that claim as it was.
 */
export async function recordDriftConditions(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<ClusterSnapshot> {
  const changes = driftConditionChanges(snapshot);
  if (changes.length === 0) return snapshot;
  const stored = new Map<string, NodeClaim>();
  for (const { nodeClaim, change, drift, update } of changes) {
    checkpoint(invocation);
    try {
      stored.set(nodeClaim, await runtime.ports.cluster.updateNodeClaimStatus(nodeClaim, update));
    } catch (error) {
      if (isNotFoundError(error)) continue;
      invocation.log.warn('recording drift on a NodeClaim failed', { nodeClaim, error: String(error) });
      continue;
    }
    if (change === 'set') {
      invocation.metrics.add(METRICS.nodeClaimsDrifted, 'Count', 1, { reason: drift?.reason ?? '' });
      invocation.log.info('NodeClaim drifted', { nodeClaim, ...drift });
    } else invocation.log.info('NodeClaim no longer drifted', { nodeClaim });
  }
  return {
    ...snapshot,
    nodeClaims: snapshot.nodeClaims.map((c) => stored.get(c.name) ?? c),
  };
}
