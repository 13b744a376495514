import type { TimerHandle, Timers } from '../../shared/core/ports/time';
import type { VirtualTime } from '../../sim/virtual-time';

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
