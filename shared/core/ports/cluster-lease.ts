import type { UnavailableOffering } from '../catalog/unavailable-offerings';

/**
 * The per-cluster Lease, in core types: mutual exclusion between podlift's functions and the
 * place the unavailable offerings outlive an invocation. shared/kube implements both ports with
 * one coordination.k8s.io/v1 Lease (ClusterLease); loop tests and the simulator use fakes.
 */

/** Who holds the Lease after an {@link ClusterLeasePort.acquire}, and until when. */
export interface LeaseOutcome {
  /** Whether the caller holds it now. */
  readonly acquired: boolean;
  /** The holder now; undefined when nobody does. */
  readonly holder?: string;
  /** Epoch ms when the current hold lapses unless renewed (renewTime + leaseDurationSeconds). */
  readonly expiresAt?: number;
  /** How many times the holder changed (spec.leaseTransitions). */
  readonly transitions: number;
}

/**
 * Leader election on the cluster's Lease, with client-go's rules: a holder identity (e.g. the
 * function and its invocation) holds the Lease for a duration, renews by acquiring again before
 * it lapses, and anybody may take it over once it has lapsed on the injected clock. Of two
 * contenders exactly one wins.
 */
export interface ClusterLeasePort {
  /**
   * Takes the Lease for `holder` for `durationSeconds` when it is free or lapsed, renews it when
   * `holder` already holds it, and otherwise reports who does (`acquired: false`).
   */
  acquire(holder: string, durationSeconds: number): Promise<LeaseOutcome>;
  /**
   * Gives the Lease up if `holder` holds it, so the next contender need not wait for it to
   * lapse. @returns whether it was released; false when `holder` did not hold it.
   */
  release(holder: string): Promise<boolean>;
}

/**
 * The unavailable offerings (what EC2 recently refused or reclaimed) kept between invocations.
 * Expired entries are never returned; concurrent savers' entries are merged, the later expiry
 * winning per offering.
 */
export interface UnavailableOfferingsStore {
  /** The unexpired entries stored (none before anything was saved). */
  loadUnavailableOfferings(): Promise<UnavailableOffering[]>;
  /** Merges `entries` into what is stored; returns the unexpired set as stored. */
  saveUnavailableOfferings(entries: readonly UnavailableOffering[]): Promise<UnavailableOffering[]>;
}
