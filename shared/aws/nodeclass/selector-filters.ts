import type { Filter } from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';

/**
 * EC2 filters for a selector term's tags, as Karpenter builds them: a value of `*` matches any
 * value (the `tag-key` filter), any other value is `tag:<key>` = value. Keys are sorted so the
 * same term always yields the same filters.
 */
export function tagFilters(tags: Readonly<Record<string, string>> | undefined): Filter[] {
  return Object.keys(tags ?? {})
    .sort()
    .map((key) => {
      const value = tags![key]!;
      return value === '*' ? { Name: 'tag-key', Values: [key] } : { Name: `tag:${key}`, Values: [value] };
    });
}

/**
 * One DescribeSubnets filter set per term (sets are ORed: one call each, results merged;
 * the filters within a set are ANDed by EC2). Terms naming an id are gathered into one
 * `subnet-id` set, last, as Karpenter's getFilterSets does.
 */
export function subnetFilterSets(terms: readonly SelectorTerm[]): Filter[][] {
  const ids: string[] = [];
  const sets: Filter[][] = [];
  for (const term of terms) {
    if (term.id !== undefined) {
      ids.push(term.id);
      continue;
    }
    const filters = tagFilters(term.tags);
    if (term.cidr !== undefined) filters.push({ Name: 'cidr-block', Values: [term.cidr] });
    if (filters.length > 0) sets.push(filters);
  }
  if (ids.length > 0) sets.push([{ Name: 'subnet-id', Values: ids }]);
  return sets;
}

/**
 * One DescribeSecurityGroups filter set per tag term, then one `group-id` set for every id
 * term and one `group-name` set for every name term, as Karpenter's getFilterSets does.
 */
export function securityGroupFilterSets(terms: readonly SelectorTerm[]): Filter[][] {
  const ids: string[] = [];
  const names: string[] = [];
  const sets: Filter[][] = [];
  for (const term of terms) {
    if (term.id !== undefined) ids.push(term.id);
    else if (term.name !== undefined) names.push(term.name);
    else {
      const filters = tagFilters(term.tags);
      if (filters.length > 0) sets.push(filters);
    }
  }
  if (ids.length > 0) sets.push([{ Name: 'group-id', Values: ids }]);
  if (names.length > 0) sets.push([{ Name: 'group-name', Values: names }]);
  return sets;
}
