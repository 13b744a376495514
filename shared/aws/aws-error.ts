import { CloudError } from '../core/model/errors';

/**
 * What an AWS SDK v3 call threw, classified once for every adapter: its code, whether another
 * try may succeed, and a CloudError naming what was being done.
 *
 * The codes follow the SDK's own classification (@smithy/core, retry/service-error-classification
 * `THROTTLING_ERROR_CODES`, `TRANSIENT_ERROR_CODES`, `NODEJS_TIMEOUT_ERROR_CODES`), because
 * production clients are built with `maxAttempts: 1` (sdk-client-config.ts) and podlift's own
 * retry must take over everything the SDK would have retried.
 */

/** Error codes AWS services use for throttling. */
const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'EC2ThrottledException',
  'PriorRequestNotComplete',
]);

/** Codes of transient server-side failures. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'InternalError',
  'InternalFailure',
  'InternalException',
  'InternalServerError',
  'ServiceUnavailable',
  'Unavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  // The SDK's HTTP handler names a connection or socket timeout TimeoutError, often without a code.
  'TimeoutError',
]);

/** Node socket errors worth another try (a DNS name that does not resolve is not). */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * Capacity answers are decisions, not hiccups: retrying them at once only repeats the answer
 * (EC2 returns InsufficientInstanceCapacity with a 500, so the status alone would mislead).
 */
const CAPACITY_CODES: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'InsufficientCapacity',
  'InsufficientHostCapacity',
  'InsufficientReservedInstanceCapacity',
]);

/** The AWS error code of an SDK error (`name`), or a Node error's `code`; undefined for anything else. */
export function awsErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { name?: unknown; code?: unknown; $metadata?: unknown };
  if (typeof e.code === 'string') return e.code;
  if (e.$metadata !== undefined && typeof e.name === 'string') return e.name;
  if (typeof e.name === 'string' && e.name !== 'Error') return e.name;
  return undefined;
}

/** Whether an AWS SDK error is throttling, a 5xx or a dropped connection (and not a capacity answer). */
export function isRetryableAwsError(error: unknown): boolean {
  const code = awsErrorCode(error);
  if (code !== undefined && CAPACITY_CODES.has(code)) return false;
  if (code !== undefined && (THROTTLING_CODES.has(code) || TRANSIENT_CODES.has(code))) return true;
  if (code !== undefined && TRANSIENT_NETWORK_CODES.has(code)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { $retryable?: unknown; $metadata?: { httpStatusCode?: unknown } };
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && (status >= 500 || status === 429);
}

/** The message of an error, whatever was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns what an SDK call threw into a {@link CloudError} naming what was being done, e.g.
 * `describing instance types in us-east-1: RequestLimitExceeded: Rate exceeded`. A CloudError
 * passes through unchanged. Throttling, 5xx and dropped connections are retryable.
 */
export function cloudErrorFrom(doing: string, error: unknown): CloudError {
  if (error instanceof CloudError) return error;
  const code = awsErrorCode(error);
  return new CloudError(
    `${doing}: ${code === undefined ? '' : `${code}: `}${errorMessage(error)}`,
    code,
    isRetryableAwsError(error),
    {
      cause: error,
    },
  );
}
