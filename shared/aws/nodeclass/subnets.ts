import { type EC2Client, paginateDescribeSubnets, type Subnet } from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedSubnet } from '../../core/model/ec2nodeclass-status';
import { outcomeOfAwsError, type PartOutcome, resolved, unresolved } from './part-outcome';
import { subnetFilterSets } from './selector-filters';

/** Karpenter's SubnetsReady=False reason and message when the selector matches nothing. */
export const SUBNETS_NOT_FOUND = {
  reason: 'SubnetsNotFound',
  message: 'SubnetSelector did not match any Subnets',
} as const;

/**
 * Resolves subnetSelectorTerms to subnets: one DescribeSubnets per filter set (terms are
 * ORed), merged by id, sorted as Karpenter's status controller sorts them (most available IPs
 * first, then by id). Only `available` subnets are kept.
 *
 * @throws CloudError when EC2 throttles or fails (retryable); other EC2 errors become an outcome.
 */
export async function resolveSubnets(
  ec2: EC2Client,
  terms: readonly SelectorTerm[],
  nodeClassName: string,
): Promise<PartOutcome<ResolvedSubnet[]>> {
  const found = new Map<string, Subnet>();
  for (const filters of subnetFilterSets(terms)) {
    try {
      for await (const page of paginateDescribeSubnets({ client: ec2 }, { Filters: filters })) {
        for (const subnet of page.Subnets ?? []) {
          if (subnet.SubnetId !== undefined && subnet.State !== 'pending') found.set(subnet.SubnetId, subnet);
        }
      }
    } catch (error) {
      return outcomeOfAwsError(
        `describing subnets for EC2NodeClass ${nodeClassName} (filters ${JSON.stringify(filters)})`,
        error,
      );
    }
  }
  if (found.size === 0) return unresolved(SUBNETS_NOT_FOUND.reason, SUBNETS_NOT_FOUND.message);
  const subnets = [...found.values()].map(
    (s): ResolvedSubnet => ({
      id: s.SubnetId!,
      zone: s.AvailabilityZone ?? '',
      ...(s.AvailabilityZoneId === undefined ? {} : { zoneID: s.AvailabilityZoneId }),
      availableIpAddressCount: s.AvailableIpAddressCount ?? 0,
    }),
  );
  subnets.sort((a, b) =>
    a.availableIpAddressCount !== b.availableIpAddressCount
      ? b.availableIpAddressCount - a.availableIpAddressCount
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0,
  );
  return resolved(subnets);
}
