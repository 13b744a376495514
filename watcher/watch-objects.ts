import { PodliftError } from '../shared/core/model/errors';
import type { WatchedObjectMeta } from '../shared/core/ports/list-watch';
import { apiStatus } from '../shared/kube/api-errors';

/** The HTTP status carried by a client-node error (`code` on ApiException, `statusCode` on a failed watch). */
export function errorStatus(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'number') return code;
  if (typeof statusCode === 'number') return statusCode;
  return undefined;
}

/** The metadata of an object from a list or watch (empty when it has none). */
export function metadataOf(object: unknown): WatchedObjectMeta {
  if (object === null || typeof object !== 'object') return {};
  const { metadata } = object as { metadata?: unknown };
  return metadata !== null && typeof metadata === 'object' ? (metadata as WatchedObjectMeta) : {};
}

/**
 * One line saying why a list or watch of `resource` failed: podlift's own errors as they are,
 * an API answer as its code, reason and message (client-node's ApiException message carries the
 * whole response, headers included), anything else as its message.
 */
export function describeFailure(doing: 'listing' | 'watching', resource: string, error: unknown): string {
  if (error instanceof PodliftError) return error.message;
  const status = apiStatus(error);
  let why: string;
  if (status) {
    const code = status.reason ? `${status.code} ${status.reason}` : String(status.code);
    why = status.message ? `${code}: ${status.message}` : code;
  } else why = error instanceof Error ? error.message : String(error);
  return `${doing} ${resource} failed: ${why}`;
}
