import { PodliftError } from '../shared/core/model/errors';
import type { WatchedResource } from './watched-resource';

/** A watch stream reported an error Status other than 410 Expired. */
export class WatchStatusError extends PodliftError {
  constructor(
    readonly resource: WatchedResource,
    /** The Status object the server sent. */
    readonly status: unknown,
  ) {
    const { code, reason, message } = (status ?? {}) as {
      code?: unknown;
      reason?: unknown;
      message?: unknown;
    };
    super(
      `watching ${resource}: the server sent an error: ${String(code)} ${String(reason)}: ${String(message)}`,
    );
    this.name = 'WatchStatusError';
  }
}
