import type { BusEvent, EventPublisherPort } from '../shared/core/ports/publisher';
import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';
import type { Backoff } from './backoff';
import { BatchWindow } from './batch-window';
import type { HintAccumulator } from './hint-accumulator';
import type { WatcherLog } from './watcher-log';
import { errorAttributes } from './watcher-log';
import type { WatcherMetrics } from './watcher-metrics';

/** Options of {@link HintChannel}. */
export interface HintChannelOptions<Hint, Batch> {
  /** EventBridge `source`. */
  readonly source: string;
  /** EventBridge `detail-type`. */
  readonly detailType: string;
  readonly accumulator: HintAccumulator<Hint, Batch>;
  /** The event detail for a batch (sized to fit the event). */
  readonly toDetail: (batch: Batch) => unknown;
  readonly publisher: EventPublisherPort;
  /** Batch window: closes this long after the last hint... */
  readonly idleMs: number;
  /** ...or this long after the first. */
  readonly maxMs: number;
  /**
   * Publish the first hint after a quiet `maxMs` at once, batching what follows (see
   * BatchWindowOptions.leading).
   * @default false
   */
  readonly leading?: boolean;
  /**
   * Other channels whose batches may ride along in this channel's PutEvents calls (see
   * {@link HintChannel.takeRider}), so a second detail type costs no call of its own.
   * @default none
   */
  readonly riders?: () => readonly RiderSource[];
  readonly clock: Clock;
  readonly timers: Timers;
  /** Delays between failed publishes. */
  readonly retryBackoff: Backoff;
  readonly metrics: WatcherMetrics;
  readonly log: WatcherLog;
}

/** A batch of another channel travelling in this channel's PutEvents call. */
export interface Rider {
  readonly event: BusEvent;
  /** Records the outcome: metrics on success; on failure the batch goes back and is retried. */
  settle(published: boolean): void;
}

/** A channel whose batch can ride along in another's PutEvents call. */
export interface RiderSource {
  takeRider(horizonMs: number): Rider | undefined;
}

/**
 * The hints of one detail type on their way to the bus: collected during a batch window,
 * published as one event, and on failure kept (coalesced with newer hints, in bounded memory)
 * and retried with backoff. Never more than one publish in flight.
 */
export class HintChannel<Hint, Batch> implements RiderSource {
  private readonly window: BatchWindow;
  private inFlight: Promise<void> | undefined;
  /** The window closed while a publish was in flight: publish again when it ends. */
  private publishAfterFlight = false;
  private retryTimer: TimerHandle | undefined;
  private stopping = false;

  constructor(private readonly options: HintChannelOptions<Hint, Batch>) {
    this.window = new BatchWindow({
      idleMs: options.idleMs,
      maxMs: options.maxMs,
      leading: options.leading ?? false,
      clock: options.clock,
      timers: options.timers,
      onClose: () => this.windowClosed(),
    });
  }

  /** Adds a hint to the current batch; opens or extends the window unless a retry is pending. */
  add(hint: Hint): void {
    this.options.accumulator.add(hint);
    if (this.stopping || this.retryTimer) return;
    this.window.touch();
  }

  /**
   * Publishes what is pending now, once, without waiting for the window or a retry; for
   * shutdown. Later hints are still collected but only published by another flush.
   */
  async flush(): Promise<void> {
    this.stopping = true;
    this.window.cancel();
    this.cancelRetry();
    if (this.inFlight) await this.inFlight;
    if (this.options.accumulator.isEmpty) return;
    await this.publishOnce();
  }

  /**
   * Hands this channel's open batch to another channel's PutEvents call when its window's
   * maximum falls within `horizonMs` (the other channel's next publish would come after it),
   * so the batch goes no later and the call it would have made is saved. Under churn the idle
   * window never closes, so the maximum is what counts. Undefined when there is nothing to hand
   * over, the window has longer to run, or a publish or retry of its own is under way.
   */
  takeRider(horizonMs: number): Rider | undefined {
    const { accumulator, clock, detailType, source, metrics, log } = this.options;
    const deadline = this.window.deadline;
    if (this.inFlight || this.retryTimer || this.stopping || deadline === undefined) return undefined;
    if (accumulator.isEmpty || deadline - clock.now() > horizonMs) return undefined;
    this.window.closeEarly();
    const batch = accumulator.drain();
    const size = accumulator.sizeOf(batch);
    return {
      event: { source, detailType, detail: this.options.toDetail(batch) },
      settle: (published) => {
        if (published) {
          metrics.eventsPublished.inc({ detail_type: detailType });
          metrics.batchSize.observe({ detail_type: detailType }, size);
          this.options.retryBackoff.reset();
          log.info('published', { detailType, hints: size, alongside: true });
          return;
        }
        metrics.publishFailures.inc({ detail_type: detailType });
        accumulator.restore(batch);
        if (!this.stopping) this.scheduleRetry();
      },
    };
  }

  private windowClosed(): void {
    if (this.inFlight) this.publishAfterFlight = true;
    else void this.publishNow();
  }

  private async publishNow(): Promise<void> {
    if (this.options.accumulator.isEmpty) return;
    const published = await this.publishOnce();
    if (this.stopping) return;
    if (!published) this.scheduleRetry();
    else if (this.publishAfterFlight) {
      this.publishAfterFlight = false;
      void this.publishNow();
    }
  }

  /** One attempt; on failure the batch goes back into the accumulator. */
  private async publishOnce(): Promise<boolean> {
    const { accumulator, publisher, metrics, detailType, source, log } = this.options;
    const batch = accumulator.drain();
    const size = accumulator.sizeOf(batch);
    let settle: () => void = () => {};
    this.inFlight = new Promise((resolve) => {
      settle = resolve;
    });
    const riders = this.stopping
      ? []
      : (this.options.riders?.() ?? []).flatMap((channel) => channel.takeRider(this.options.maxMs) ?? []);
    try {
      await publisher.publish([
        { source, detailType, detail: this.options.toDetail(batch) },
        ...riders.map((rider) => rider.event),
      ]);
      for (const rider of riders) rider.settle(true);
      metrics.eventsPublished.inc({ detail_type: detailType });
      metrics.batchSize.observe({ detail_type: detailType }, size);
      this.options.retryBackoff.reset();
      log.info('published', { detailType, hints: size });
      return true;
    } catch (error) {
      for (const rider of riders) rider.settle(false);
      metrics.publishFailures.inc({ detail_type: detailType });
      accumulator.restore(batch);
      log.warn('publishing failed; the batch is kept', {
        detailType,
        hints: size,
        ...errorAttributes(error),
      });
      return false;
    } finally {
      this.inFlight = undefined;
      settle();
    }
  }

  private scheduleRetry(): void {
    // Hints that arrived meanwhile ride along with the retry rather than opening a window.
    this.window.cancel();
    this.publishAfterFlight = false;
    const delayMs = this.options.retryBackoff.next();
    this.retryTimer = this.options.timers.setTimeout(() => {
      this.retryTimer = undefined;
      void this.publishNow();
    }, delayMs);
  }

  private cancelRetry(): void {
    if (this.retryTimer) this.options.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
