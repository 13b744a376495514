import { CloudError } from '../core/model/errors';
import { sleep, type Timers } from '../core/ports/time';
import { awsErrorCode, errorMessage, isRetryableAwsError } from './aws-error';

/**
 * Retrying AWS calls within a Lambda invocation's remaining time: exponential backoff with full
 * jitter (AWS's recommended "full jitter": a random delay between 0 and min(cap, base × 2^n)),
 * waiting on the injected {@link Timers} and with randomness injected, so tests and the simulator
 * never wait for real.
 *
 * Production SDK clients are built with `sdkClientConfig` (`maxAttempts: 1`), so this policy,
 * which knows the deadline, is the only one retrying.
 */

/** How and for how long to retry. Only `timers` and `random` are required. */
export interface RetryPolicy {
  /** The timeline backoffs wait on: Node's timers in Lambda, a VirtualTime in tests and the simulator. */
  readonly timers: Timers;
  /** A number in [0, 1), for jitter (Math.random in production). */
  readonly random: () => number;
  /**
   * Milliseconds the invocation has left, like Lambda's `context.getRemainingTimeInMillis()`.
   * @default unlimited (only `maxAttempts` bounds the retries)
   */
  readonly remainingTimeMs?: () => number;
  /** No retry starts unless this much time would be left after its backoff. @default 3000 */
  readonly safetyMarginMs?: number;
  /** @default 100 */
  readonly baseDelayMs?: number;
  /** @default 5000 */
  readonly maxDelayMs?: number;
  /** Attempts in total, the first included. @default 8 */
  readonly maxAttempts?: number;
}

/** Defaults of {@link RetryPolicy}'s optional fields. */
export const RETRY_DEFAULTS = {
  safetyMarginMs: 3000,
  baseDelayMs: 100,
  maxDelayMs: 5000,
  maxAttempts: 8,
} as const;

/**
 * The backoff before retry number `retry` (1 for the first retry): full jitter,
 * `random() × min(maxDelayMs, baseDelayMs × 2^(retry − 1))`.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy): number {
  const base = policy.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const cap = policy.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs;
  return Math.floor(policy.random() * Math.min(cap, base * 2 ** (retry - 1)));
}

/**
 * Why no further attempt may start after `attempts` attempts and a backoff of `delayMs`, or
 * undefined when it may. Shared by {@link withRetry} and callers that retry parts of a result
 * (PutEvents' failed entries).
 */
export function retryRefusal(attempts: number, delayMs: number, policy: RetryPolicy): string | undefined {
  const maxAttempts = policy.maxAttempts ?? RETRY_DEFAULTS.maxAttempts;
  if (attempts >= maxAttempts) return `gave up after ${attempts} attempts`;
  const remaining = policy.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY;
  const margin = policy.safetyMarginMs ?? RETRY_DEFAULTS.safetyMarginMs;
  if (remaining - delayMs < margin) {
    return `gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${Math.max(0, Math.round(remaining))} ms of the invocation left, a retry needs ${delayMs} ms of backoff and keeps a ${margin} ms safety margin`;
  }
  return undefined;
}

/**
 * Runs `call`, retrying what `isRetryable` accepts (default: {@link isRetryableAwsError}) with
 * backoff while the policy allows. An error that is not retryable is rethrown unchanged, so
 * callers can still branch on its code; when retries run out a {@link CloudError} is thrown,
 * `retryable: true`, with the last error's code, `what` and why it stopped in the message, and
 * the last error as `cause`.
 *
 * @param what what was being done, e.g. `launching NodeClaim default-x7k2 (m5.large, us-east-1a)`
 */
export async function withRetry<T>(
  what: string,
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  isRetryable: (error: unknown) => boolean = isRetryableAwsError,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call(attempt);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const delay = backoffDelayMs(attempt, policy);
      const refusal = retryRefusal(attempt, delay, policy);
      if (refusal !== undefined) {
        const code = awsErrorCode(error);
        throw new CloudError(`${what}: ${code ?? 'error'}: ${errorMessage(error)} (${refusal})`, code, true, {
          cause: error,
        });
      }
      await sleep(policy.timers, delay);
    }
  }
}
