import type { CapacityType } from '../model/capacity-type';
import type { Clock } from '../ports/time';
import { offeringKey } from './instance-type';

/** How long an offering stays unavailable after insufficient capacity or an interruption (Karpenter: 3 minutes). */
export const UNAVAILABLE_OFFERING_TTL_MS = 3 * 60 * 1000;

/**
 * The instance type and zone of an entry that marks a whole capacity type unavailable, so such
 * marks travel wherever offering entries are stored (the Lease annotation) unchanged.
 */
export const ANY = '*';

/** One unavailable offering and until when (epoch ms); instance type and zone {@link ANY} for a whole capacity type. */
export interface UnavailableOffering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly until: number;
  readonly reason: string;
}

/**
 * Whether an offering is in a set of {@link UnavailableOfferings.keys}: marked itself, or its
 * whole capacity type is (Karpenter's `IsUnavailable`, pkg/cache/unavailableofferings.go).
 */
export function isOfferingUnavailable(
  keys: ReadonlySet<string>,
  instanceType: string,
  zone: string,
  capacityType: CapacityType,
): boolean {
  return (
    keys.has(offeringKey(instanceType, zone, capacityType)) || keys.has(offeringKey(ANY, ANY, capacityType))
  );
}

/**
 * Offerings EC2 recently refused (insufficient capacity) or reclaimed (spot interruption),
 * skipped by the scheduler until their TTL passes, and, as in Karpenter's UnavailableOfferings,
 * whole capacity types (spot without its service-linked role) and subnets out of addresses.
 * Pure state with an injected clock: where it is persisted between Lambda invocations is the
 * adapters' business (see docs/architecture.md, "AWS adapters"). Subnet marks are not in {@link list}: they are kept only
 * where they were made, as Karpenter keeps them, and the next DescribeSubnets shows the subnet's
 * free addresses anyway.
 */
export class UnavailableOfferings {
  private readonly entries = new Map<string, UnavailableOffering>();
  private readonly subnetMarks = new Map<string, { readonly until: number; readonly reason: string }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = UNAVAILABLE_OFFERING_TTL_MS,
  ) {}

  /** Marks an offering unavailable for the TTL from now (extending an earlier mark). */
  mark(instanceType: string, zone: string, capacityType: CapacityType, reason: string): void {
    this.entries.set(offeringKey(instanceType, zone, capacityType), {
      instanceType,
      zone,
      capacityType,
      until: this.clock.now() + this.ttlMs,
      reason,
    });
  }

  /** Marks every offering of a capacity type unavailable for the TTL (Karpenter's `MarkCapacityTypeUnavailable`). */
  markCapacityType(capacityType: CapacityType, reason: string): void {
    this.mark(ANY, ANY, capacityType, reason);
  }

  /** Marks a subnet out of free addresses for the TTL (Karpenter's `MarkSubnetUnavailable`). */
  markSubnet(subnetId: string, reason: string): void {
    this.subnetMarks.set(subnetId, { until: this.clock.now() + this.ttlMs, reason });
  }

  /** Subnets marked out of addresses, without expired ones. */
  subnets(): ReadonlySet<string> {
    const now = this.clock.now();
    for (const [id, mark] of this.subnetMarks) if (mark.until <= now) this.subnetMarks.delete(id);
    return new Set(this.subnetMarks.keys());
  }

  /** Adds entries read back from storage; expired ones are dropped, later expiries win. */
  restore(entries: readonly UnavailableOffering[]): void {
    for (const e of entries) {
      const key = offeringKey(e.instanceType, e.zone, e.capacityType);
      const existing = this.entries.get(key);
      if (e.until > this.clock.now() && (!existing || existing.until < e.until)) this.entries.set(key, e);
    }
  }

  /**
   * The offeringKey set the scheduler takes, without expired entries; a whole capacity type is
   * the key of {@link ANY} type and zone: test offerings with {@link isOfferingUnavailable}.
   */
  keys(): ReadonlySet<string> {
    this.expire();
    return new Set(this.entries.keys());
  }

  /** Current entries, for persisting. */
  list(): UnavailableOffering[] {
    this.expire();
    return [...this.entries.values()];
  }

  private expire(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) if (e.until <= now) this.entries.delete(k);
  }
}
