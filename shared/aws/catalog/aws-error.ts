import { CloudError } from '../../core/errors';

/** Error codes AWS uses for throttling, across the query and JSON protocols. */
const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
]);

/** Node network errors the SDK surfaces when an endpoint cannot be reached. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
]);

/** The fields of an SDK v3 service exception, or a Node system error, that classify it. */
interface AwsErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly $fault?: unknown;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/**
 * Turns what an SDK call threw into a {@link CloudError} naming what was being done:
 * `describing instance types in us-east-1: RequestLimitExceeded: Rate exceeded`. The code is
 * the AWS error code (`err.name`) or, for network failures, the Node error code (`ENOTFOUND`).
 * Throttling, 5xx and network failures are retryable; anything else is not.
 */
export function cloudErrorFrom(doing: string, error: unknown): CloudError {
  if (error instanceof CloudError) return error;
  const shape: AwsErrorShape = typeof error === 'object' && error !== null ? error : {};
  const nodeCode = typeof shape.code === 'string' ? shape.code : undefined;
  const name = typeof shape.name === 'string' && shape.name !== 'Error' ? shape.name : undefined;
  const code = nodeCode ?? name;
  const status = shape.$metadata?.httpStatusCode;
  const retryable =
    shape.$fault === 'server' ||
    shape.$retryable !== undefined ||
    (code !== undefined && (THROTTLING_CODES.has(code) || NETWORK_CODES.has(code))) ||
    (typeof status === 'number' && (status === 429 || status >= 500));
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  return new CloudError(`${doing}: ${code === undefined ? '' : `${code}: `}${message}`, code, retryable, {
    cause: error,
  });
}
