import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';
import { LABEL_CAPACITY_RESERVATION_ID } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';

/** A NodeClaim to delete because its Capacity Block is about to end. */
export interface ExpiringClaim {
  readonly nodeClaim: string;
  readonly capacityReservationId: string;
  /** RFC 3339, when the block ends. */
  readonly endTime?: string;
}

/**
 * The NodeClaims to delete before their Capacity Block ends, as aws/karpenter-provider-aws
 * pkg/controllers/capacityreservation/expiration/controller.go `Reconcile` picks them: every
 * NodeClaim labelled with a capacity-reservation-id whose reservation is `expiring` (a Capacity
 * Block within 40 minutes of its end, CapacityReservationFromEC2; 10 minutes before EC2 starts
 * reclaiming its instances, in line with EC2's own interruption notice). Deleting one drains
 * its Node as any deletion does, so its pods move before EC2 takes the instance. NodeClaims
 * already being deleted are left alone. The reservations come from each NodeClaim's
 * EC2NodeClass's resolved status (Karpenter describes them by the NodeClaims' ids instead; a
 * block the EC2NodeClass no longer selects is not seen here, and EC2 reclaims its instances).
 */
export function expiringCapacityBlockClaims(
  nodeClaims: readonly NodeClaim[],
  statuses: ReadonlyMap<string, EC2NodeClassStatus>,
): ExpiringClaim[] {
  const out: ExpiringClaim[] = [];
  for (const claim of nodeClaims) {
    const id = claim.labels[LABEL_CAPACITY_RESERVATION_ID];
    if (id === undefined || claim.deletionTimestamp !== undefined) continue;
    const reservation = statuses
      .get(claim.spec.nodeClassRef.name)
      ?.capacityReservations?.find((r) => r.id === id);
    if (reservation?.state !== 'expiring') continue;
    out.push({
      nodeClaim: claim.name,
      capacityReservationId: id,
      ...(reservation.endTime === undefined ? {} : { endTime: reservation.endTime }),
    });
  }
  return out;
}
