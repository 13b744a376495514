import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';

/** Options of {@link BatchWindow}. */
export interface BatchWindowOptions {
  /** The window closes this long after the last item (Karpenter: 1 s). */
  readonly idleMs: number;
  /** ...and at the latest this long after the first one (Karpenter: 10 s). */
  readonly maxMs: number;
  /**
   * Leading edge: an item arriving when the window last closed at least `maxMs` ago (or never)
   * closes it at once, so the first change of a burst goes out without waiting; the items that
   * follow are batched as usual. At most one extra close per `maxMs`, so a churning stream still
   * closes once per `maxMs`.
   * @default false
   */
  readonly leading?: boolean;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Called when the window closes. */
  readonly onClose: () => void;
}

/**
 * Karpenter's batching window (kubernetes-sigs/karpenter `pkg/controllers/provisioning/batcher.go`,
 * `Batcher.Wait`: an idle timer reset by each trigger inside a maximum duration): the first item
 * opens it, each further item pushes its end to `idleMs` later, but never past `maxMs` after it
 * opened. With `leading`, a quiet window closes on its first item instead. One timer, re-armed
 * per item.
 */
export class BatchWindow {
  private openedAt: number | undefined;
  private closedAt: number | undefined;
  private timer: TimerHandle | undefined;

  constructor(private readonly options: BatchWindowOptions) {}

  /** Whether items are being collected. */
  get isOpen(): boolean {
    return this.openedAt !== undefined;
  }

  /** The latest the open window closes however often it is extended (opened + maxMs); undefined when not open. */
  get deadline(): number | undefined {
    return this.openedAt === undefined ? undefined : this.openedAt + this.options.maxMs;
  }

  /** An item arrived: closes a quiet leading window, opens the window, or extends it within its maximum. */
  touch(): void {
    const { clock, timers, idleMs, maxMs, leading } = this.options;
    const now = clock.now();
    if (
      leading &&
      this.openedAt === undefined &&
      (this.closedAt === undefined || now - this.closedAt >= maxMs)
    ) {
      this.close();
      return;
    }
    this.openedAt ??= now;
    const closesAt = Math.min(now + idleMs, this.openedAt + maxMs);
    if (this.timer) timers.clearTimeout(this.timer);
    this.timer = timers.setTimeout(() => this.close(), Math.max(0, closesAt - now));
  }

  /** Closes the window without calling `onClose`. */
  cancel(): void {
    if (this.timer) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.openedAt = undefined;
  }

  /**
   * Closes the window now without calling `onClose`, as if it had closed: its items went out
   * with something else (the leading edge counts from here).
   */
  closeEarly(): void {
    this.cancel();
    this.closedAt = this.options.clock.now();
  }

  private close(): void {
    this.timer = undefined;
    this.openedAt = undefined;
    this.closedAt = this.options.clock.now();
    this.options.onClose();
  }
}
