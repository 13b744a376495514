import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import { offeringKey } from '../catalog/instance-type';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../model/labels';
import { type NodeSelectorRequirement, Requirements } from '../model/requirements';

/** CreateFleet takes at most this many overrides; Karpenter truncates its options to 60 too. */
export const MAX_LAUNCH_OPTIONS = 60;

/**
 * The launch options requirements allow, cheapest first: every available offering of the
 * instance types they admit, in the zones and capacity types they admit. What the provisioner
 * launches a NodeClaim with when it finds one recorded but not launched (a crashed or throttled
 * run: the claim's requirements are the plan, as in Karpenter, where the cloud provider launches
 * from the NodeClaim alone), and what a static NodePool's nodes launch as.
 */
export function launchOptions(
  selector: readonly NodeSelectorRequirement[],
  instanceTypes: readonly InstanceType[],
  unavailable: ReadonlySet<string>,
): InstanceTypeOption[] {
  const requirements = Requirements.from(selector);
  const typeReq = requirements.get(LABEL_INSTANCE_TYPE);
  const zoneReq = requirements.get(LABEL_ZONE);
  const capacityReq = requirements.get(LABEL_CAPACITY_TYPE);
  const options: InstanceTypeOption[] = [];
  for (const type of instanceTypes) {
    if (typeReq && !typeReq.has(type.name)) continue;
    for (const o of type.offerings) {
      if (!o.available || unavailable.has(offeringKey(type.name, o.zone, o.capacityType))) continue;
      if (zoneReq && !zoneReq.has(o.zone)) continue;
      if (capacityReq && !capacityReq.has(o.capacityType)) continue;
      options.push({ name: type.name, price: o.price, capacityType: o.capacityType, zone: o.zone });
    }
  }
  return options
    .sort((a, b) => a.price - b.price || a.name.localeCompare(b.name))
    .slice(0, MAX_LAUNCH_OPTIONS);
}
