import type { CapacityType } from '../model/capacity-type';
import type { Clock } from '../ports/time';
import { offeringKey } from './instance-type';

/** How long an offering stays unavailable after insufficient capacity or an interruption (Karpenter: 3 minutes). */
export const UNAVAILABLE_OFFERING_TTL_MS = 3 * 60 * 1000;

/** One unavailable offering and until when (epoch ms). */
export interface UnavailableOffering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly until: number;
  readonly reason: string;
}

/**
 * Offerings EC2 recently refused (insufficient capacity) or reclaimed (spot interruption),
 * skipped by the scheduler until their TTL passes. Pure state with an injected clock: where
 * it is persisted between Lambda invocations is the adapters' business (see README).
 */
export class UnavailableOfferings {
  private readonly entries = new Map<string, UnavailableOffering>();

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

  /** Adds entries read back from storage; expired ones are dropped, later expiries win. */
  restore(entries: readonly UnavailableOffering[]): void {
    for (const e of entries) {
      const key = offeringKey(e.instanceType, e.zone, e.capacityType);
      const existing = this.entries.get(key);
      if (e.until > this.clock.now() && (!existing || existing.until < e.until)) this.entries.set(key, e);
    }
  }

  /** The offeringKey set the scheduler takes, without expired entries. */
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
