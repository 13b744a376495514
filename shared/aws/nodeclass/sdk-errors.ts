import { CloudError } from '../../core/errors';

/** What the AWS SDK v3 puts on the errors it throws. */
interface SdkErrorShape {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly $fault?: 'client' | 'server';
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** Codes AWS services use for throttling and transient failures. */
const RETRYABLE_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'RequestThrottled',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
  'ServiceFailure',
  'ServiceFailureException',
]);

/** The AWS error code of an SDK error (`err.name`), or undefined for anything else. */
export function awsErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as SdkErrorShape;
  if (e.$metadata === undefined && e.$fault === undefined) return undefined;
  return e.name;
}

/** Whether an error from an SDK call may succeed when tried again later (throttling, 5xx, network). */
export function isRetryableAwsError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as SdkErrorShape;
  if (e.code === 'ENOTFOUND' || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT') return true;
  const code = awsErrorCode(error);
  if (code === undefined) return false;
  return RETRYABLE_CODES.has(code) || e.$fault === 'server' || (e.$metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * Wraps a failed SDK call in podlift's CloudError, naming what was being done:
 * `describing subnets for EC2NodeClass default: RequestLimitExceeded: Rate exceeded`.
 */
export function cloudError(doing: string, error: unknown): CloudError {
  const code = awsErrorCode(error) ?? (error as SdkErrorShape | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new CloudError(
    `${doing}: ${code === undefined ? '' : `${code}: `}${message}`,
    code,
    isRetryableAwsError(error),
    {
      cause: error,
    },
  );
}
