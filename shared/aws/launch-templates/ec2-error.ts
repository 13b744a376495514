import { CloudError } from '../../core/errors';

/** Codes EC2 uses when a call may succeed if tried again later. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'InternalError',
  'ServiceUnavailable',
  'Unavailable',
]);

/** What an SDK v3 error carries that classifies it. */
interface SdkErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/** The EC2 error code of what an SDK call threw (`err.name`), or undefined when it is no AWS error. */
export function ec2ErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const shape = error as SdkErrorShape;
  if (shape.$metadata === undefined && shape.$fault === undefined) return undefined;
  return typeof shape.name === 'string' ? shape.name : undefined;
}

/**
 * A {@link CloudError} saying what was being done:
 * `creating launch template podlift/demo/0c1d… for NodeClaim default-x7k2: InvalidParameterValue: …`.
 * Throttling and server faults are retryable.
 */
export function ec2CloudError(doing: string, error: unknown): CloudError {
  if (error instanceof CloudError) return error;
  const code = ec2ErrorCode(error);
  const shape: SdkErrorShape = typeof error === 'object' && error !== null ? error : {};
  const status = shape.$metadata?.httpStatusCode;
  const retryable =
    (code !== undefined && RETRYABLE_CODES.has(code)) ||
    shape.$fault === 'server' ||
    (typeof status === 'number' && status >= 500);
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  return new CloudError(`${doing}: ${code === undefined ? '' : `${code}: `}${message}`, code, retryable, {
    cause: error,
  });
}
