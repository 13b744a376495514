import { PodliftError } from '../core/model/errors';

/**
 * The API server refused to evict a pod because a PodDisruptionBudget does not allow it now
 * (HTTP 429), or because more than one budget selects the pod (HTTP 500, which the eviction
 * subresource never allows). Drains retry later; nothing is wrong with the request.
 */
export class EvictionBlockedError extends PodliftError {
  constructor(
    /** `namespace/name` of the pod. */
    readonly pod: string,
    /** Name of the blocking PodDisruptionBudget, when the API server named it. */
    readonly budget: string | undefined,
    /** The API server's explanation. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`evicting pod ${pod}: blocked by PodDisruptionBudget ${budget ?? '(unnamed)'}: ${detail}`, options);
    this.name = 'EvictionBlockedError';
  }
}

/** Whether `e` is an {@link EvictionBlockedError}. */
export function isEvictionBlockedError(e: unknown): e is EvictionBlockedError {
  return e instanceof EvictionBlockedError;
}
