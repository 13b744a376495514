import type { Time, TimerHandle, Timers } from '../shared/core/ports/time';

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/** The instant every virtual timeline starts at unless told otherwise: 2026-01-01T00:00:00Z. */
export const VIRTUAL_EPOCH = Date.UTC(2026, 0, 1);

/**
 * A virtual timeline: a {@link Clock} and {@link Timers} in one that only moves when told to,
 * so tests and the simulator run backoffs, batch windows, TTLs and leases without sleeping.
 * `advance` runs due callbacks in time order (ties in scheduling order), with the clock set to
 * each one's due time; `advanceAsync` does the same but lets promise chains started by each
 * callback settle before the next, for code that awaits between timers.
 */
export class VirtualTime implements Time {
  private current: number;
  private readonly scheduled = new Map<number, Scheduled>();
  private nextId = 1;
  private settle: () => Promise<void> = nextTurn;

  constructor(start: number = VIRTUAL_EPOCH) {
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
    for (let due = this.nextDue(target); due; due = this.nextDue(target)) this.run(due);
    this.current = target;
  }

  /**
   * Moves the clock `ms` forward like {@link advance}, but after each callback lets the
   * promise jobs and I/O callbacks it started run (one macrotask turn, or until `settle` of
   * {@link settleWith} resolves), so a timer that resolves a sleep lets the awaiting code reach
   * its next timer before time moves on.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.current + ms;
    await this.settle();
    for (let due = this.nextDue(target); due; due = this.nextDue(target)) {
      this.run(due);
      await this.settle();
    }
    this.current = target;
  }

  /**
   * What {@link advanceAsync} waits for before the first callback and after each: by default
   * one event-loop turn; the simulator waits until its real I/O has settled
   * (sim/world/io-sequencer.ts), so time never moves while a request is in flight.
   */
  settleWith(settle: () => Promise<void>): void {
    this.settle = settle;
  }

  private nextDue(target: number): [number, Scheduled] | undefined {
    let due: [number, Scheduled] | undefined;
    for (const entry of this.scheduled) {
      if (entry[1].at > target) continue;
      if (!due || entry[1].at < due[1].at || (entry[1].at === due[1].at && entry[1].seq < due[1].seq))
        due = entry;
    }
    return due;
  }

  private run([id, scheduled]: [number, Scheduled]): void {
    this.scheduled.delete(id);
    this.current = scheduled.at;
    scheduled.callback();
  }
}

/** One turn of the event loop: pending promise jobs and immediate callbacks run first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Timers on `time` whose every wait ends as soon as it starts: scheduling a callback moves the
 * virtual clock to its due time, which runs it (and anything due before it) before
 * `setTimeout` returns. For adapter tests in which the retry policy is the only thing waiting:
 * a retried call completes without the test moving the clock, the clock then reads as if the
 * backoffs had passed (so deadlines are honoured), and `waits` lists the backoffs in order.
 */
export function waitsAtOnce(time: VirtualTime, waits: number[] = []): Timers {
  return {
    setTimeout(callback: () => void, ms: number): TimerHandle {
      waits.push(ms);
      const handle = time.setTimeout(callback, ms);
      time.advance(ms);
      return handle;
    },
    clearTimeout: (handle) => time.clearTimeout(handle),
  };
}
