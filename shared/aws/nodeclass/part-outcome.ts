import { awsErrorCode, cloudErrorFrom, isRetryableAwsError } from '../aws-error';

/** What resolving one part of an EC2NodeClass produced: a value, or why it could not. */
export type PartOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** A successful outcome. */
export function resolved<T>(value: T): PartOutcome<T> {
  return { ok: true, value };
}

/** A failed outcome; `reason` is CamelCase, `message` says what did not match or exist. */
export function unresolved<T>(reason: string, message: string): PartOutcome<T> {
  return { ok: false, reason, message };
}

/**
 * Turns an error from an AWS call into an outcome: the caller's input or permissions are at
 * fault (UnauthorizedOperation, InvalidParameterValue, ...), so the condition goes False with
 * the error code as reason. Retryable errors (throttling, 5xx, network) are thrown as
 * CloudError instead: the status is left as it was and the caller tries again later, as
 * Karpenter does.
 */
export function outcomeOfAwsError<T>(doing: string, error: unknown): PartOutcome<T> {
  const failure = cloudErrorFrom(doing, error);
  if (isRetryableAwsError(error) || awsErrorCode(error) === undefined) throw failure;
  return unresolved(camelCaseReason(awsErrorCode(error)!), failure.message);
}

/** `InvalidSubnetID.NotFound` → `InvalidSubnetIDNotFound`: metav1 reasons are CamelCase identifiers. */
function camelCaseReason(code: string): string {
  const reason = code
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return /^[A-Za-z]/.test(reason) ? reason : `AWS${reason}`;
}
