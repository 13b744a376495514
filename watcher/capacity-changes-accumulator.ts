import type { CapacityChangeReason, CapacityChangeTally } from '../shared/core/contracts/capacity-changed';
import { MAX_SAMPLE_NAMES } from '../shared/core/contracts/capacity-changed';
import type { HintAccumulator } from './hint-accumulator';

/** One observed reason for capacity to have changed, and the object concerned. */
export interface CapacityChange {
  readonly reason: CapacityChangeReason;
  /** `namespace/name` for pods, `name` otherwise. */
  readonly name: string;
}

/** Counts per reason, with up to {@link MAX_SAMPLE_NAMES} names each. */
export type CapacityChangesBatch = Readonly<Partial<Record<CapacityChangeReason, CapacityChangeTally>>>;

interface Tally {
  count: number;
  readonly names: Set<string>;
}

/** Accumulates capacity changes as counts per reason plus a few names: constant memory. */
export class CapacityChangesAccumulator implements HintAccumulator<CapacityChange, CapacityChangesBatch> {
  private tallies = new Map<CapacityChangeReason, Tally>();

  get isEmpty(): boolean {
    return this.tallies.size === 0;
  }

  add(change: CapacityChange): void {
    this.count(change.reason, 1, [change.name]);
  }

  drain(): CapacityChangesBatch {
    const batch: Partial<Record<CapacityChangeReason, CapacityChangeTally>> = {};
    for (const [reason, tally] of this.tallies)
      batch[reason] = { count: tally.count, names: [...tally.names] };
    this.tallies = new Map();
    return batch;
  }

  restore(batch: CapacityChangesBatch): void {
    const newer = this.tallies;
    this.tallies = new Map();
    for (const [reason, tally] of Object.entries(batch) as [CapacityChangeReason, CapacityChangeTally][])
      this.count(reason, tally.count, tally.names);
    for (const [reason, tally] of newer) this.count(reason, tally.count, tally.names);
  }

  sizeOf(batch: CapacityChangesBatch): number {
    return Object.values(batch).reduce((sum, tally) => sum + (tally?.count ?? 0), 0);
  }

  private count(reason: CapacityChangeReason, count: number, names: Iterable<string>): void {
    let tally = this.tallies.get(reason);
    if (!tally) {
      tally = { count: 0, names: new Set() };
      this.tallies.set(reason, tally);
    }
    tally.count += count;
    for (const name of names) {
      if (tally.names.size >= MAX_SAMPLE_NAMES) break;
      tally.names.add(name);
    }
  }
}
