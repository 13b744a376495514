import type { ClusterLeasePort } from '../shared/core/ports/cluster-lease';
import type { Invocation } from './invocation';
import { LEASE_TIMING, LeaseHold, LeaseLostError, type LeaseTiming } from './lease-hold';
import { METRICS } from './observability';
import { DEFAULT_BACKOFF_MS, retryTransient } from './retry';

export { LEASE_TIMING, LeaseLostError, type LeaseTiming } from './lease-hold';

/** What {@link withClusterLease} returns: the loop's own result, or why it did not run (to its end). */
export type LeaseRun<T> =
  | { readonly ran: true; readonly result: T }
  /**
   * `lost`: the body started but the hold was lost and the body stopped at a checkpoint; the
   * steps it had taken are done (each is idempotent), the rest is left to the next run.
   */
  | { readonly ran: false; readonly holder?: string; readonly lost?: true };

/**
 * Throws the {@link LeaseLostError} when `invocation` has lost the cluster Lease it was given
 * by {@link withClusterLease}; a no-op for an invocation that holds none. The loops call it at
 * their step boundaries, before each act (creating or deleting a NodeClaim, launching,
 * recording a command), so a run that lost the Lease stops before its next act and does not
 * act alongside the new holder.
 */
export function checkpoint(invocation: Pick<Invocation, 'signal'>): void {
  invocation.signal?.throwIfAborted();
}

/**
 * Runs `body` holding the cluster's Lease, so the provisioner, disruption and interruption
 * loops never decide from the same state at once (Karpenter runs them in one leader-elected
 * process; podlift's functions share one Lease instead). When another invocation holds it,
 * `body` does not run: the event was a hint, and the holder or the next scheduled run does the
 * work (level-triggered).
 *
 * The hold is client-go leader election's (see {@link LEASE_TIMING}): a short Lease renewed on
 * the invocation's timers while `body` runs, so a crashed or frozen invocation's hold lapses
 * within `durationSeconds` instead of holding every loop back for the rest of its timeout.
 * `body` gets the invocation with the hold's `signal`; when a renewal finds the Lease taken or
 * cannot renew before the renew deadline, the signal aborts and the body's next
 * {@link checkpoint} throws, which ends the run as `{ ran: false, lost: true }`. When `body`
 * settles the renewals stop and the Lease is released, as client-go's `ReleaseOnCancel`
 * (Karpenter sets `LeaderElectionReleaseOnCancel`), so the next contender need not wait; a
 * refused release is tried again ({@link DEFAULT_BACKOFF_MS}) and then left to lapse.
 */
export async function withClusterLease<T>(
  lease: ClusterLeasePort,
  invocation: Invocation,
  body: (held: Invocation) => Promise<T>,
  timing: LeaseTiming = LEASE_TIMING,
): Promise<LeaseRun<T>> {
  const asked = invocation.time.now();
  const outcome = await lease.acquire(invocation.holder, timing.durationSeconds);
  if (!outcome.acquired) {
    invocation.log.info('cluster Lease held by another invocation; leaving the work to it', {
      holder: outcome.holder,
      expiresAt: outcome.expiresAt,
    });
    invocation.metrics.add(METRICS.leaseHeldElsewhere, 'Count', 1);
    return { ran: false, ...(outcome.holder ? { holder: outcome.holder } : {}) };
  }
  const hold = new LeaseHold(lease, invocation, timing, asked);
  try {
    return { ran: true, result: await body({ ...invocation, signal: hold.signal }) };
  } catch (error) {
    if (!(hold.signal.aborted && error instanceof LeaseLostError)) throw error;
    return { ran: false, lost: true, ...(error.holder ? { holder: error.holder } : {}) };
  } finally {
    await hold.stop();
    await release(lease, invocation);
  }
}

/** Gives the Lease up, trying again on a conflict, throttling or a 5xx; then leaves it to lapse. */
async function release(lease: ClusterLeasePort, invocation: Invocation): Promise<void> {
  let attempts = 0;
  try {
    await retryTransient(invocation.time, () => {
      attempts++;
      return lease.release(invocation.holder);
    });
  } catch (error) {
    invocation.log.warn('releasing the cluster Lease failed; it lapses on its own', {
      holder: invocation.holder,
      attempts,
      error: error instanceof Error ? error.message : String(error),
    });
    invocation.metrics.add(METRICS.leaseReleaseFailed, 'Count', 1);
  }
}
