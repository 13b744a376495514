import type { LabelSelector } from '../model/label-selector';
import type { Pod } from '../model/pod';
import type { NodeSelectorRequirement } from '../model/requirements';
import type { Resources } from '../model/resources';
import type { Taint } from '../model/taints';

/**
 * Cluster state as the control loops read it: nodes and in-flight NodeClaims with their pods,
 * DaemonSets and PodDisruptionBudgets, in core types. The scheduler, consolidation and
 * termination all decide from these.
 */

/** A DaemonSet, reduced to the pod it would run on every eligible node. */
export interface DaemonSet {
  readonly namespace: string;
  readonly name: string;
  readonly pod: Pod;
}

/** A core/v1 NodeCondition as node repair reads it. */
export interface NodeCondition {
  readonly type: string;
  /** True, False or Unknown. */
  readonly status: string;
  /** RFC 3339. */
  readonly lastTransitionTime?: string;
}

/**
 * Capacity that already exists or is being created: a registered Node, or an in-flight
 * NodeClaim not yet registered (its labels are those its requirements pin, its allocatable
 * what its launch recorded, or its requests while no launch is recorded).
 */
export interface StateNode {
  readonly kind: 'node' | 'nodeclaim';
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Taints that apply to scheduling (for in-flight claims: not the startup taints). */
  readonly taints: readonly Taint[];
  readonly allocatable: Resources;
  /** What counts against NodePool limits (Karpenter counts capacity); defaults to allocatable. */
  readonly capacity?: Resources;
  /**
   * Set on a NodeClaim whose launch is not recorded yet: the requirements it launches under
   * (instance type options among them). Which type it becomes is not known, so its NodePool's
   * limits count the largest type they allow (scheduling/nodepool-context.ts), as the scheduler
   * reserved when it created the claim.
   */
  readonly launchRequirements?: readonly NodeSelectorRequirement[];
  /** Pods bound (or, for in-flight claims, nominated) to it, DaemonSet pods included. */
  readonly pods: readonly Pod[];
  /** The NodePool it belongs to (label karpenter.sh/nodepool), if Karpenter-managed. */
  readonly nodePool?: string;
  /** Cordoned or being deleted: takes no new pods, but its pods still count for topology. */
  readonly unschedulable?: boolean;
  /** spec.providerID (`aws:///<zone>/<instance-id>`), which ties a Node to its NodeClaim. */
  readonly providerID?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  /** The Ready condition is True. */
  readonly ready?: boolean;
  /** status.conditions, when it reports any: what node repair reads (Ready, the node monitoring agent's). */
  readonly conditions?: readonly NodeCondition[];
  /** RFC 3339 metadata.creationTimestamp. */
  readonly creationTimestamp?: string;
  /** metadata.deletionTimestamp is set (it is also `unschedulable`). */
  readonly deleting?: boolean;
  /** metadata.finalizers. */
  readonly finalizers?: readonly string[];
}

/**
 * A policy/v1 PodDisruptionBudget as disruption planning needs it: whom it selects and how many
 * of them may go now, per the disruption controller's `.status`.
 */
export interface PodDisruptionBudget {
  readonly namespace: string;
  readonly name: string;
  /** Absent selects no pods; `{}` selects every pod of the namespace (policy/v1). */
  readonly selector?: LabelSelector;
  /** A count or a percentage, as written. */
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
  /** `IfHealthyBudget` (default) or `AlwaysAllow`. */
  readonly unhealthyPodEvictionPolicy?: string;
  /** How many selected pods may be disrupted now (0 until the controller has computed it). */
  readonly disruptionsAllowed: number;
  readonly currentHealthy: number;
  readonly desiredHealthy: number;
  readonly expectedPods: number;
}
