import {
  type CapacityReservation,
  type DescribeCapacityReservationsCommandInput,
  type EC2Client,
  type Filter,
  paginateDescribeCapacityReservations,
} from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedCapacityReservation } from '../../core/model/ec2nodeclass-status';
import { awsErrorCode } from '../aws-error';
import { outcomeOfAwsError, type PartOutcome, resolved } from './part-outcome';

/** How long before a capacity block ends Karpenter calls it expiring (CapacityReservationFromEC2). */
const EXPIRATION_PERIOD_MS = 40 * 60_000;

/**
 * The DescribeCapacityReservations requests for the terms, as Karpenter's
 * QueriesFromSelectorTerms and DescribeCapacityReservationsInput build them
 * (aws/karpenter-provider-aws pkg/providers/capacityreservation/types.go): a term's id is one
 * request by id; its tags or instanceMatchCriteria (with its ownerID) another, by filters, 1000 a
 * page. Every request asks only for `state=active`; a tag value `*` matches any value.
 */
export function capacityReservationRequests(
  terms: readonly SelectorTerm[],
): DescribeCapacityReservationsCommandInput[] {
  const active: Filter = { Name: 'state', Values: ['active'] };
  const requests: DescribeCapacityReservationsCommandInput[] = [];
  for (const term of terms) {
    if (term.id !== undefined && term.id !== '') {
      // EC2 refuses MaxResults together with ids.
      requests.push({ Filters: [active], CapacityReservationIds: [term.id] });
    }
    const tags = Object.entries(term.tags ?? {});
    if (tags.length > 0 || term.instanceMatchCriteria !== undefined) {
      requests.push({
        Filters: [
          active,
          ...(term.ownerID === undefined ? [] : [{ Name: 'owner-id', Values: [term.ownerID] }]),
          ...tags.map(([key, value]) =>
            value === '*' ? { Name: 'tag-key', Values: [key] } : { Name: `tag:${key}`, Values: [value] },
          ),
          ...(term.instanceMatchCriteria === undefined
            ? []
            : [{ Name: 'instance-match-criteria', Values: [term.instanceMatchCriteria] }]),
        ],
        MaxResults: 1000,
      });
    }
  }
  return requests;
}

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
  const reservations = [...found.values()]
    .filter((r) => r.EndDate === undefined || r.EndDate.getTime() > now)
    .flatMap((r) => fromEc2(r, now) ?? [])
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return resolved(reservations);
}

/** Karpenter's CapacityReservationFromEC2, or undefined for what it refuses to parse. */
function fromEc2(r: CapacityReservation, now: number): ResolvedCapacityReservation | undefined {
  const criteria = r.InstanceMatchCriteria;
  const type = r.ReservationType ?? 'default';
  if ((criteria !== 'open' && criteria !== 'targeted') || (type !== 'default' && type !== 'capacity-block')) {
    return undefined;
  }
  const end = r.EndDate?.getTime();
  const expiring = type === 'capacity-block' && end !== undefined && now >= end - EXPIRATION_PERIOD_MS;
  return {
    id: r.CapacityReservationId ?? '',
    instanceType: r.InstanceType ?? '',
    availabilityZone: r.AvailabilityZone ?? '',
    ownerID: r.OwnerId ?? '',
    instanceMatchCriteria: criteria,
    reservationType: type,
    state: expiring ? 'expiring' : 'active',
    interruptible: r.Interruptible ?? false,
    ...(end === undefined ? {} : { endTime: new Date(end).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
    availableInstanceCount: r.AvailableInstanceCount ?? 0,
  };
}
