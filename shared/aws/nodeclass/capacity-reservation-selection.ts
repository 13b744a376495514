import type {
  CapacityReservation,
  DescribeCapacityReservationsCommandInput,
  Filter,
} from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedCapacityReservation } from '../../core/model/ec2nodeclass-status';

/**
 * Which capacity reservations capacityReservationSelectorTerms select and what they resolve
 * to, without I/O: the requests the resolver sends to EC2, what it keeps of EC2's answer, and
 * the same selection made over reservations already described (`podlift plan
 * --capacity-reservations`, which reads `aws ec2 describe-capacity-reservations` output).
 */

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
 * What the resolver keeps of the reservations EC2 described (merged by id): those already ended
 * left out, the rest as {@link capacityReservationFromEc2} reads them, sorted by id, as
 * Karpenter's capacity reservation provider and status controller do (provider.go List,
 * controllers/nodeclass/capacityreservation.go).
 */
export function resolvedCapacityReservations(
  found: Iterable<CapacityReservation>,
  now: number,
): ResolvedCapacityReservation[] {
  return [...found]
    .filter((r) => r.EndDate === undefined || r.EndDate.getTime() > now)
    .flatMap((r) => capacityReservationFromEc2(r, now) ?? [])
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Karpenter's CapacityReservationFromEC2 (pkg/apis/v1/ec2nodeclass_status.go), or undefined
 * for what it refuses to parse: a match criteria or reservation type it does not know.
 */
function capacityReservationFromEc2(
  r: CapacityReservation,
  now: number,
): ResolvedCapacityReservation | undefined {
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

/**
 * The reservations of `described` that `terms` select, resolved as the resolver resolves what
 * EC2 answers it: each of {@link capacityReservationRequests} answered from `described` as EC2
 * answers it (ids, and every filter matched; values compared exactly), merged by id, then
 * {@link resolvedCapacityReservations}. An id none of them has selects nothing, as the resolver
 * skips an id EC2 does not know.
 */
export function selectCapacityReservations(
  terms: readonly SelectorTerm[],
  described: readonly CapacityReservation[],
  now: number,
): ResolvedCapacityReservation[] {
  const found = new Map<string, CapacityReservation>();
  for (const request of capacityReservationRequests(terms)) {
    const ids = request.CapacityReservationIds;
    for (const r of described) {
      if (r.CapacityReservationId === undefined) continue;
      if (ids !== undefined && !ids.includes(r.CapacityReservationId)) continue;
      if ((request.Filters ?? []).every((f) => filterMatches(r, f))) found.set(r.CapacityReservationId, r);
    }
  }
  return resolvedCapacityReservations(found.values(), now);
}

/** Whether `r` passes one DescribeCapacityReservations filter: any of its values (EC2's OR). */
function filterMatches(r: CapacityReservation, filter: Filter): boolean {
  const name = filter.Name ?? '';
  const values = filter.Values ?? [];
  if (name === 'tag-key') return (r.Tags ?? []).some((t) => t.Key !== undefined && values.includes(t.Key));
  if (name.startsWith('tag:')) {
    const key = name.slice('tag:'.length);
    return (r.Tags ?? []).some((t) => t.Key === key && t.Value !== undefined && values.includes(t.Value));
  }
  const field = FILTER_FIELDS[name];
  if (field === undefined) throw new Error(`no local evaluation of the filter ${name}`);
  const value = field(r);
  return value !== undefined && values.includes(value);
}

/** The filters {@link capacityReservationRequests} sends, besides tags. */
const FILTER_FIELDS: Readonly<Record<string, (r: CapacityReservation) => string | undefined>> = {
  state: (r) => r.State,
  'owner-id': (r) => r.OwnerId,
  'instance-match-criteria': (r) => r.InstanceMatchCriteria,
};
