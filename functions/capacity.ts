import type { NodeClaim } from '../shared/core/model/nodeclaim';
import type { NodeClaimPlan } from '../shared/core/scheduling/types';
import type { ClusterSnapshot } from '../shared/core/state/cluster-snapshot';
import type { Invocation } from './invocation';

/**
 * Adding capacity, the one executor every loop that needs new nodes goes through: the
 * provisioner for pending pods, the interruption loop for an interrupted node's pods, the
 * disruption loop for a command's replacements. Implemented by the provisioner
 * (functions/provisioner), so NodeClaims are always recorded before their instance is launched,
 * launched with the same ClientToken rules, and refused offerings handled the same way.
 */
export interface CapacityActions {
  /**
   * Records each plan as a NodeClaim (intent first), launches it, and records the launch on
   * it; on insufficient capacity marks the offerings and re-plans that NodeClaim's pods within
   * the invocation; a launch that fails for good deletes its NodeClaim with an Event saying why.
   */
  provision(
    plans: readonly NodeClaimPlan[],
    snapshot: ClusterSnapshot,
    invocation: Invocation,
    options?: ProvisionOptions,
  ): Promise<ProvisionOutcome[]>;
}

/** How the NodeClaims of a {@link CapacityActions.provision} call are marked. */
export interface ProvisionOptions {
  /** Extra annotations on every NodeClaim created (e.g. `podlift.dev/replaces: <command id>`). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Why the capacity is added, for log lines and Events (`pending pods`, `spot interruption`, …). */
  readonly reason?: string;
  /**
   * Whether a plan EC2 had no capacity for is planned again within the invocation. A
   * consolidation's replacement is not: planned again it could launch a dearer type than decided.
   * @default true
   */
  readonly replan?: boolean;
}

/** What happened to one plan. */
export type ProvisionOutcome =
  | { readonly plan: NodeClaimPlan; readonly launched: NodeClaim }
  | {
      readonly plan: NodeClaimPlan;
      readonly failed: string;
      readonly nodeClaim?: string;
      /** The NodeClaim stays and the next run launches it again (a transient error). */
      readonly retrying?: boolean;
    };
