/**
 * The watcher's only way to wait: injected, so the batch window and backoffs run on a fake
 * timeline in tests and on Node's timers in production.
 */

/** A scheduled callback; only the {@link Timers} that made it can cancel it. */
export interface TimerHandle {
  readonly timerId: number;
}

/** Schedules and cancels one-shot callbacks. */
export interface Timers {
  /** Calls `callback` once, `ms` milliseconds from now. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a callback that has not run yet; a no-op otherwise. */
  clearTimeout(handle: TimerHandle): void;
}
