import { hashRestamps } from '../../shared/core/disruption/hash-versions';
import { isNotFoundError } from '../../shared/core/model/errors';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import type { LoopRuntime } from '../runtime';

/**
 * Re-stamps the drift hashes of NodeClaims written under another hash version (carried over from
 * Karpenter, or from an older podlift) as Karpenter's hash controllers' `updateNodeClaimHash` do
 * (core/disruption/hash-versions.ts), so drift compares them from now on. Returns the snapshot
 * with the annotations as written, so the run's drift detection reads them. A claim that is gone
 * is skipped; another failure is logged and leaves that claim for the next run.
 */
export async function restampHashVersions(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<ClusterSnapshot> {
  const restamps = hashRestamps(snapshot);
  if (restamps.length === 0) return snapshot;
  const written = new Map<string, Readonly<Record<string, string>>>();
  for (const { nodeClaim, annotations } of restamps) {
    checkpoint(invocation);
    try {
      await runtime.ports.cluster.patchNodeClaimMetadata(nodeClaim, { annotations });
      written.set(nodeClaim, annotations);
      invocation.log.info('re-stamped the drift hashes of a NodeClaim from another hash version', {
        nodeClaim,
        ...annotations,
      });
    } catch (error) {
      if (isNotFoundError(error)) continue;
      invocation.log.warn('re-stamping drift hashes on a NodeClaim failed', {
        nodeClaim,
        error: String(error),
      });
    }
  }
  return {
    ...snapshot,
    nodeClaims: snapshot.nodeClaims.map((c) => {
      const annotations = written.get(c.name);
      return annotations ? { ...c, annotations: { ...c.annotations, ...annotations } } : c;
    }),
  };
}
