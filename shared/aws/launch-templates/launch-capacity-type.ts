import type { InstanceTypeOption } from '../../core/catalog/instance-type';
import type { CapacityType } from '../../core/model/capacity-type';

/**
 * The capacity type a NodeClaim launches as (Karpenter's `getCapacityType`): reserved when an
 * option is a capacity reservation, else spot when an option is spot, else on-demand. Launch
 * templates carry it as the karpenter.sh/capacity-type label, so the launcher must buy the same.
 */
export function launchCapacityType(options: readonly InstanceTypeOption[]): CapacityType {
  if (options.some((o) => o.capacityType === 'reserved')) return 'reserved';
  if (options.some((o) => o.capacityType === 'spot')) return 'spot';
  return 'on-demand';
}
