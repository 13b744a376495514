import type { ValidationIssue } from '../shared/core/model/errors';
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

/** The watcher's environment is incomplete or invalid; main exits 2. */
export class ConfigurationError extends PodliftError {
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(
      `invalid watcher configuration: ${issues
        .map(
          (issue) =>
            `${issue.field} ${issue.message}${issue.value === undefined ? '' : ` (got ${JSON.stringify(issue.value)})`}`,
        )
        .join('; ')}`,
    );
    this.name = 'ConfigurationError';
  }
}

/** Whether `error` is a {@link ConfigurationError}. */
export function isConfigurationError(error: unknown): error is ConfigurationError {
  return error instanceof ConfigurationError;
}
