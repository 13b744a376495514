/** One page of a listing and the token for the next page, if any. */
export interface Page<T> {
  readonly items: T[];
  readonly nextToken: string | undefined;
}

/** Page-size rules of one AWS list operation. */
export interface PageRules {
  /** Page size when the caller sends no MaxResults; `Infinity` returns everything at once. */
  readonly defaultSize: number;
  readonly min: number;
  readonly max: number;
}

/** Why a page request was rejected, so each fake can raise its own service's error code. */
export class PageRequestError extends Error {
  constructor(
    readonly reason: 'invalid-token' | 'invalid-max-results',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Slices `items` as AWS list operations do. The token is opaque to callers but names the
 * listing it belongs to, so a token replayed against another query is rejected the way AWS
 * rejects a foreign token.
 */
export function paginate<T>(
  items: readonly T[],
  request: { readonly MaxResults?: number; readonly NextToken?: string },
  rules: PageRules,
  listing: string,
): Page<T> {
  const size = request.MaxResults ?? rules.defaultSize;
  if (
    request.MaxResults !== undefined &&
    (request.MaxResults < rules.min || request.MaxResults > rules.max)
  ) {
    throw new PageRequestError(
      'invalid-max-results',
      `MaxResults ${request.MaxResults} is out of range: it must be between ${rules.min} and ${rules.max}`,
    );
  }
  const offset = request.NextToken === undefined ? 0 : decodeToken(request.NextToken, listing);
  const end = offset + size;
  const slice = items.slice(offset, end);
  return { items: slice, nextToken: end < items.length ? encodeToken(end, listing) : undefined };
}

function encodeToken(offset: number, listing: string): string {
  return Buffer.from(JSON.stringify({ o: offset, l: listing })).toString('base64');
}

function decodeToken(token: string, listing: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'o' in parsed && 'l' in parsed) {
      const { o, l } = parsed;
      if (typeof o === 'number' && Number.isInteger(o) && o >= 0 && l === listing) return o;
    }
  } catch {
    // fall through: a token that is not ours is invalid, whatever it is
  }
  throw new PageRequestError(
    'invalid-token',
    `The pagination token '${token}' is not valid for this request`,
  );
}

/**
 * Identifies a listing by its operation and query, without the paging fields, so a token is
 * only honoured for the query that produced it.
 */
export function listingKey(operation: string, request: object): string {
  const { NextToken: _token, MaxResults: _max, ...query } = request as Record<string, unknown>;
  return `${operation}:${stableJson(query)}`;
}

/** JSON with object keys sorted, so equal values always give equal strings. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}
