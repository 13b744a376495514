import { CloudError } from '../model/errors';

/**
 * Whether an install step that failed should wait for the cluster to honour the installer's
 * access rather than fail the deploy. The installer's EKS access entry and its
 * AmazonEKSClusterAdminPolicy association are created in the same stack just before the
 * custom resource; EKS takes seconds to a minute to honour a new access entry (until then the
 * API server answers 401 Unauthorized) or policy association (403 Forbidden), and a cluster
 * created in the same deploy may not yet answer on, or resolve, its endpoint. Those answers
 * within {@link INSTALL_ACCESS_GRACE_MS} of the operation's start mean "not yet"; afterwards
 * they are the real failure.
 */

/** How long after the Create or Update began a refusal or an unreachable endpoint means "not yet". */
export const INSTALL_ACCESS_GRACE_MS = 5 * 60_000;

/** What to do with a failed install step. */
export type InstallFailureVerdict = 'wait' | 'fail';

/** The API server's answers while an access entry or its policy association propagates. */
const ACCESS_NOT_YET_CODES = new Set(['Unauthorized', 'Forbidden', '401', '403']);

/** The endpoint of a cluster that was just created: nothing listening yet, or no DNS name yet. */
const ENDPOINT_NOT_YET = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\b/;

/**
 * Whether `error` is one a fresh access entry or a fresh cluster answers with: the API server's
 * 401 or 403 (kubeError's CloudError code is the Status reason or the HTTP code), a refused
 * connection or an unresolvable endpoint.
 */
export function isAccessNotYetHonoured(error: unknown): boolean {
  if (error instanceof CloudError && error.code !== undefined && ACCESS_NOT_YET_CODES.has(error.code))
    return true;
  return error instanceof Error && ENDPOINT_NOT_YET.test(error.message);
}

/**
 * `wait` while `error` is one a fresh access entry or cluster answers with and the operation
 * began less than {@link INSTALL_ACCESS_GRACE_MS} before `now` (epoch ms both); `fail` otherwise.
 */
export function installFailureVerdict(error: unknown, startedAt: number, now: number): InstallFailureVerdict {
  return isAccessNotYetHonoured(error) && now - startedAt < INSTALL_ACCESS_GRACE_MS ? 'wait' : 'fail';
}
