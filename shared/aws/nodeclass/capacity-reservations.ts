import {
  type CapacityReservation,
  type EC2Client,
  paginateDescribeCapacityReservations,
} from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedCapacityReservation } from '../../core/model/ec2nodeclass-status';
import { awsErrorCode } from '../aws-error';
import { capacityReservationRequests, resolvedCapacityReservations } from './capacity-reservation-selection';
import { outcomeOfAwsError, type PartOutcome, resolved } from './part-outcome';

/**
 * Resolves capacityReservationSelectorTerms as Karpenter's capacity reservation provider and
 * status controller do (provider.go List, controllers/nodeclass/capacityreservation.go): every
 * request of {@link capacityReservationRequests}, an id EC2 does not know skipped, merged by id,
 * reservations already ended left out, sorted by id; reservations of a match criteria or type
 * Karpenter does not know are skipped as it skips them.
 *
 * @throws CloudError when EC2 throttles or fails (retryable); other EC2 errors become an outcome.
 */
export async function resolveCapacityReservations(
  ec2: EC2Client,
  terms: readonly SelectorTerm[],
  nodeClassName: string,
  now: number,
): Promise<PartOutcome<ResolvedCapacityReservation[]>> {
  const found = new Map<string, CapacityReservation>();
  for (const request of capacityReservationRequests(terms)) {
    try {
      for await (const page of paginateDescribeCapacityReservations({ client: ec2 }, request)) {
        for (const r of page.CapacityReservations ?? []) {
          if (r.CapacityReservationId !== undefined) found.set(r.CapacityReservationId, r);
        }
      }
    } catch (error) {
      if (awsErrorCode(error) === 'InvalidCapacityReservationId.NotFound') continue;
      return outcomeOfAwsError(
        `describing capacity reservations for EC2NodeClass ${nodeClassName} (${JSON.stringify(request)})`,
        error,
      );
    }
  }
  return resolved(resolvedCapacityReservations(found.values(), now));
}
