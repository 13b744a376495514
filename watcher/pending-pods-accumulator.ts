import type { PendingPodRef } from '../shared/core/contracts/pods-pending';
import type { HintAccumulator } from './hint-accumulator';

/** Pods that became unschedulable: the first `limit` distinct ones, and how many in all. */
export interface PendingPodsBatch {
  readonly pods: readonly PendingPodRef[];
  /** Every transition collected (distinct pods up to the limit, all of them beyond it). */
  readonly total: number;
}

/** Default number of pods kept by name; an event carries fewer anyway (about 2,000). */
export const DEFAULT_PENDING_POD_LIMIT = 5000;

/** Accumulates pods that became unschedulable, once per uid, up to a limit. */
export class PendingPodsAccumulator implements HintAccumulator<PendingPodRef, PendingPodsBatch> {
  private pods = new Map<string, PendingPodRef>();
  private overflow = 0;

  constructor(private readonly limit: number = DEFAULT_PENDING_POD_LIMIT) {}

  get isEmpty(): boolean {
    return this.pods.size === 0 && this.overflow === 0;
  }

  add(pod: PendingPodRef): void {
    if (this.pods.has(pod.uid)) return;
    if (this.pods.size < this.limit) this.pods.set(pod.uid, pod);
    else this.overflow++;
  }

  drain(): PendingPodsBatch {
    const batch = { pods: [...this.pods.values()], total: this.pods.size + this.overflow };
    this.pods = new Map();
    this.overflow = 0;
    return batch;
  }

  restore(batch: PendingPodsBatch): void {
    const newer = this.pods;
    let overflow = this.overflow + (batch.total - batch.pods.length);
    this.pods = new Map();
    for (const pod of batch.pods) this.pods.set(pod.uid, pod);
    for (const pod of newer.values()) {
      if (this.pods.has(pod.uid)) continue;
      if (this.pods.size < this.limit) this.pods.set(pod.uid, pod);
      else overflow++;
    }
    this.overflow = overflow;
  }

  sizeOf(batch: PendingPodsBatch): number {
    return batch.total;
  }
}
