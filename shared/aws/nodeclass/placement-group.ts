import { DescribePlacementGroupsCommand, type EC2Client, type PlacementGroup } from '@aws-sdk/client-ec2';
import type { PlacementGroupSelector } from '../../core/model/ec2nodeclass';
import type { ResolvedPlacementGroup } from '../../core/model/ec2nodeclass-status';
import { awsErrorCode } from '../aws-error';
import { outcomeOfAwsError, type PartOutcome, resolved, unresolved } from './part-outcome';

/**
 * Karpenter's PlacementGroupReady=False reason and message when the selector finds no available
 * group (aws/karpenter-provider-aws pkg/controllers/nodeclass/placementgroup.go Reconcile).
 */
export function placementGroupNotFound(selector: string): { reason: string; message: string } {
  return { reason: 'PlacementGroupNotFound', message: `Placement group "${selector}" not found` };
}

/**
 * Resolves spec.placementGroupSelector as Karpenter's placement group provider does
 * (pkg/providers/placementgroup/provider.go Get, types.go DescribePlacementGroupsInput): one
 * DescribePlacementGroups by id (or else by name) with the filter `state=available`, the first
 * group answered. EC2 answers a name or id it does not know with InvalidPlacementGroup.Unknown
 * rather than an empty list; both read as "not found", so the node class is not Ready and
 * nothing launches outside the group the user asked for.
 *
 * @throws CloudError when EC2 throttles or fails (retryable); other EC2 errors become an outcome.
 */
export async function resolvePlacementGroup(
  ec2: EC2Client,
  selector: PlacementGroupSelector,
  nodeClassName: string,
): Promise<PartOutcome<ResolvedPlacementGroup>> {
  const wanted = selector.id ?? selector.name ?? '';
  let groups: readonly PlacementGroup[];
  try {
    const output = await ec2.send(
      new DescribePlacementGroupsCommand({
        Filters: [{ Name: 'state', Values: ['available'] }],
        ...(selector.id !== undefined ? { GroupIds: [selector.id] } : { GroupNames: [wanted] }),
      }),
    );
    groups = output.PlacementGroups ?? [];
  } catch (error) {
    if (awsErrorCode(error) === 'InvalidPlacementGroup.Unknown') {
      const notFound = placementGroupNotFound(wanted);
      return unresolved(notFound.reason, notFound.message);
    }
    return outcomeOfAwsError(
      `describing placement group ${wanted} for EC2NodeClass ${nodeClassName} (spec.placementGroupSelector)`,
      error,
    );
  }
  const group = groups[0];
  const strategy = group?.Strategy;
  if (
    group?.GroupId === undefined ||
    (strategy !== 'cluster' && strategy !== 'partition' && strategy !== 'spread')
  ) {
    const notFound = placementGroupNotFound(wanted);
    return unresolved(notFound.reason, notFound.message);
  }
  return resolved({
    id: group.GroupId,
    name: group.GroupName ?? '',
    strategy,
    ...(group.PartitionCount === undefined ? {} : { partitionCount: group.PartitionCount }),
    ...(group.SpreadLevel === undefined ? {} : { spreadLevel: group.SpreadLevel }),
  });
}
