import { PodliftError } from '../shared/core/model/errors';
import type { ClusterLeasePort } from '../shared/core/ports/cluster-lease';
import type { TimerHandle } from '../shared/core/ports/time';
import type { Invocation } from './invocation';
import { METRICS } from './observability';

/**
 * How long a hold of the cluster Lease lasts and how it is kept, as client-go's leader election
 * (k8s.io/client-go tools/leaderelection/leaderelection.go, `LeaderElectionConfig` and
 * `renew()`) with the timings Karpenter runs with: kubernetes-sigs/karpenter
 * pkg/operator/operator.go (`NewOperator`) sets no durations and gets controller-runtime's
 * defaults, 15 s / 10 s / 2 s, the core clients' defaults.
 */
export interface LeaseTiming {
  /**
   * Seconds written as `leaseDurationSeconds`: how long a holder that stopped renewing (a crashed
   * or frozen invocation) keeps every other loop waiting.
   */
  readonly durationSeconds: number;
  /**
   * A holder that has not renewed for this long gives the hold up: its body stops at the next
   * checkpoint. Shorter than the duration, so a holder that could not renew stops before anybody
   * else may take over.
   */
  readonly renewDeadlineMs: number;
  /** Between two renewals, and between the tries of a renewal that failed. */
  readonly retryPeriodMs: number;
}

/**
 * podlift's timings: client-go's and Karpenter's. 15 s bounds what a dead invocation costs the
 * others (a spot notice is 120 s; the interruption queue redelivers after 30 s); renewing every
 * 2 s costs a read and a write per 2 s of a run, most runs being shorter than that; the 5 s
 * between the renew deadline and the duration cover a renewal in flight and clock skew between
 * Lambda hosts (client-go's rule: duration > renewDeadline > 1.2 × retryPeriod).
 */
export const LEASE_TIMING: LeaseTiming = {
  durationSeconds: 15,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** The cluster Lease was taken over or could not be renewed in time: the holder's body must stop. */
export class LeaseLostError extends PodliftError {
  constructor(
    message: string,
    /** Who holds the Lease now, when known. */
    readonly holder?: string,
  ) {
    super(message);
    this.name = 'LeaseLostError';
  }
}

/**
 * One invocation's hold on the cluster Lease while its body runs: renews it every
 * `retryPeriodMs` on the invocation's timers (client-go's `renew()` loop) and aborts
 * {@link LeaseHold.signal} with a {@link LeaseLostError} when a renewal finds another holder, or
 * when no renewal succeeded within `renewDeadlineMs` of the last one (a renewal still in flight
 * then counts as failed, as client-go's `timeoutCtx` makes it). {@link LeaseHold.stop} clears
 * its timers, so none keeps a Lambda or a simulation waiting or fires after the run.
 */
export class LeaseHold {
  private readonly controller = new AbortController();
  private renewedAt: number;
  private renewal: TimerHandle | undefined;
  private deadline: TimerHandle | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly lease: ClusterLeasePort,
    private readonly invocation: Invocation,
    private readonly timing: LeaseTiming,
    /** When the hold was acquired (taken before the acquiring request was sent). */
    acquiredAt: number,
  ) {
    this.renewedAt = acquiredAt;
    this.armDeadline();
    this.scheduleRenewal();
  }

  /** Aborted, with a {@link LeaseLostError} as its reason, once the hold is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops renewing: clears the timers and waits for a renewal in flight to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    await this.inFlight;
  }

  private scheduleRenewal(): void {
    this.renewal = this.invocation.time.setTimeout(() => {
      this.renewal = undefined;
      this.inFlight = this.renew();
    }, this.timing.retryPeriodMs);
  }

  private armDeadline(): void {
    const { time } = this.invocation;
    if (this.deadline) time.clearTimeout(this.deadline);
    const left = this.renewedAt + this.timing.renewDeadlineMs - time.now();
    this.deadline = time.setTimeout(
      () =>
        this.lose(
          `not renewed within ${this.timing.renewDeadlineMs / 1000} s of ${new Date(this.renewedAt).toISOString()}`,
        ),
      left,
    );
  }

  private async renew(): Promise<void> {
    const started = this.invocation.time.now();
    try {
      const outcome = await this.lease.acquire(this.invocation.holder, this.timing.durationSeconds);
      if (this.done()) return;
      if (!outcome.acquired) {
        this.lose(`taken over by ${outcome.holder ?? 'nobody'}`, outcome.holder);
        return;
      }
      this.renewedAt = started;
      this.armDeadline();
    } catch (error) {
      if (this.done()) return;
      this.invocation.log.warn('renewing the cluster Lease failed; trying again', {
        holder: this.invocation.holder,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    this.scheduleRenewal();
  }

  private lose(why: string, holder?: string): void {
    if (this.done()) return;
    this.clearTimers();
    this.invocation.log.warn('lost the cluster Lease; stopping before the next step', {
      holder: this.invocation.holder,
      why,
      ...(holder ? { newHolder: holder } : {}),
    });
    this.invocation.metrics.add(METRICS.leaseLost, 'Count', 1);
    this.controller.abort(
      new LeaseLostError(
        `cluster Lease held by ${this.invocation.holder}: ${why}; the run stops before its next step`,
        holder,
      ),
    );
  }

  private done(): boolean {
    return this.stopped || this.controller.signal.aborted;
  }

  private clearTimers(): void {
    const { time } = this.invocation;
    if (this.renewal) time.clearTimeout(this.renewal);
    if (this.deadline) time.clearTimeout(this.deadline);
    this.renewal = undefined;
    this.deadline = undefined;
  }
}
