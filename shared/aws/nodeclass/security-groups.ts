import { type EC2Client, paginateDescribeSecurityGroups, type SecurityGroup } from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedSecurityGroup } from '../../core/model/ec2nodeclass-status';
import { outcomeOfAwsError, type PartOutcome, resolved, unresolved } from './part-outcome';
import { securityGroupFilterSets } from './selector-filters';

/** Karpenter's SecurityGroupsReady=False reason and message when the selector matches nothing. */
export const SECURITY_GROUPS_NOT_FOUND = {
  reason: 'SecurityGroupsNotFound',
  message: 'SecurityGroupSelector did not match any SecurityGroups',
} as const;

/**
 * Resolves securityGroupSelectorTerms (tags, id, name) to security groups: one
 * DescribeSecurityGroups per filter set, merged by id, sorted by id as Karpenter does. No terms
 * resolve to no groups without an error (Karpenter only fails when terms matched nothing).
 *
 * @throws CloudError when EC2 throttles or fails (retryable); other EC2 errors become an outcome.
 */
export async function resolveSecurityGroups(
  ec2: EC2Client,
  terms: readonly SelectorTerm[],
  nodeClassName: string,
): Promise<PartOutcome<ResolvedSecurityGroup[]>> {
  const found = new Map<string, SecurityGroup>();
  for (const filters of securityGroupFilterSets(terms)) {
    try {
      for await (const page of paginateDescribeSecurityGroups({ client: ec2 }, { Filters: filters })) {
        for (const group of page.SecurityGroups ?? []) {
          if (group.GroupId !== undefined) found.set(group.GroupId, group);
        }
      }
    } catch (error) {
      return outcomeOfAwsError(
        `describing security groups for EC2NodeClass ${nodeClassName} (filters ${JSON.stringify(filters)})`,
        error,
      );
    }
  }
  if (found.size === 0 && terms.length > 0) {
    return unresolved(SECURITY_GROUPS_NOT_FOUND.reason, SECURITY_GROUPS_NOT_FOUND.message);
  }
  const groups = [...found.values()]
    .map(
      (g): ResolvedSecurityGroup => ({
        id: g.GroupId!,
        ...(g.GroupName === undefined ? {} : { name: g.GroupName }),
      }),
    )
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return resolved(groups);
}
