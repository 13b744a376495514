import type { Clock } from '../../shared/core/ports/time';
import type { TimerHandle, Timers } from '../../watcher/timers';

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A timeline tests move by hand: a {@link Clock} and {@link Timers} in one, so the batch
 * window and backoffs run without sleeping. `advance` runs due callbacks in time order, with
 * the clock set to each one's due time.
 */
export class FakeTime implements Clock, Timers {
  private current: number;
  private readonly scheduled = new Map<number, Scheduled>();
  private nextId = 1;

  constructor(start: number = Date.UTC(2026, 10, 21, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timerId = this.nextId++;
    this.scheduled.set(timerId, { at: this.current + Math.max(0, ms), seq: timerId, callback });
    return { timerId };
  }

  clearTimeout(handle: TimerHandle): void {
    this.scheduled.delete(handle.timerId);
  }

  /** Callbacks waiting to run. */
  get pending(): number {
    return this.scheduled.size;
  }

  /** Delays from now of the waiting callbacks, soonest first. */
  delays(): number[] {
    return [...this.scheduled.values()].map((s) => s.at - this.current).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` forward, running every callback that falls due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let due: [number, Scheduled] | undefined;
      for (const entry of this.scheduled) {
        if (entry[1].at > target) continue;
        if (!due || entry[1].at < due[1].at || (entry[1].at === due[1].at && entry[1].seq < due[1].seq))
          due = entry;
      }
      if (!due) break;
      this.scheduled.delete(due[0]);
      this.current = due[1].at;
      due[1].callback();
    }
    this.current = target;
  }
}
