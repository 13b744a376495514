import type { InstanceType } from '../../core/catalog/instance-type';
import type { ResolvedAmi } from '../../core/model/ec2nodeclass-status';
import { WELL_KNOWN_LABELS } from '../../core/model/labels';
import { Requirements } from '../../core/model/requirements';
import { PODS } from '../../core/model/resources';

/** Instance types that boot the same AMI with the same max pods, so they share a launch template. */
export interface AmiGroup {
  readonly ami: ResolvedAmi;
  /** The pods capacity of every type in the group (kubelet maxPods when the EC2NodeClass sets none). */
  readonly maxPods: number;
  /** Instance type names, in the order they were given (cheapest first). */
  readonly instanceTypes: readonly string[];
}

/**
 * Karpenter's `MapToInstanceTypes` and its max-pods grouping (amifamily/ami.go, resolver.go):
 * each instance type goes to the first AMI (newest first, deprecated last, as the status lists
 * them) whose requirements it meets, e.g. GPU types to the NVIDIA variant and arm64 types to
 * the arm64 image; the types of one AMI are split by pods capacity, because kubelet's maxPods
 * is part of the user data. Types no AMI serves are left out. Groups come in the order of
 * their first type.
 */
export function groupByAmi(amis: readonly ResolvedAmi[], instanceTypes: readonly InstanceType[]): AmiGroup[] {
  const amiRequirements = amis.map((ami) => ({ ami, requirements: Requirements.from(ami.requirements) }));
  const groups = new Map<string, { ami: ResolvedAmi; maxPods: number; instanceTypes: string[] }>();
  for (const it of instanceTypes) {
    const match = amiRequirements.find(
      ({ requirements }) => it.requirements.compatible(requirements, WELL_KNOWN_LABELS) === undefined,
    );
    if (match === undefined) continue;
    const maxPods = it.capacity[PODS] ?? 0;
    const key = `${match.ami.id}/${maxPods}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { ami: match.ami, maxPods, instanceTypes: [] };
      groups.set(key, group);
    }
    group.instanceTypes.push(it.name);
  }
  return [...groups.values()];
}
