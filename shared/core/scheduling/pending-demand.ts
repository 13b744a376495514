import { addInto, type MutableResources, type Resources } from '../model/resources';

/**
 * The requests of the pods still waiting to be placed in a scheduling run. New nodes are
 * sized for the average pending pod (see efficientOptions), which shifts as groups are placed.
 */
export class PendingDemand {
  private readonly total: MutableResources = {};
  private pods = 0;

  /** How many pods are still pending. */
  get count(): number {
    return this.pods;
  }

  /** Adds `n` pods with `requests` (negative `n`: they were placed or given up on). */
  add(requests: Resources, n: number): void {
    addInto(this.total, requests, n);
    this.pods += n;
  }

  /** The pending pods' average requests. */
  averagePod(): Resources {
    const average: MutableResources = {};
    for (const [k, v] of Object.entries(this.total)) {
      if (v > 0) average[k] = v / Math.max(1, this.pods);
    }
    return average;
  }
}
