import type { Filter, Tag } from '@aws-sdk/client-ec2';

/**
 * For one resource kind, the values each supported filter name sees on a resource. A filter
 * matches when any of the resource's values matches any of the filter's values.
 */
export type FilterFields<T> = Readonly<Record<string, (resource: T) => ReadonlyArray<string | undefined>>>;

/** Why a filter was rejected; the EC2 fake turns it into `InvalidParameterValue`. */
export class InvalidFilterError extends Error {}

/**
 * Applies EC2 `Filters` as the real API does: filters are ANDed, the values of one filter are
 * ORed, values may use the `*` and `?` wildcards, and `tag:<key>`, `tag-key` and `tag-value`
 * work on every taggable resource. An unknown filter name is an error, not a silent match.
 */
export function matchesFilters<T>(
  resource: T,
  filters: readonly Filter[] | undefined,
  fields: FilterFields<T>,
  tags: (resource: T) => readonly Tag[] | undefined = () => undefined,
): boolean {
  for (const filter of filters ?? []) {
    const name = filter.Name ?? '';
    const wanted = (filter.Values ?? []).map(wildcardPattern);
    const values = filterValues(resource, name, fields, tags);
    if (!values.some((value) => value !== undefined && wanted.some((pattern) => pattern.test(value)))) {
      return false;
    }
  }
  return true;
}

/** Rejects filters whose names `fields` does not support, naming the bad filter. */
export function assertKnownFilters(
  filters: readonly Filter[] | undefined,
  fields: FilterFields<never>,
): void {
  for (const filter of filters ?? []) {
    const name = filter.Name ?? '';
    const isTagFilter = name.startsWith('tag:') || name === 'tag-key' || name === 'tag-value';
    if (!isTagFilter && !(name in fields)) throw new InvalidFilterError(`The filter '${name}' is invalid`);
  }
}

function filterValues<T>(
  resource: T,
  name: string,
  fields: FilterFields<T>,
  tags: (resource: T) => readonly Tag[] | undefined,
): ReadonlyArray<string | undefined> {
  if (name.startsWith('tag:')) {
    const key = name.slice('tag:'.length);
    return (tags(resource) ?? []).filter((tag) => tag.Key === key).map((tag) => tag.Value);
  }
  if (name === 'tag-key') return (tags(resource) ?? []).map((tag) => tag.Key);
  if (name === 'tag-value') return (tags(resource) ?? []).map((tag) => tag.Value);
  const field = fields[name];
  if (field === undefined) throw new InvalidFilterError(`The filter '${name}' is invalid`);
  return field(resource);
}

/** EC2 filter values: `*` matches any run of characters, `?` one character, the rest literally. */
function wildcardPattern(value: string): RegExp {
  const escaped = value
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 's');
}

/** A boolean as EC2 filters spell it. */
export function flag(value: boolean | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}
