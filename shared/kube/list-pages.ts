import { isApiExpired } from './api-errors';

/**
 * Lists in pages (`limit` + `continue`), as the API server wants large collections read: each
 * page is bounded, and the pages of one list form a consistent snapshot.
 */

/** Page size of every list podlift makes. 500 is client-go's pager default. */
export const LIST_PAGE_SIZE = 500;

/** What one page request answers: typed lists carry `_continue`, custom object lists `continue`. */
export interface ListPage<T> {
  readonly items?: readonly T[];
  readonly metadata?: { readonly _continue?: string; readonly continue?: string };
}

/**
 * Every item of a paginated list: calls `fetchPage(continueToken, limit)` until the server
 * returns no continue token. When a continue token has expired (410: etcd compacted the
 * revision the first page was read at), it falls back to one full list without a limit, as
 * client-go's pager does (`ListPager.list` with FullListIfExpired, k8s.io/client-go/tools/pager):
 * the pages read so far are dropped, so the result is still one consistent snapshot.
 */
export async function listAllPages<T>(
  fetchPage: (continueToken: string | undefined, limit: number) => Promise<ListPage<T>>,
  limit: number = LIST_PAGE_SIZE,
): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  do {
    let page: ListPage<T>;
    try {
      page = await fetchPage(token, limit);
    } catch (error) {
      if (token === undefined || !isApiExpired(error)) throw error;
      return [...((await fetchPage(undefined, 0)).items ?? [])];
    }
    items.push(...(page.items ?? []));
    token = page.metadata?._continue ?? page.metadata?.continue;
  } while (token);
  return items;
}

/**
 * The query of one page of a bulk read: the first page at `resourceVersion=0`, which the API
 * server answers from its watch cache instead of a quorum read of etcd (older servers then
 * answer the whole list at once and ignore `limit`; newer ones page from a cache snapshot);
 * the pages after it by their continue token, which carries its own resourceVersion.
 */
export function pageQuery(
  continueToken: string | undefined,
  limit: number,
): Readonly<Record<string, string | number>> {
  if (continueToken) return { limit, continue: continueToken };
  return limit > 0 ? { limit, resourceVersion: '0' } : { resourceVersion: '0' };
}
