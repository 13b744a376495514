import type { ClusterInfo } from '../model/cluster-info';
import type { NodeSelectorRequirement } from '../model/requirements';
import type { LaunchRequest } from './cloud';

/** A launch template ready for CreateFleet, and the instance types it serves. */
export interface LaunchTemplateRef {
  readonly launchTemplateName: string;
  readonly launchTemplateId?: string;
  /**
   * Which instance types may use it: the AMI's requirements (kubernetes.io/arch, GPU/Neuron
   * variants) plus `node.kubernetes.io/instance-type In [the types it serves]`.
   */
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly imageId: string;
}

/**
 * Ensures the launch templates a NodeClaim needs exist (one per resolved AMI configuration,
 * named by a hash of everything in it, created idempotently) and returns them.
 */
export interface LaunchTemplateProvider {
  ensure(request: LaunchRequest, cluster: ClusterInfo): Promise<readonly LaunchTemplateRef[]>;
  /** Forgets a template believed to exist (EC2 said it does not): the next ensure creates it again. */
  invalidate(launchTemplateName: string): void;
  /** Deletes this cluster's templates not in `inUse` (names or ids); returns the names deleted. */
  deleteUnreferenced(cluster: string, inUse: Iterable<string>): Promise<readonly string[]>;
}
