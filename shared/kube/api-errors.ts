import { ApiException } from '@kubernetes/client-node';
import { CloudError, NotFoundError, PodliftError } from '../core/model/errors';

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
  };
}

/** The HTTP code of a failed API call, or undefined when `error` is not an API answer. */
export function apiCode(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** 404: the object (or its namespace) does not exist. */
export function isApiNotFound(error: unknown): boolean {
  return apiCode(error) === 404;
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
 * Turns a failed API call into podlift's error family: 404 becomes a NotFoundError for
 * `resource`, any other API answer a CloudError whose code is the Status reason (or the HTTP
 * code) and which is retryable for 409, 429 and 5xx; other errors (connection refused, TLS)
 * are retryable CloudErrors too. The message says what was being done: `doing` reads like
 * "patching Node ip-10-0-0-1". podlift's own errors pass through unchanged.
 */
export function kubeError(error: unknown, doing: string, resource: string): Error {
  if (error instanceof PodliftError) return error;
  const status = apiStatus(error);
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
