import type { ClusterInfo } from '../core/cluster-info';
import type { LaunchRequest } from '../core/ports';
import type { NodeSelectorRequirement } from '../core/requirements';

/** A launch template ready for CreateFleet, and the instance types it serves. */
export interface LaunchTemplateRef {
  readonly launchTemplateName: string;
  readonly launchTemplateId?: string;
  /** Which instance types may use it (kubernetes.io/arch, GPU/Neuron AMI variants). */
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly imageId: string;
}

/**
 * Ensures the launch templates a NodeClaim needs exist (one per resolved AMI configuration,
 * named by a hash of everything in it, created idempotently) and returns them.
 */
export interface LaunchTemplateProvider {
  ensure(request: LaunchRequest, cluster: ClusterInfo): Promise<readonly LaunchTemplateRef[]>;
}
