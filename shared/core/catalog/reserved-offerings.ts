import type { EC2NodeClassStatus, ResolvedCapacityReservation } from '../model/ec2nodeclass-status';
import {
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_CAPACITY_TYPE,
  LABEL_ZONE,
} from '../model/labels';
import { Requirement, Requirements } from '../model/requirements';
import type { InstanceType, Offering } from './instance-type';
import { isOfferingUnavailable } from './unavailable-offerings';

/**
 * `karpenter.sh/capacity-type: reserved` offerings, one per capacity reservation an EC2NodeClass
 * resolved, as aws/karpenter-provider-aws pkg/providers/instancetype/offering/
 * reserved_capacity_resolver.go `ResolveOfferings` appends them.
 */

/**
 * What a reserved offering's price is divided by (reserved_capacity_resolver.go: the on-demand
 * price over 10,000,000): the reservation is already paid for, so it is all but free and always
 * preferred, while keeping the relative order of types for consolidation.
 */
export const RESERVED_PRICE_DIVISOR = 10_000_000;

/**
 * The reserved offering of one reservation of `it`, as ResolveOfferings builds it: in the
 * reservation's zone, priced at the type's on-demand price / {@link RESERVED_PRICE_DIVISOR} (0
 * without one, as Karpenter leaves it), available only while the reservation has room, is not
 * expiring, its zone is one the type is offered in, and EC2 has not just refused it
 * (`ReservationCapacityExceeded`, marked like Karpenter's `MarkUnavailable`).
 */
export function reservedOffering(
  it: InstanceType,
  reservation: ResolvedCapacityReservation,
  unavailable?: ReadonlySet<string>,
): Offering {
  const onDemand = it.offerings.find((o) => o.capacityType === 'on-demand')?.price;
  const zones = it.requirements.get(LABEL_ZONE);
  const available =
    reservation.availableInstanceCount > 0 &&
    reservation.state !== 'expiring' &&
    (zones?.has(reservation.availabilityZone) ?? false) &&
    !(
      unavailable !== undefined &&
      isOfferingUnavailable(unavailable, it.name, reservation.availabilityZone, 'reserved')
    );
  return {
    zone: reservation.availabilityZone,
    capacityType: 'reserved',
    price: onDemand === undefined ? 0 : onDemand / RESERVED_PRICE_DIVISOR,
    available,
    reservation: {
      id: reservation.id,
      type: reservation.reservationType,
      interruptible: reservation.interruptible,
      capacity: reservation.availableInstanceCount,
    },
  };
}

/**
 * `types` with a reserved offering for each reservation of their instance type, and their
 * requirements widened as Karpenter's `computeRequirements` widens them for a type with
 * reservations (pkg/providers/instancetype/types.go): `reserved` among the capacity types, and
 * capacity-reservation-id, -type and -interruptible `In` the reservations' values. Types without
 * a reservation are returned as they are; without reservations, `types` itself.
 *
 * Memoised per `types` array and reservations, so the same inputs give the same array (the
 * scheduler caches per array).
 */
export function withReservedOfferings(
  types: readonly InstanceType[],
  reservations: readonly ResolvedCapacityReservation[] | undefined,
  unavailable?: ReadonlySet<string>,
): readonly InstanceType[] {
  if (reservations === undefined || reservations.length === 0) return types;
  const marked = [...(unavailable ?? [])].filter((k) => k.startsWith('reserved:')).sort();
  const key = JSON.stringify([reservations, marked]);
  let byKey = memo.get(types);
  if (byKey === undefined) {
    byKey = new Map();
    memo.set(types, byKey);
  }
  const hit = byKey.get(key);
  if (hit !== undefined) return hit;
  const byType = new Map<string, ResolvedCapacityReservation[]>();
  for (const r of reservations) byType.set(r.instanceType, [...(byType.get(r.instanceType) ?? []), r]);
  const out = types.map((it) => {
    const own = byType.get(it.name);
    if (own === undefined) return it;
    const capacityTypes = it.requirements.get(LABEL_CAPACITY_TYPE)?.values ?? [];
    // `with` intersects, so the capacity types are replaced rather than added to.
    const others = [...it.requirements.values()].filter((r) => r.key !== LABEL_CAPACITY_TYPE);
    return {
      ...it,
      requirements: Requirements.EMPTY.with(
        ...others,
        Requirement.of(LABEL_CAPACITY_TYPE, 'In', [...new Set([...capacityTypes, 'reserved'])]),
        Requirement.of(
          LABEL_CAPACITY_RESERVATION_ID,
          'In',
          own.map((r) => r.id),
        ),
        Requirement.of(LABEL_CAPACITY_RESERVATION_TYPE, 'In', [
          ...new Set(own.map((r) => r.reservationType)),
        ]),
        Requirement.of(LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE, 'In', [
          ...new Set(own.map((r) => String(r.interruptible))),
        ]),
      ),
      offerings: [...it.offerings, ...own.map((r) => reservedOffering(it, r, unavailable))],
    };
  });
  if (byKey.size >= MAX_VARIANTS) byKey.delete(byKey.keys().next().value as string);
  byKey.set(key, out);
  return out;
}

const MAX_VARIANTS = 8;
const memo = new WeakMap<readonly InstanceType[], Map<string, readonly InstanceType[]>>();

/**
 * Each EC2NodeClass's resolved reservations, when the `ReservedCapacity` gate is on (Karpenter's
 * ResolveOfferings returns no reserved offering with it off); empty otherwise.
 */
export function reservationsByNodeClass(
  statuses: ReadonlyMap<string, EC2NodeClassStatus>,
  reservedCapacity: boolean,
): ReadonlyMap<string, readonly ResolvedCapacityReservation[]> {
  const out = new Map<string, readonly ResolvedCapacityReservation[]>();
  if (!reservedCapacity) return out;
  for (const [name, status] of statuses)
    if ((status.capacityReservations?.length ?? 0) > 0) out.set(name, status.capacityReservations ?? []);
  return out;
}
