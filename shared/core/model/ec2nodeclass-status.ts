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
 * What an EC2NodeClass resolved to, in the shape of Karpenter's EC2NodeClass status (so it
 * can be written back as `status` and explain itself in `kubectl get ec2nodeclass -o yaml`).
 */
export interface EC2NodeClassStatus {
  readonly subnets: readonly ResolvedSubnet[];
  readonly securityGroups: readonly ResolvedSecurityGroup[];
  /** Newest first, deprecated last. */
  readonly amis: readonly ResolvedAmi[];
  readonly instanceProfile?: string;
  /** The placement group instances launch into, when spec.placementGroupSelector found one. */
  readonly placementGroup?: ResolvedPlacementGroup;
  /** SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady, Ready. */
  readonly conditions: readonly Condition[];
}

/** Whether a resolved node class can launch (its Ready condition is True). */
export function nodeClassReady(status: EC2NodeClassStatus): boolean {
  return status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}
