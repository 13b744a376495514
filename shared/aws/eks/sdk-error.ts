import { CloudError } from '../../core/errors';

/** Codes AWS services use when they throttle a caller. */
const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ServiceUnavailableException',
]);

/** Node network errors worth another try. */
const TRANSIENT_NETWORK = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'ECONNREFUSED',
  'EAI_AGAIN',
  'EPIPE',
  'ENOTFOUND',
]);

/**
 * Wraps an SDK error as a {@link CloudError} whose message says what was being done (`doing`),
 * with the AWS error code, and whether another try may succeed (throttling, 5xx, transient
 * network errors).
 */
export function cloudErrorFromSdk(doing: string, error: unknown): CloudError {
  const e = (error ?? {}) as { name?: string; message?: string; code?: string; $fault?: string };
  const code = e.code !== undefined && /^E[A-Z]+$/.test(e.code) ? e.code : e.name;
  const retryable =
    THROTTLING.has(e.name ?? '') || e.$fault === 'server' || TRANSIENT_NETWORK.has(e.code ?? '');
  return new CloudError(`${doing}: ${code ?? 'Error'}: ${e.message ?? String(error)}`, code, retryable, {
    cause: error,
  });
}
