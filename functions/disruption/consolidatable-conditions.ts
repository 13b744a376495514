import { consolidatableChanges } from '../../shared/core/disruption/consolidatable';
import { isNotFoundError } from '../../shared/core/model/errors';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import type { LoopRuntime } from '../runtime';

/**
 * Records the pod events the run sees and the `Consolidatable` condition on the NodeClaims, as
 * Karpenter's podevents controller and nodeclaim disruption controller do
 * (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/podevents/controller.go,
 * pkg/controllers/nodeclaim/disruption/consolidation.go; the choice of observing pods here, each
 * run, is explained in shared/core/disruption/consolidatable.ts). The status is written before the
 * pods' fingerprint, so a run that stops between the two sees the event again rather than losing
 * it. Returns the snapshot with the NodeClaims as written, so the run decides by them.
 */
export async function recordConsolidatable(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  now: number,
): Promise<ClusterSnapshot> {
  const changes = consolidatableChanges(snapshot, now);
  if (changes.length === 0) return snapshot;
  const byName = new Map(snapshot.nodeClaims.map((c) => [c.name, c]));
  for (const { nodeClaim, status, podEvents } of changes) {
    checkpoint(invocation);
    try {
      let claim = byName.get(nodeClaim) as NodeClaim;
      if (status) claim = await runtime.ports.cluster.updateNodeClaimStatus(nodeClaim, status);
      if (podEvents !== undefined) {
        await runtime.ports.cluster.patchNodeClaimMetadata(nodeClaim, {
          annotations: { [ANNOTATIONS.podEvents]: podEvents },
        });
        claim = { ...claim, annotations: { ...claim.annotations, [ANNOTATIONS.podEvents]: podEvents } };
      }
      byName.set(nodeClaim, claim);
    } catch (error) {
      if (isNotFoundError(error)) continue;
      invocation.log.warn('recording pod events or Consolidatable on a NodeClaim failed', {
        nodeClaim,
        error: String(error),
      });
    }
  }
  return { ...snapshot, nodeClaims: snapshot.nodeClaims.map((c) => byName.get(c.name) ?? c) };
}
