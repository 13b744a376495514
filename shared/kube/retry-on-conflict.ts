import { CloudError } from '../core/model/errors';
import { isApiConflict } from './api-errors';

/** Options of {@link retryOnConflict}. */
export interface RetryOnConflictOptions {
  /**
   * How many read-mutate-write rounds to try before giving up.
   * @default 5
   */
  readonly attempts?: number;
  /** What is being changed, for the error after the last attempt ("tainting Node ip-10-0-0-1"). */
  readonly doing?: string;
}

/** The default number of rounds of {@link retryOnConflict}, as client-go's DefaultRetry (5 steps). */
export const DEFAULT_CONFLICT_ATTEMPTS = 5;

/**
 * Optimistic concurrency the Kubernetes way: read the current object, compute the change from
 * it, write it with the resourceVersion that was read; on 409 Conflict read again and re-apply
 * the change to the fresh object, so a concurrent writer's change is kept, never overwritten.
 *
 * `mutate` returns the object to write, or `undefined` when the current object already is as
 * wanted (then nothing is written and the current object is returned). No backoff: another
 * writer's conflicting write has already landed when we see 409, so an immediate re-read sees it.
 *
 * @throws CloudError (code `Conflict`, retryable) after `attempts` conflicts in a row; any other
 *   error of `read` or `write` as it was thrown.
 */
export async function retryOnConflict<T, W = T>(
  read: () => Promise<T>,
  mutate: (current: T) => W | undefined,
  write: (next: W, current: T) => Promise<T>,
  options: RetryOnConflictOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_CONFLICT_ATTEMPTS;
  let last: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const current = await read();
    const next = mutate(current);
    if (next === undefined) return current;
    try {
      return await write(next, current);
    } catch (error) {
      if (!isApiConflict(error)) throw error;
      last = error;
    }
  }
  throw new CloudError(
    `${options.doing ?? 'writing'}: still conflicting after ${attempts} attempts`,
    'Conflict',
    true,
    { cause: last },
  );
}
