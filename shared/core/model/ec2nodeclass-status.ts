import type { Condition } from './nodeclaim';
import type { NodeSelectorRequirement } from './requirements';

/** A subnet an EC2NodeClass resolved to. */
export interface ResolvedSubnet {
  readonly id: string;
  readonly zone: string;
  readonly zoneID?: string;
  readonly availableIpAddressCount: number;
}

export interface ResolvedSecurityGroup {
  readonly id: string;
  readonly name?: string;
}

/** An AMI with the requirements of the instance types it serves (arch, GPU/Neuron variants). */
export interface ResolvedAmi {
  readonly id: string;
  readonly name?: string;
  readonly creationDate?: string;
  readonly deprecated: boolean;
  readonly requirements: readonly NodeSelectorRequirement[];
}

/**
 * The placement group spec.placementGroupSelector resolved to (Karpenter's placementgroup.
 * PlacementGroup in aws/karpenter-provider-aws pkg/providers/placementgroup/types.go).
 */
export interface ResolvedPlacementGroup {
  readonly id: string;
  readonly name: string;
  readonly strategy: 'cluster' | 'partition' | 'spread';
  /** Partition groups only. */
  readonly partitionCount?: number;
  /** Spread groups only: rack or host. */
  readonly spreadLevel?: string;
}

/**
 * A capacity reservation capacityReservationSelectorTerms resolved to, in the shape of
 * Karpenter's status.capacityReservations (aws/karpenter-provider-aws pkg/apis/v1/
 * ec2nodeclass_status.go CapacityReservation, CapacityReservationFromEC2), plus the count EC2
 * said was still free.
 */
export interface ResolvedCapacityReservation {
  readonly id: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly ownerID: string;
  readonly instanceMatchCriteria: 'open' | 'targeted';
  readonly reservationType: 'default' | 'capacity-block';
  /** `expiring` within 40 minutes of a capacity block's end. */
  readonly state: 'active' | 'expiring';
  readonly interruptible: boolean;
  /** RFC 3339, when the reservation ends. */
  readonly endTime?: string;
  readonly availableInstanceCount: number;
}

/**
 * What an EC2NodeClass resolved to, in the shape of Karpenter's EC2NodeClass status (so it
 * can be written back as `status` and explain itself in `kubectl get ec2nodeclass -o yaml`).
 */
export interface EC2NodeClassStatus {
  readonly subnets: readonly ResolvedSubnet[];
  readonly securityGroups: readonly ResolvedSecurityGroup[];
  /** Newest first, deprecated last. */
  readonly amis: readonly ResolvedAmi[];
  readonly instanceProfile?: string;
  /**
   * What capacityReservationSelectorTerms resolved to, sorted by id; undefined without terms
   * (and an empty list when terms were removed, so the status written clears the old one).
   */
  readonly capacityReservations?: readonly ResolvedCapacityReservation[];
  /** The placement group instances launch into, when spec.placementGroupSelector found one. */
  readonly placementGroup?: ResolvedPlacementGroup;
  /** SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady, Ready. */
  readonly conditions: readonly Condition[];
}

/** Whether a resolved node class can launch (its Ready condition is True). */
export function nodeClassReady(status: EC2NodeClassStatus): boolean {
  return status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}
