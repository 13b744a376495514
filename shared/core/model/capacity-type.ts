/** Karpenter's capacity types (label karpenter.sh/capacity-type). */
export type CapacityType = 'spot' | 'on-demand' | 'reserved';

export const CAPACITY_TYPES: readonly CapacityType[] = ['spot', 'on-demand', 'reserved'];
