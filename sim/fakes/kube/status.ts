/**
 * `Status` bodies shaped like the real API server's (k8s.io/apimachinery `errors.New*`), and the
 * error that carries one out of the store to the HTTP layer.
 */
import type { ResourceType } from './resources';
import { qualifiedKind, qualifiedName } from './resources';

/** One cause inside `details.causes`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `details` of a Status; `kind` is the resource plural for most errors, as on the real server. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A `meta/v1` Status. */
export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A request the fake server refuses, with the Status body and HTTP code it answers. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly status: StatusBody;

  constructor(status: StatusBody) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.status = status;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }
}

/** True when `error` is a {@link KubeApiError}. */
export function isKubeApiError(error: unknown): error is KubeApiError {
  return error instanceof KubeApiError;
}

const reasonByCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A Failure Status; `reason` defaults to the one the real server uses for `code`. */
export function failureStatus(
  code: number,
  message: string,
  reason?: string,
  details?: StatusDetails,
): StatusBody {
  const body: StatusBody = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: reason ?? reasonByCode[code] ?? '',
    code,
  };
  if (details) body.details = details;
  return body;
}

/** A Success Status (what eviction answers, with code 201). */
export function successStatus(code: number, details?: StatusDetails): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
  if (details) body.details = details;
  return body;
}

function resourceDetails(resource: ResourceType, name: string): StatusDetails {
  return resource.group === ''
    ? { name, kind: resource.plural }
    : { name, group: resource.group, kind: resource.plural };
}

/** 404 `pods "x" not found`. */
export function notFound(resource: ResourceType, name: string): KubeApiError {
  return new KubeApiError(
    failureStatus(
      404,
      `${qualifiedName(resource)} "${name}" not found`,
      'NotFound',
      resourceDetails(resource, name),
    ),
  );
}

/** 409 `pods "x" already exists`. */
export function alreadyExists(resource: ResourceType, name: string): KubeApiError {
  return new KubeApiError(
    failureStatus(
      409,
      `${qualifiedName(resource)} "${name}" already exists`,
      'AlreadyExists',
      resourceDetails(resource, name),
    ),
  );
}

/** The message of an optimistic-concurrency failure. */
export const objectModified =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 409 `Operation cannot be fulfilled on nodes "x": <why>`. */
export function conflict(resource: ResourceType, name: string, why: string = objectModified): KubeApiError {
  return new KubeApiError(
    failureStatus(
      409,
      `Operation cannot be fulfilled on ${qualifiedName(resource)} "${name}": ${why}`,
      'Conflict',
      resourceDetails(resource, name),
    ),
  );
}

/** 422 `Pod "x" is invalid: <field>: <message>`, one cause per field error. */
export function invalid(resource: ResourceType, name: string, causes: readonly StatusCause[]): KubeApiError {
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const details: StatusDetails =
    resource.group === ''
      ? { name, kind: resource.kind, causes: [...causes] }
      : { name, group: resource.group, kind: resource.kind, causes: [...causes] };
  return new KubeApiError(
    failureStatus(422, `${qualifiedKind(resource)} "${name}" is invalid: ${summary}`, 'Invalid', details),
  );
}

/** 400 BadRequest with `message`. */
export function badRequest(message: string): KubeApiError {
  return new KubeApiError(failureStatus(400, message, 'BadRequest'));
}

/** 410 Expired with `message` (too old resourceVersion, stale continue token). */
export function expired(message: string): KubeApiError {
  return new KubeApiError(failureStatus(410, message, 'Expired'));
}

/**
 * The 404 go-restful answers for a path under a served group that matches no route (an
 * unserved version or resource): `NewGenericServerResponse(404, …)` with empty details.
 */
export function unservedPathStatus(): StatusBody {
  return failureStatus(404, 'the server could not find the requested resource', 'NotFound', {});
}

/** The status the real server answers for `code` when nothing more specific applies (fault injection). */
export function statusForCode(code: number, message?: string): StatusBody {
  return failureStatus(code, message ?? defaultMessage(code));
}

function defaultMessage(code: number): string {
  switch (code) {
    case 401:
      return 'Unauthorized';
    case 404:
      return 'the server could not find the requested resource';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 500:
      return 'an error on the server ("") has prevented the request from succeeding';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      return `the server responded with the status code ${code} but did not return more information`;
  }
}
