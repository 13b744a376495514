import type { Clock, Timers } from '../shared/core/ports/time';
import { DueTimers } from './due-timers';
import type { NodeClaimDigest, NodePoolDigest } from './karpenter-object-hints';
import type { ObjectChange } from './reflector';

/**
 * One timer per NodeClaim that is not yet `Consolidatable`, set to when it becomes so: its
 * NodePool's consolidateAfter past its last pod event (or its initialization). Karpenter's
 * nodeclaim disruption controller requeues a NodeClaim for exactly that moment and sets the
 * condition then (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/consolidation.go
 * `Consolidation.Reconcile`, `RequeueAfter: consolidatableTime.Sub(c.clock.Now())`), and its
 * disruption controller looks for commands every 10 s (pkg/controllers/disruption/controller.go
 * `pollingPeriod`). podlift's disruption function sets the condition and decides when it runs,
 * which without this was the next one-minute tick: up to a minute after Karpenter would have
 * started the same command. The timer moves with the pod events the function records and with
 * the NodePool's consolidateAfter, and goes when the condition is set, the NodeClaim is deleting
 * or gone, or consolidation is off (`Never`); one already due (a restarted watcher) fires at once.
 */
export class ConsolidatableWakeups {
  private readonly timers: DueTimers;
  private readonly claims = new Map<string, NodeClaimDigest>();
  private readonly pools = new Map<string, NodePoolDigest>();

  constructor(
    clock: Clock,
    timers: Timers,
    /** Called with the NodeClaim's name when it is due. */ onDue: (name: string) => void,
  ) {
    this.timers = new DueTimers(clock, timers, onDue);
  }

  /** Follows a NodeClaim's pod events, initialization and condition. */
  observeNodeClaim(change: ObjectChange<NodeClaimDigest>): void {
    if (change.current) this.claims.set(change.key, change.current);
    else this.claims.delete(change.key);
    this.update(change.key);
  }

  /**
   * Follows a NodePool's consolidateAfter (cluster-scoped: its key is its name). Every NodeClaim
   * is due anew; those of other NodePools keep their due time, and so their timer.
   */
  observeNodePool(change: ObjectChange<NodePoolDigest>): void {
    if (change.current) this.pools.set(change.key, change.current);
    else this.pools.delete(change.key);
    for (const key of this.claims.keys()) this.update(key);
  }

  /** Clears every timer. */
  stop(): void {
    this.timers.stop();
  }

  private update(key: string): void {
    const claim = this.claims.get(key);
    this.timers.set(key, claim && this.dueAt(claim));
  }

  private dueAt(claim: NodeClaimDigest): number | undefined {
    if (claim.deleting || claim.quietSince === undefined || claim.nodePool === undefined) return undefined;
    if (claim.conditions.split(',').includes('Consolidatable=True')) return undefined;
    const after = this.pools.get(claim.nodePool)?.consolidateAfterMs;
    return after === undefined ? undefined : claim.quietSince + after;
  }
}
