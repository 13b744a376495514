import type { OfferingReservation } from '../catalog/instance-type';

/**
 * The capacity reservations one scheduling run has promised to NodeClaims, so it never plans
 * more NodeClaims into a reservation than the free count resolution keeps: Karpenter's
 * ReservationManager (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/
 * reservationmanager.go `CanReserve` / `Reserve`), which a NodeClaim reserves every compatible
 * reserved offering in, pessimistically, since any of them may be the one it launches into.
 * One per run; nothing is given back within it (Karpenter releases only when a NodeClaim's
 * options narrow, which podlift's scheduler never does after choosing).
 */
export class ReservationLedger {
  private readonly taken = new Map<string, number>();

  /** Instances `reservation` can still take in this run. */
  remaining(reservation: OfferingReservation): number {
    return reservation.capacity - (this.taken.get(reservation.id) ?? 0);
  }

  /** Promises one instance of each reservation to a NodeClaim. */
  take(ids: Iterable<string>): void {
    for (const id of new Set(ids)) this.taken.set(id, (this.taken.get(id) ?? 0) + 1);
  }
}
