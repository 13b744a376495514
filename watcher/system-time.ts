import type { Clock } from '../shared/core/ports/time';
import type { TimerHandle, Timers } from './timers';

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
