import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';

/** Options of {@link BatchWindow}. */
export interface BatchWindowOptions {
  /** The window closes this long after the last item (Karpenter: 1 s). */
  readonly idleMs: number;
  /** ...and at the latest this long after the first one (Karpenter: 10 s). */
  readonly maxMs: number;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Called when the window closes. */
  readonly onClose: () => void;
}

/**
 * Karpenter's batching window: the first item opens it, each further item pushes its end to
 * `idleMs` later, but never past `maxMs` after it opened. One timer, re-armed per item.
 */
export class BatchWindow {
  private openedAt: number | undefined;
  private timer: TimerHandle | undefined;

  constructor(private readonly options: BatchWindowOptions) {}

  /** Whether items are being collected. */
  get isOpen(): boolean {
    return this.openedAt !== undefined;
  }

  /** An item arrived: opens the window, or extends it within its maximum. */
  touch(): void {
    const { clock, timers, idleMs, maxMs } = this.options;
    const now = clock.now();
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

  private close(): void {
    this.timer = undefined;
    this.openedAt = undefined;
    this.options.onClose();
  }
}
