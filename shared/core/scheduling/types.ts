import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import type { Resources } from '../model/resources';
import type { Taint } from '../model/taints';
import type { DaemonSet, StateNode } from '../state/cluster-state';
import type { UnschedulablePod } from './unschedulable-reason';

/**
 * What provisioning plans from: the cluster's pending pods, DaemonSets, nodes (existing and
 * in-flight), NodePools and EC2NodeClasses. The instance types come from a catalog
 * (see plan-capacity.ts).
 */
export interface ProvisioningInput {
  readonly pods: readonly Pod[];
  readonly daemonSets: readonly DaemonSet[];
  readonly nodes: readonly StateNode[];
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
}

/** Everything the scheduler decides from. Plain data; nothing is read from anywhere else. */
export interface SchedulingInput extends ProvisioningInput {
  /**
   * Instance types per NodePool name, resolved for that NodePool's node class (allocatable
   * depends on its kubelet settings) with unavailable offerings marked.
   */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  /**
   * Nodes not in `nodes` that take no pods in this run but still count against their NodePools'
   * limits: nodes the run plans without that stay for a while yet (global consolidation's phased
   * step, whose candidates run beside its new nodes until they have moved).
   * @default none
   */
  readonly countedInLimits?: readonly StateNode[];
}

/** A pod placed on existing or in-flight capacity. */
export interface Placement {
  readonly node: string;
  readonly pods: readonly Pod[];
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
  /**
   * For a `reserved` NodeClaim: the capacity reservations it may launch into (Karpenter's
   * FinalizeScheduling pins `karpenter.k8s.aws/capacity-reservation-id In` them).
   */
  readonly reservationIds?: readonly string[];
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

/** What the scheduler decided. */
export interface SchedulingResult {
  readonly placements: readonly Placement[];
  readonly nodeClaims: readonly NodeClaimPlan[];
  readonly unschedulable: readonly UnschedulablePod[];
}
