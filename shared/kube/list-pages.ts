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
 * returns no continue token. A 410 Expired on a continue token is not retried here (the
 * caller's next level-triggered run lists afresh).
 */
export async function listAllPages<T>(
  fetchPage: (continueToken: string | undefined, limit: number) => Promise<ListPage<T>>,
  limit: number = LIST_PAGE_SIZE,
): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  do {
    const page = await fetchPage(token, limit);
    items.push(...(page.items ?? []));
    token = page.metadata?._continue ?? page.metadata?.continue;
  } while (token);
  return items;
}
