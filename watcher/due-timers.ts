import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';

/**
 * How long after a wake-up is due it goes. A `CapacityChanged` batch can ride along in a
 * `PodsPending` call at once, and the watcher's node and Lambda read different clocks; a hint
 * that arrived a few milliseconds early would find the function's condition not yet met and leave
 * the work to the next one-minute tick.
 */
export const WAKEUP_SLACK_MS = 1000;

interface DueTimer {
  readonly dueAt: number;
  /** Absent once fired: the same due time does not fire twice. */
  handle?: TimerHandle;
}

/**
 * One timer per key, each firing once {@link WAKEUP_SLACK_MS} after its due time (at once when
 * that has passed): setting the same due time again keeps the timer, fired or not, so an object
 * that changes often does not wake the function twice for the same reason; a new due time
 * replaces it, and none clears it. Keys are the reflector's, which for a cluster-scoped object
 * (a NodeClaim) is its name.
 */
export class DueTimers {
  private readonly timers = new Map<string, DueTimer>();

  constructor(
    private readonly clock: Clock,
    private readonly schedule: Timers,
    /** Called with the key when its time is due. */
    private readonly onDue: (key: string) => void,
  ) {}

  /** Sets, moves or (with no due time) clears the timer of `key`. */
  set(key: string, dueAt: number | undefined): void {
    const held = this.timers.get(key);
    if (held?.dueAt === dueAt) return;
    if (held?.handle) this.schedule.clearTimeout(held.handle);
    this.timers.delete(key);
    if (dueAt === undefined) return;
    const delay = Math.max(0, dueAt + WAKEUP_SLACK_MS - this.clock.now());
    const timer: DueTimer = { dueAt };
    timer.handle = this.schedule.setTimeout(() => {
      delete timer.handle;
      this.onDue(key);
    }, delay);
    this.timers.set(key, timer);
  }

  /** Clears every timer. */
  stop(): void {
    for (const { handle } of this.timers.values()) if (handle) this.schedule.clearTimeout(handle);
    this.timers.clear();
  }
}
