import {
  LABEL_INSTANCE_TENANCY,
  LABEL_PLACEMENT_GROUP_ID,
  LABEL_PLACEMENT_GROUP_PARTITION,
} from '../../core/model/labels';
import { Requirements } from '../../core/model/requirements';
import type { LaunchRequest } from '../../core/ports/cloud';
import { launchPartition, launchTenancy } from '../launch-templates/launch-template-data';

/**
 * The labels a launch gives its NodeClaim beyond the instance type's, as Karpenter's
 * cloudprovider.go instanceToNodeClaim sets them from the instance it launched: the tenancy it
 * launched with (`karpenter.k8s.aws/instance-tenancy`, `default` unless the NodeClaim allows
 * only dedicated), and for a node class with a resolved placement group its id
 * (`karpenter.k8s.aws/placement-group-id`) and, when the NodeClaim chose one, the partition
 * (`karpenter.k8s.aws/placement-group-partition`). The same derivations the launch template
 * is built from ({@link launchTenancy}, {@link launchPartition}), so label and launch agree.
 */
export function launchLabels(request: LaunchRequest): Record<string, string> {
  const requirements = Requirements.from(request.nodeClaim.spec.requirements);
  const tenancy = requirements.get(LABEL_INSTANCE_TENANCY);
  const group = request.resolved.placementGroup;
  const partition = launchPartition(group, request.nodeClaim.spec.requirements);
  return {
    [LABEL_INSTANCE_TENANCY]: launchTenancy((t) => tenancy?.has(t) ?? true),
    ...(group === undefined ? {} : { [LABEL_PLACEMENT_GROUP_ID]: group.id }),
    ...(partition === undefined ? {} : { [LABEL_PLACEMENT_GROUP_PARTITION]: String(partition) }),
  };
}
