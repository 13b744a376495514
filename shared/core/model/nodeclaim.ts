import type { CapacityType } from './capacity-type';
import type { NodeClassRef } from './nodepool';
import type { NodeSelectorRequirement } from './requirements';
import type { Resources } from './resources';
import type { Taint } from './taints';

/** Condition types on a NodeClaim's status, as Karpenter writes them. */
export type NodeClaimConditionType =
  | 'Launched'
  | 'Registered'
  | 'Initialized'
  | 'Drifted'
  | 'Empty'
  | 'Consolidatable'
  | 'Disrupted'
  | 'DisruptionReason'
  | 'Expired'
  | 'ConsistentStateFound'
  | 'Drained'
  | 'VolumesDetached'
  | 'InstanceTerminating'
  | 'DisruptionReason'
  | 'Ready';

/** A metav1.Condition. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  /** RFC 3339. */
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/**
 * A karpenter.sh/v1 NodeClaim: the intent to have one node, recorded before the instance is
 * launched, so a retried or crashed launch never leaves an instance nobody asked for.
 */
export interface NodeClaim {
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly finalizers: readonly string[];
  /** RFC 3339; set when deletion was requested. */
  readonly deletionTimestamp?: string;
  readonly creationTimestamp?: string;
  readonly spec: {
    readonly nodeClassRef: NodeClassRef;
    /** Instance type options, zones and capacity types are requirements, as in Karpenter. */
    readonly requirements: readonly NodeSelectorRequirement[];
    readonly resources: { readonly requests: Resources };
    readonly taints: readonly Taint[];
    readonly startupTaints: readonly Taint[];
    readonly expireAfter?: string;
    readonly terminationGracePeriod?: string;
  };
  readonly status: NodeClaimStatus;
}

export interface NodeClaimStatus {
  /** `aws:///<zone>/<instance-id>` once launched. */
  readonly providerID?: string;
  readonly imageID?: string;
  readonly nodeName?: string;
  readonly capacity?: Resources;
  readonly allocatable?: Resources;
  readonly conditions?: readonly Condition[];
  readonly lastPodEventTime?: string;
}

/** Whether the NodeClaim's condition `type` is True (Launched, Registered, Initialized, …). */
export function conditionIsTrue(
  claim: Pick<NodeClaim, 'status'>,
  type: NodeClaimConditionType | string,
): boolean {
  return claim.status.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/** What a launch produced, to be recorded on the NodeClaim. */
export interface LaunchedInstance {
  readonly instanceId: string;
  readonly providerID: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly imageID?: string;
  readonly privateDnsName?: string;
  /** The capacity reservation a `reserved` instance runs in. */
  readonly capacityReservationId?: string;
  /**
   * Labels the launch knows beyond the instance type's: the tenancy it launched with, and its
   * placement group and partition (Karpenter's instanceToNodeClaim).
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** `aws:///us-east-1a/i-0123` → instance id and zone. */
export function parseProviderID(providerID: string): { zone: string; instanceId: string } | undefined {
  const m = /^aws:\/\/\/([^/]+)\/(i-[0-9a-f]+)$/.exec(providerID);
  return m ? { zone: m[1], instanceId: m[2] } : undefined;
}

export function providerID(zone: string, instanceId: string): string {
  return `aws:///${zone}/${instanceId}`;
}

/** Finalizer podlift puts on NodeClaims and Nodes so it can drain and terminate first. */
export const TERMINATION_FINALIZER = 'karpenter.sh/termination';
