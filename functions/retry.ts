import { CloudError } from '../shared/core/model/errors';
import { sleep, type Timers } from '../shared/core/ports/time';

/**
 * client-go's `retry.DefaultBackoff` (k8s.io/client-go util/retry/util.go: 4 steps from 10 ms,
 * ×5) without its jitter: the waits before the second, third and fourth tries.
 */
export const DEFAULT_BACKOFF_MS: readonly number[] = [10, 50, 250];

/** Whether trying again may succeed: a conflict, throttling, a 5xx or a lost connection. */
export function isTransient(error: unknown): boolean {
  return error instanceof CloudError && error.retryable;
}

/**
 * Runs `call`, and again after each wait of {@link DEFAULT_BACKOFF_MS} while it fails
 * transiently, as client-go's `retry.OnError(retry.DefaultBackoff, …)` (which Karpenter's
 * disruption queue wraps its deletes in, pkg/controllers/disruption/queue.go); the last error
 * is thrown. For writes that are safe to repeat.
 */
export async function retryTransient<T>(timers: Timers, call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error) || attempt >= DEFAULT_BACKOFF_MS.length) throw error;
      await sleep(timers, DEFAULT_BACKOFF_MS[attempt]);
    }
  }
}
