import type { ClusterLeasePort } from '../shared/core/ports/cluster-lease';
import { type Invocation, remainingMs } from './invocation';
import { METRICS } from './observability';

/** What {@link withClusterLease} returns: the loop's own result, or why it did not run. */
export type LeaseRun<T> =
  | { readonly ran: true; readonly result: T }
  | { readonly ran: false; readonly holder?: string };

/** Seconds a hold lasts beyond the invocation's deadline, so a hold never lapses mid-run. */
const HOLD_MARGIN_SECONDS = 10;

/**
 * Runs `body` holding the cluster's Lease, so the provisioner, disruption and interruption
 * loops never decide from the same state at once (Karpenter runs them in one leader-elected
 * process; podlift's functions share one Lease instead). When another invocation holds it,
 * `body` does not run: the event was a hint, and the holder or the next scheduled run does the
 * work (level-triggered). The hold lasts until the invocation's deadline and is released as soon
 * as `body` settles, so the next contender does not wait for it to lapse; a crash simply lets it
 * lapse.
 */
export async function withClusterLease<T>(
  lease: ClusterLeasePort,
  invocation: Invocation,
  body: () => Promise<T>,
): Promise<LeaseRun<T>> {
  const seconds = Math.ceil(remainingMs(invocation) / 1000) + HOLD_MARGIN_SECONDS;
  const outcome = await lease.acquire(invocation.holder, seconds);
  if (!outcome.acquired) {
    invocation.log.info('cluster Lease held by another invocation; leaving the work to it', {
      holder: outcome.holder,
      expiresAt: outcome.expiresAt,
    });
    invocation.metrics.add(METRICS.leaseHeldElsewhere, 'Count', 1);
    return { ran: false, ...(outcome.holder ? { holder: outcome.holder } : {}) };
  }
  try {
    return { ran: true, result: await body() };
  } finally {
    await lease.release(invocation.holder).catch((error: unknown) => {
      invocation.log.warn('releasing the cluster Lease failed; it lapses on its own', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }
}
