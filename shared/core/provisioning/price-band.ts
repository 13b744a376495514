import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import type { Requirements } from '../model/requirements';
import type { NodeClaimPlan } from '../scheduling/types';

/**
 * podlift's launch price band (a NodePool's `podlift.dev/launch-price-band` annotation; issue 23).
 * Karpenter hands CreateFleet every instance type a NodeClaim allows, up to 60, and for spot
 * `price-capacity-optimized`, which takes the pools with the deepest spare capacity before the
 * cheapest (aws/karpenter-provider-aws pkg/providers/instance/types.go
 * `CreateFleetInputBuilder.Build`), so a NodeClaim the planner sized as its cheapest option often
 * runs as a dearer one. Its single-node spot-to-spot consolidation takes such a node back only
 * with 15 cheaper types to launch (consolidation.go `computeSpotToSpotConsolidation`), and
 * podlift's global step takes it back by moving its pods: an eviction for each pod, for what the
 * launch could have avoided.
 *
 * With a band, a NodeClaim carries only the options priced within the band above the cheapest
 * option of their capacity type (each at its cheapest allowed offering, as the options are), and
 * as many more, cheapest first, as the requirements' minValues need. EC2 still picks among them,
 * in every zone the requirements allow; fewer pools is what the band costs (a shallow pool is
 * interrupted more often, which the simulator does not model).
 */
export function withinPriceBand(
  plan: NodeClaimPlan,
  band: number | undefined,
  types: ReadonlyMap<string, InstanceType>,
): NodeClaimPlan {
  if (band === undefined) return plan;
  const cheapest = new Map<string, number>();
  for (const o of plan.instanceTypeOptions)
    cheapest.set(o.capacityType, Math.min(cheapest.get(o.capacityType) ?? o.price, o.price));
  const inBand = (o: InstanceTypeOption) => o.price <= (cheapest.get(o.capacityType) ?? o.price) * (1 + band);
  const kept = new Set(plan.instanceTypeOptions.filter(inBand));
  widenForMinValues(plan.instanceTypeOptions, kept, plan.requirements, types);
  if (kept.size === plan.instanceTypeOptions.length) return plan;
  return { ...plan, instanceTypeOptions: plan.instanceTypeOptions.filter((o) => kept.has(o)) };
}

/**
 * Adds to `kept`, cheapest first, the options each requirement's minValues still needs: for each
 * such key, the cheapest option of a value `kept` lacks, until it has minValues values (as
 * `truncateKeepingMinValues` picks them at the 60-type cut; cloudprovider/types.go
 * `SatisfiesMinValues`).
 */
function widenForMinValues(
  options: readonly InstanceTypeOption[],
  kept: Set<InstanceTypeOption>,
  requirements: Requirements,
  types: ReadonlyMap<string, InstanceType>,
): void {
  const valuesOf = (o: InstanceTypeOption, key: string): readonly string[] => {
    const r = types.get(o.name)?.requirements.get(key);
    return r && !r.complement ? [...r.values] : [];
  };
  for (const r of requirements.values()) {
    if (r.minValues === undefined) continue;
    const have = new Set([...kept].flatMap((o) => valuesOf(o, r.key)));
    for (const o of options) {
      if (have.size >= r.minValues) break;
      const values = valuesOf(o, r.key);
      if (kept.has(o) || values.every((v) => have.has(v))) continue;
      kept.add(o);
      for (const v of values) have.add(v);
    }
  }
}
