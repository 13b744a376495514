import type { NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import type { CloudInstance } from '../ports/cloud';
import type { ConditionUpdate, PodRef, VolumeAttachment } from '../ports/cluster';
import type { EventInput } from '../ports/cluster-events';
import type { StateNode } from '../state/cluster-state';

/**
 * What termination decides from and what it decides (decide.ts), shared by the decision's files
 * so that they import each other in one direction only.
 */

/** A pod to delete before the node's termination time, with the grace period it is granted. */
export interface ForcedPodDelete extends PodRef {
  readonly gracePeriodSeconds: number;
}

/** One thing to do. */
export type TerminationAction =
  | { readonly kind: 'delete-nodeclaim'; readonly nodeClaim: string; readonly reason: string }
  /** Taint `karpenter.sh/disrupted:NoSchedule` and label the node out of external load balancers. */
  | { readonly kind: 'taint-node'; readonly node: string }
  | { readonly kind: 'set-termination-time'; readonly nodeClaim: string; readonly at: string }
  /** Evict through the Eviction API; `reason` completes each accepted pod's `Evicted` Event. */
  | {
      readonly kind: 'evict';
      readonly node: string;
      readonly pods: readonly PodRef[];
      readonly reason: string;
    }
  | { readonly kind: 'delete-pods'; readonly node: string; readonly pods: readonly ForcedPodDelete[] }
  | {
      readonly kind: 'set-conditions';
      readonly nodeClaim: string;
      readonly conditions: readonly ConditionUpdate[];
    }
  | { readonly kind: 'record-event'; readonly event: EventInput }
  | {
      readonly kind: 'terminate-instance';
      readonly nodeClaim?: string;
      readonly instanceId: string;
      readonly reason: string;
    }
  | { readonly kind: 'finish'; readonly nodeClaim?: string; readonly node?: string };

/** What termination decides from. */
export interface TerminationInput {
  readonly now: number;
  readonly nodes: readonly StateNode[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodePools: readonly NodePool[];
  /** The cluster's instances that are not terminated (shutting-down ones included). */
  readonly instances: readonly CloudInstance[];
  /** VolumeAttachments (read while a NodeClaim is being deleted; none when absent). */
  readonly volumeAttachments?: readonly VolumeAttachment[];
  /**
   * `namespace/claim` → bound PersistentVolume, read when `needsClaimedVolumes` (node-termination.ts) says so;
   * without it no attachment is recognised as a non-drained pod's.
   */
  readonly claimedVolumes?: ReadonlyMap<string, string>;
  /**
   * NodeClaims that exist but could not be read (they did not validate): their instances are
   * owned, not orphans. None when absent.
   */
  readonly unreadableNodeClaims?: ReadonlySet<string>;
}
