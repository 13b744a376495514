import type { Clock, Time, TimerHandle, Timers } from '../core/ports/time';

/** The wall clock, for production. */
export const systemClock: Clock = { now: () => Date.now() };

/** Node's timers behind {@link Timers}, for production. */
export class SystemTimers implements Timers {
  private readonly pending = new Map<number, NodeJS.Timeout>();
  private nextId = 1;

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timerId = this.nextId++;
    this.pending.set(
      timerId,
      setTimeout(() => {
        this.pending.delete(timerId);
        callback();
      }, ms),
    );
    return { timerId };
  }

  clearTimeout(handle: TimerHandle): void {
    const timeout = this.pending.get(handle.timerId);
    if (timeout === undefined) return;
    clearTimeout(timeout);
    this.pending.delete(handle.timerId);
  }
}

/** The wall clock and Node's timers on one timeline: what composition roots wire in production. */
export function systemTime(): Time {
  const timers = new SystemTimers();
  return {
    now: systemClock.now,
    setTimeout: (callback, ms) => timers.setTimeout(callback, ms),
    clearTimeout: (handle) => timers.clearTimeout(handle),
  };
}
