import { ApiException } from '@kubernetes/client-node';
import { CloudError, NotFoundError, PodliftError } from '../core/model/errors';
import type { KubeResource } from './kube-resources';
import { ResourceNotServedError } from './resource-not-served-error';

/**
 * Reading the outcome of a failed Kubernetes API call: the HTTP code and the `Status` body the
 * API server sent, and the translation into podlift's typed errors.
 */

/** One `details.causes[]` entry of a `Status`. */
export interface ApiStatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** The parts of a metav1 `Status` body podlift reads. */
export interface ApiStatus {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly causes: readonly ApiStatusCause[];
  readonly retryAfterSeconds?: number;
  /** `details.name`: set when the answer is about one named object. */
  readonly name?: string;
  /** `details.kind`: the resource (plural) or kind the answer is about. */
  readonly kind?: string;
}

/** The HTTP status and Status body of a client-node `ApiException`; undefined for any other error. */
export function apiStatus(error: unknown): ApiStatus | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const body = decodeBody((error as ApiException<unknown>).body);
  const details = isRecord(body.details) ? body.details : {};
  const causes = Array.isArray(details.causes) ? details.causes.filter(isRecord) : [];
  return {
    code: error.code,
    ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
    ...(typeof body.message === 'string' ? { message: body.message } : {}),
    causes: causes.map((c) => ({
      ...(typeof c.reason === 'string' ? { reason: c.reason } : {}),
      ...(typeof c.message === 'string' ? { message: c.message } : {}),
      ...(typeof c.field === 'string' ? { field: c.field } : {}),
    })),
    ...(typeof details.retryAfterSeconds === 'number'
      ? { retryAfterSeconds: details.retryAfterSeconds }
      : {}),
    ...(typeof details.name === 'string' && details.name !== '' ? { name: details.name } : {}),
    ...(typeof details.kind === 'string' && details.kind !== '' ? { kind: details.kind } : {}),
  };
}

/** The HTTP code of a failed API call, or undefined when `error` is not an API answer. */
export function apiCode(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/**
 * 404 about one named object: it does not exist. The real server says so with a NotFound Status
 * naming it (`details.name`, `details.kind`: `apierrors.NewNotFound`). A 404 that names nothing
 * means the path itself is not served ({@link isApiResourceNotServed}), not that an object is gone.
 */
export function isApiNotFound(error: unknown): boolean {
  const status = apiStatus(error);
  return status?.code === 404 && status.name !== undefined;
}

/**
 * 404 naming no object: the server does not serve the group, version or resource asked for. A
 * group nobody serves (a CRD not installed) gets Go's plain-text `404 page not found` from the
 * server's last delegate (apiserver `notfoundhandler.Handler`); an unserved version or resource
 * of a built-in group gets go-restful's Status with empty details (`NewGenericServerResponse`).
 */
export function isApiResourceNotServed(error: unknown): boolean {
  const status = apiStatus(error);
  return status?.code === 404 && status.name === undefined;
}

/** 410: a continue token or resourceVersion the server no longer has (reason Expired, or Gone). */
export function isApiExpired(error: unknown): boolean {
  return apiCode(error) === 410;
}

/** 409: a stale resourceVersion (Conflict) or a name already taken (AlreadyExists). */
export function isApiConflict(error: unknown): boolean {
  return apiCode(error) === 409;
}

/** 409 AlreadyExists, as a create of a taken name answers (a stale write answers reason Conflict). */
export function isApiAlreadyExists(error: unknown): boolean {
  return apiStatus(error)?.reason === 'AlreadyExists';
}

/**
 * Turns a failed API call into podlift's error family: a 404 about a named object becomes a
 * NotFoundError for `resource`, a 404 naming nothing a ResourceNotServedError for `served` (the
 * collection addressed; without it, a CloudError saying the server does not serve it), any other
 * API answer a CloudError whose code is the Status reason (or the HTTP code) and which is
 * retryable for 409, 429 and 5xx; other errors (connection refused, TLS) are retryable
 * CloudErrors too. The message says what was being done: `doing` reads like "patching Node
 * ip-10-0-0-1". podlift's own errors pass through unchanged.
 */
export function kubeError(error: unknown, doing: string, resource: string, served?: KubeResource): Error {
  if (error instanceof PodliftError) return error;
  const status = apiStatus(error);
  if (status?.code === 404 && status.name === undefined) {
    return served
      ? new ResourceNotServedError(served, doing, { cause: error })
      : new CloudError(`${doing}: the API server does not serve ${resource} (404)`, 'NotFound', false, {
          cause: error,
        });
  }
  if (status?.code === 404) {
    return new NotFoundError(resource, `${doing}: ${resource} not found`, { cause: error });
  }
  if (status) {
    const code = status.reason ?? String(status.code);
    const retryable = status.code === 409 || status.code === 429 || status.code >= 500;
    const detail = status.message ?? `HTTP ${status.code}`;
    return new CloudError(`${doing}: ${code}: ${detail}`, code, retryable, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CloudError(`${doing}: ${message}`, undefined, true, { cause: error });
}

function decodeBody(body: unknown): Record<string, unknown> {
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return isRecord(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return isRecord(body) ? body : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
