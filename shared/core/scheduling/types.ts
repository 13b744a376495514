import type { CapacityType } from '../capacity-type';
import type { EC2NodeClass } from '../ec2nodeclass';
import type { InstanceType } from '../instance-type';
import type { NodePool } from '../nodepool';
import type { Pod } from '../pod';
import type { Requirements } from '../requirements';
import type { Resources } from '../resources';
import type { Taint } from '../taints';

/** A DaemonSet, reduced to the pod it would run on every eligible node. */
export interface DaemonSet {
  readonly namespace: string;
  readonly name: string;
  readonly pod: Pod;
}

/**
 * Capacity that already exists or is being created: a registered Node, or an in-flight
 * NodeClaim not yet registered (its labels are those its requirements pin, its allocatable
 * the smallest among its instance type options).
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
  /** Pods bound (or, for in-flight claims, nominated) to it, DaemonSet pods included. */
  readonly pods: readonly Pod[];
  /** The NodePool it belongs to (label karpenter.sh/nodepool), if Karpenter-managed. */
  readonly nodePool?: string;
  /** Cordoned or being deleted: takes no new pods, but its pods still count for topology. */
  readonly unschedulable?: boolean;
}

/** Everything the scheduler decides from. Plain data; nothing is read from anywhere else. */
export interface SchedulingInput {
  readonly pods: readonly Pod[];
  readonly daemonSets: readonly DaemonSet[];
  readonly nodes: readonly StateNode[];
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
  /**
   * Instance types per NodePool name, resolved for that NodePool's node class (allocatable
   * depends on its kubelet settings) with unavailable offerings marked.
   */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
}

/** A pod placed on existing or in-flight capacity. */
export interface Placement {
  readonly node: string;
  readonly pods: readonly Pod[];
}

/** One instance type a new NodeClaim may launch as, with its cheapest allowed offering. */
export interface InstanceTypeOption {
  readonly name: string;
  readonly price: number;
  readonly capacityType: CapacityType;
  readonly zone: string;
}

/** A NodeClaim the scheduler wants created. */
export interface NodeClaimPlan {
  readonly nodePool: string;
  readonly nodeClass: string;
  /** Cheapest first, at most 60. */
  readonly instanceTypeOptions: readonly InstanceTypeOption[];
  /** The option expected to launch: the cheapest available one. */
  readonly instanceType: string;
  readonly capacityType: CapacityType;
  readonly capacityTypes: readonly CapacityType[];
  readonly zone: string;
  /** Zones the NodeClaim's requirements allow. */
  readonly zones: readonly string[];
  /** USD per hour of the expected option. */
  readonly price: number;
  /** Final requirements (NodePool ∩ pods), recorded on the NodeClaim. */
  readonly requirements: Requirements;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly startupTaints: readonly Taint[];
  /** Pods it was sized for. */
  readonly pods: readonly Pod[];
  /** Pod requests plus DaemonSet overhead. */
  readonly requests: Resources;
  readonly daemonSetRequests: Resources;
}

export interface UnschedulablePod {
  readonly pod: Pod;
  readonly reason: string;
}

/** What the scheduler decided. */
export interface SchedulingResult {
  readonly placements: readonly Placement[];
  readonly nodeClaims: readonly NodeClaimPlan[];
  readonly unschedulable: readonly UnschedulablePod[];
}
