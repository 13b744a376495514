/**
 * Time, the one seam through which core, adapters, the watcher and the functions learn the time
 * and wait. Production wires Node's clock and timers (shared/runtime/system-time.ts); tests and
 * the simulator wire one virtual timeline (sim/virtual-time.ts), so backoffs, batch windows,
 * TTLs and leases run on simulated time and nothing ever sleeps for real.
 */

/** Reads the time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

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

/** A clock and timers on one timeline. */
export interface Time extends Clock, Timers {}

/** Resolves `ms` milliseconds from now on the timeline of `timers`. */
export function sleep(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
}
