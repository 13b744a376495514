import type { Filter, Tag } from '@aws-sdk/client-ec2';
import { listingKey, PageRequestError, type PageRules, paginate } from '../pagination';
import type { Ec2Fail } from './context';
import { assertKnownFilters, type FilterFields, InvalidFilterError, matchesFilters } from './filters';

/** Page sizes of the Describe calls, as EC2 documents them per operation. */
export const PAGES = {
  instanceTypes: { defaultSize: 100, min: 5, max: 100 },
  offerings: { defaultSize: 1000, min: 5, max: 1000 },
  spotPrices: { defaultSize: 1000, min: 1, max: 1000 },
  resources: { defaultSize: Infinity, min: 5, max: 1000 },
  launchTemplates: { defaultSize: Infinity, min: 1, max: 200 },
} satisfies Record<string, PageRules>;

/** Rejects unknown filter names with EC2's InvalidParameterValue. */
export function checkFilters<T>(
  fail: Ec2Fail,
  filters: readonly Filter[] | undefined,
  fields: FilterFields<T>,
) {
  try {
    assertKnownFilters(filters, fields as FilterFields<never>);
  } catch (error) {
    if (error instanceof InvalidFilterError) throw fail('InvalidParameterValue', error.message);
    throw error;
  }
}

/** Whether `item` passes `filters`, tag filters included. */
export function matches<T extends object>(
  item: T,
  filters: readonly Filter[] | undefined,
  fields: FilterFields<T>,
): boolean {
  return matchesFilters(item, filters, fields, (resource) =>
    'Tags' in resource ? (resource.Tags as Tag[]) : undefined,
  );
}

/** The items that pass `filters`, after checking every filter name is known. */
export function filtered<T extends object>(
  fail: Ec2Fail,
  items: readonly T[],
  filters: readonly Filter[] | undefined,
  fields: FilterFields<T>,
): T[] {
  checkFilters(fail, filters, fields);
  return items.filter((item) => matches(item, filters, fields));
}

/** One page of `items`, with EC2's errors for a bad MaxResults or NextToken. */
export function page<T>(
  fail: Ec2Fail,
  items: readonly T[],
  input: { MaxResults?: number; NextToken?: string },
  rules: PageRules,
  operation: string,
) {
  try {
    return paginate(items, input, rules, listingKey(operation, input));
  } catch (error) {
    if (!(error instanceof PageRequestError)) throw error;
    throw fail(
      error.reason === 'invalid-token' ? 'InvalidPaginationToken' : 'InvalidParameterValue',
      error.message,
    );
  }
}
