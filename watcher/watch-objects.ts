import type { WatchedObjectMeta } from '../shared/core/ports/list-watch';

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
