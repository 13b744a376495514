import { MAX_PUT_EVENTS_BYTES, MAX_PUT_EVENTS_ENTRIES } from './put-events-entry-size';

/**
 * Splits items, in order, into PutEvents calls of at most 10 entries and 256 KB each
 * (`sizeOf` gives an entry's size). Every item must fit on its own; callers check that first.
 */
export function putEventsBatches<T>(items: readonly T[], sizeOf: (item: T) => number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (
      current.length > 0 &&
      (current.length >= MAX_PUT_EVENTS_ENTRIES || bytes + size > MAX_PUT_EVENTS_BYTES)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
