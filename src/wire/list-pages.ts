/**
 * Pagination: "An optional `nextCursor` field if more results exist". The pages of a paginated list, in
 * order, from the first, bounded: a server that puts a cursor on every page never ends its list.
 */

/** How many pages a list may take before it counts as endless. */
export const MAX_LIST_PAGES = 20;

export interface ListPages {
  /** Each page's result object, in order. */
  results: Record<string, any>[];
  /** A nextCursor still came on the last page read (`max` of them). */
  endless: boolean;
}

/**
 * Follows `nextCursor` from the first page. `page(cursor, index)` fetches one page and returns its result
 * object, or throws (a check's failed verify, say): nothing past a page without a result is asked for.
 */
export async function followPages(page: (cursor: string | undefined, index: number) => Promise<Record<string, any>>, max = MAX_LIST_PAGES): Promise<ListPages> {
  const results: Record<string, any>[] = [];
  let cursor: string | undefined;
  for (let index = 0; index < max; index++) {
    const result = await page(cursor, index);
    results.push(result);
    if (typeof result.nextCursor !== 'string') return { results, endless: false };
    cursor = result.nextCursor;
  }
  return { results, endless: true };
}

/** The items of every page under `member` (`tools`), pages without that array adding none. */
export const listed = (pages: ListPages, member = 'tools'): any[] => pages.results.flatMap((r) => (Array.isArray(r[member]) ? r[member] : []));
