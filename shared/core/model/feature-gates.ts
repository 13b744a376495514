/**
 * Karpenter's feature gates podlift has (kubernetes-sigs/karpenter pkg/operator/options/options.go
 * `FeatureGates`), at Karpenter's defaults unless `FEATURE_GATES` sets them.
 */
export interface FeatureGates {
  /** `NodeRepair`: replace Nodes whose conditions stay unhealthy (termination's node repair). */
  readonly nodeRepair: boolean;
  /**
   * `SpotToSpotConsolidation`: consolidation may replace spot nodes by cheaper spot nodes
   * (kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go
   * `computeSpotToSpotConsolidation`); off, a spot node is only deleted or replaced by on-demand.
   */
  readonly spotToSpotConsolidation: boolean;
  /**
   * `ReservedCapacity`: capacity reservations an EC2NodeClass selects become
   * `karpenter.sh/capacity-type: reserved` offerings the scheduler prefers and the launcher
   * launches into (aws/karpenter-provider-aws pkg/providers/instancetype/offering/
   * reserved_capacity_resolver.go `ResolveOfferings`); off, they are only resolved into status.
   */
  readonly reservedCapacity: boolean;
  /**
   * `GlobalConsolidation` (podlift's own, not Karpenter's): after Karpenter's consolidation
   * methods find nothing, plan a NodePool's Consolidatable candidates' pods afresh and move toward
   * the cheaper fleet in one command of several candidates (global-consolidation.ts). Off: the
   * consolidation strategy is Karpenter's alone.
   */
  readonly globalConsolidation: boolean;
  /**
   * `PodDeletionCostManagement` (the gate Karpenter's PR #2894 proposes, not in a Karpenter
   * release): the disruption loop writes `controller.kubernetes.io/pod-deletion-cost` on the
   * ReplicaSet pods of the nodes it would remove first, so scale-downs empty them
   * (disruption/deletion-cost.ts). Off: podlift removes every cost it wrote and writes none.
   */
  readonly podDeletionCostManagement: boolean;
  /**
   * `CandidateTaint` (podlift's own; the Candidate state kubernetes-sigs/karpenter issue #624
   * proposed and Karpenter never shipped): the disruption loop puts a PreferNoSchedule taint on the
   * nodes consolidation is heading for, so kube-scheduler places new pods elsewhere when they fit
   * (disruption/candidate-taint.ts). Off: podlift removes every such taint and puts none.
   */
  readonly candidateTaint: boolean;
}

/**
 * Every gate at Karpenter's default (options.go's `FEATURE_GATES` default
 * `NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,…`), and podlift's own
 * `GlobalConsolidation`, `PodDeletionCostManagement` and `CandidateTaint` off.
 */
export const DEFAULT_FEATURE_GATES: FeatureGates = {
  nodeRepair: false,
  spotToSpotConsolidation: false,
  reservedCapacity: true,
  globalConsolidation: false,
  podDeletionCostManagement: false,
  candidateTaint: false,
};

/** strconv.ParseBool's spellings, which Karpenter's `--feature-gates` map accepts. */
const BOOLEANS: Readonly<Record<string, boolean>> = {
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

/**
 * Parses `FEATURE_GATES` as Karpenter's options.go `ParseFeatureGates` does: comma-separated
 * `Name=bool` pairs (cliflag.MapStringBool), gates podlift does not have ignored, the rest at
 * their defaults. Undefined when a pair is malformed.
 */
export function parseFeatureGates(text: string): FeatureGates | undefined {
  const gates = { ...DEFAULT_FEATURE_GATES };
  for (const pair of text.split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const [name, value, ...rest] = pair.split('=');
    const enabled = value === undefined ? undefined : BOOLEANS[value.trim()];
    if (rest.length > 0 || enabled === undefined) return undefined;
    if (name?.trim() === 'NodeRepair') gates.nodeRepair = enabled;
    if (name?.trim() === 'SpotToSpotConsolidation') gates.spotToSpotConsolidation = enabled;
    if (name?.trim() === 'ReservedCapacity') gates.reservedCapacity = enabled;
    if (name?.trim() === 'GlobalConsolidation') gates.globalConsolidation = enabled;
    if (name?.trim() === 'PodDeletionCostManagement') gates.podDeletionCostManagement = enabled;
    if (name?.trim() === 'CandidateTaint') gates.candidateTaint = enabled;
  }
  return gates;
}
