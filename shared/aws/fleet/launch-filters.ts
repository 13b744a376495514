import { HABANA_GAUDI } from '../../core/catalog/allocatable';
import type { InstanceType, Offering } from '../../core/catalog/instance-type';
import { AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU } from '../../core/model/resources';

/**
 * Karpenter's launch-time instance type filters (aws/karpenter-provider-aws
 * pkg/providers/instance/filter/filter.go, applied in that order by `filterInstanceTypes` in
 * pkg/providers/instance/instance.go before the capacity type is chosen): what the scheduler
 * allowed is narrowed to what a launch should actually buy. The capacity-reservation filters
 * (CapacityReservationTypeFilter, CapacityBlockFilter, ReservedOfferingFilter) have no
 * counterpart here: a reserved launch asks for one reservation (fleet-plan.ts
 * `cheapestReservation`), so there is nothing of another reservation type to filter out.
 */

/** Extended resources that make an instance type exotic (Karpenter's list). */
const EXOTIC_RESOURCES: readonly string[] = [NEURON, NEURON_CORE, AMD_GPU, NVIDIA_GPU, HABANA_GAUDI];

/** What the filters judge offerings by. */
export interface LaunchFilterContext {
  /** Whether some requirement of the NodeClaim carries minValues (Karpenter's `HasMinValues`). */
  readonly hasMinValues: boolean;
  /** Whether the NodeClaim allows both spot and on-demand. */
  readonly allowsSpotAndOnDemand: boolean;
  /** Whether an offering is compatible with the NodeClaim (zone, capacity type, a subnet) and available. */
  readonly usable: (instanceType: InstanceType, offering: Offering) => boolean;
}

/** Which of Karpenter's filters removed an instance type, for logs and tests. */
export type LaunchFilterName = 'exotic-instance-filter' | 'spot-offering-filter';

/** The instance types to launch from, and those the filters removed. */
export interface LaunchFilterResult {
  readonly kept: readonly InstanceType[];
  readonly rejected: ReadonlyArray<{ readonly instanceType: string; readonly filter: LaunchFilterName }>;
}

/**
 * Applies the exotic-instance filter, then the spot-offering filter. Instance types without a
 * usable offering are left alone (CompatibleAvailableFilter's job is done by the fleet plan,
 * which reports why each of their offerings was skipped), but only usable offerings count when
 * the filters decide.
 */
export function applyLaunchFilters(
  types: readonly InstanceType[],
  context: LaunchFilterContext,
): LaunchFilterResult {
  const rejected: Array<{ instanceType: string; filter: LaunchFilterName }> = [];
  const afterExotic = exoticInstanceFilter(types, context);
  for (const it of afterExotic.rejected)
    rejected.push({ instanceType: it.name, filter: 'exotic-instance-filter' });
  const afterSpot = spotOfferingFilter(afterExotic.kept, context);
  for (const it of afterSpot.rejected)
    rejected.push({ instanceType: it.name, filter: 'spot-offering-filter' });
  return { kept: afterSpot.kept, rejected };
}

/** Karpenter's exotic rule: bare metal (`metal` in the size) or any GPU / Neuron / Gaudi capacity. */
export function isExoticInstanceType(instanceType: InstanceType): boolean {
  if (instanceType.info.size.includes('metal')) return true;
  return EXOTIC_RESOURCES.some((resource) => (instanceType.capacity[resource] ?? 0) > 0);
}

/**
 * ExoticInstanceTypeFilter: without minValues, drops metal, GPU and accelerator types as long
 * as a generic type with a usable offering remains, so they are launched only when the pods
 * asked for them (then only they are options) or nothing else is available.
 */
export function exoticInstanceFilter(
  types: readonly InstanceType[],
  context: LaunchFilterContext,
): { kept: readonly InstanceType[]; rejected: readonly InstanceType[] } {
  if (context.hasMinValues) return { kept: types, rejected: [] };
  const usableTypes = types.filter((it) => it.offerings.some((o) => context.usable(it, o)));
  if (!usableTypes.some((it) => !isExoticInstanceType(it))) return { kept: types, rejected: [] };
  return {
    kept: types.filter((it) => !isExoticInstanceType(it)),
    rejected: types.filter((it) => isExoticInstanceType(it)),
  };
}

/**
 * SpotOfferingFilter: for a NodeClaim that allows both spot and on-demand (and no minValues),
 * removes every spot offering dearer than the cheapest usable on-demand offering, so a mixed
 * launch never buys spot above the on-demand price. Does nothing unless there are both usable
 * spot and usable on-demand offerings. A type left with no offering at all is dropped.
 */
export function spotOfferingFilter(
  types: readonly InstanceType[],
  context: LaunchFilterContext,
): { kept: readonly InstanceType[]; rejected: readonly InstanceType[] } {
  if (context.hasMinValues || !context.allowsSpotAndOnDemand) return { kept: types, rejected: [] };
  let cheapestOnDemand = Number.POSITIVE_INFINITY;
  let hasSpot = false;
  let hasOnDemand = false;
  for (const it of types) {
    for (const o of it.offerings) {
      if (!context.usable(it, o)) continue;
      if (o.capacityType === 'on-demand') {
        hasOnDemand = true;
        cheapestOnDemand = Math.min(cheapestOnDemand, o.price);
      } else if (o.capacityType === 'spot') hasSpot = true;
    }
  }
  if (!hasSpot || !hasOnDemand) return { kept: types, rejected: [] };
  const kept: InstanceType[] = [];
  const rejected: InstanceType[] = [];
  for (const it of types) {
    const offerings = it.offerings.filter((o) => !(o.capacityType === 'spot' && o.price > cheapestOnDemand));
    if (offerings.length === 0) rejected.push(it);
    else kept.push(offerings.length === it.offerings.length ? it : { ...it, offerings });
  }
  return { kept, rejected };
}
