import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import { isOfferingUnavailable } from '../catalog/unavailable-offerings';
import { LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE } from '../model/labels';
import { type NodeSelectorRequirement, Requirement, Requirements } from '../model/requirements';
import { fits, type Resources } from '../model/resources';
import { cheapestOffering } from '../scheduling/nodepool-context';
import type { NodeClaimPlan } from '../scheduling/types';

/**
 * At most this many instance types are written on a NodeClaim and sent to CreateFleet
 * (kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go `Schedule`:
 * `TruncateInstanceTypes(ctx, MaxInstanceTypes)`, 60 in its suite; the AWS provider's
 * instance.go `filterInstanceTypes` truncates to 60 again at launch).
 */
export const MAX_LAUNCH_OPTIONS = 60;

/**
 * A plan's NodeClaim requirements, as Karpenter's `NodeClaimTemplate.ToNodeClaim`
 * (pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go) writes them: the plan's
 * requirements, plus `node.kubernetes.io/instance-type In` its options' instance types (the
 * cheapest {@link MAX_LAUNCH_OPTIONS}, keeping any minValues) and
 * `karpenter.sh/capacity-type In` the capacity types of those options. A launch reads only
 * these (see {@link launchOptions}), so a NodeClaim launched again after a crash or a throttled
 * run launches one of the types it was planned for, never a type its pods do not fit.
 */
export function nodeClaimRequirements(plan: NodeClaimPlan): Requirements {
  const names = [...new Set(plan.instanceTypeOptions.map((o) => o.name))].slice(0, MAX_LAUNCH_OPTIONS);
  const capacityTypes = [...new Set(plan.instanceTypeOptions.map((o) => o.capacityType))];
  if (names.length === 0) return plan.requirements;
  return plan.requirements.with(
    Requirement.of(LABEL_INSTANCE_TYPE, 'In', names),
    Requirement.of(LABEL_CAPACITY_TYPE, 'In', capacityTypes),
    // A reserved NodeClaim launches only into the reservations it was promised (Karpenter's
    // nodeclaim.go FinalizeScheduling), so two NodeClaims never count on one free slot.
    ...(plan.reservationIds === undefined
      ? []
      : [Requirement.of(LABEL_CAPACITY_RESERVATION_ID, 'In', plan.reservationIds)]),
  );
}

/**
 * What a NodeClaim may launch as, read from its requirements and requests alone, as the AWS
 * provider's instance.go `filterInstanceTypes` (`CompatibleAvailableFilter`) and
 * `cloudprovider.InstanceTypes.Truncate` do: the instance types compatible with the
 * requirements (instance type, zone, capacity type and every other label), whose allocatable
 * holds the requests, with an available offering the requirements allow; one option per type
 * (its cheapest such offering), cheapest first (`OrderByPrice`), at most
 * {@link MAX_LAUNCH_OPTIONS}. Every launch, the first and one after a crash, and a static
 * NodePool's, takes its CreateFleet overrides from these.
 */
export function launchOptions(
  selector: readonly NodeSelectorRequirement[],
  requests: Resources,
  instanceTypes: readonly InstanceType[],
  unavailable: ReadonlySet<string>,
): InstanceTypeOption[] {
  const requirements = Requirements.from(selector);
  const options: InstanceTypeOption[] = [];
  for (const type of instanceTypes) {
    if (requirements.intersects(type.requirements) !== undefined) continue;
    if (!fits(requests, {}, type.allocatable)) continue;
    const usable: InstanceType = {
      ...type,
      offerings: type.offerings.filter(
        (o) => !isOfferingUnavailable(unavailable, type.name, o.zone, o.capacityType),
      ),
    };
    const o = cheapestOffering(usable, requirements);
    if (o) options.push({ name: type.name, price: o.price, capacityType: o.capacityType, zone: o.zone });
  }
  // One option per type, so names never tie.
  return options.sort((a, b) => a.price - b.price || (a.name < b.name ? -1 : 1)).slice(0, MAX_LAUNCH_OPTIONS);
}
