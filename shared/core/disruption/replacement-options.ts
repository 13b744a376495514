import type { InstanceType, InstanceTypeOption } from '../catalog/instance-type';
import { resolveInstanceTypes } from '../catalog/instance-type-resolution';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE } from '../model/labels';
import { Requirement, type Requirements } from '../model/requirements';
import { offeringAllowed } from '../scheduling/nodepool-context';
import type { NodeClaimPlan } from '../scheduling/types';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import type { Candidate } from './candidates';

/**
 * The instance types a consolidation's one replacement may launch as, narrowed as Karpenter
 * narrows them before it launches anything (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/consolidation.go `computeConsolidation` and
 * `computeSpotToSpotConsolidation`, multinodeconsolidation.go `filterOutSameInstanceType`,
 * pkg/controllers/provisioning/scheduling/nodeclaim.go `RemoveInstanceTypeOptionsByPriceAndMinValues`).
 * The disruption loop decides with it and launches with it, so what CreateFleet is offered is
 * what was decided.
 */

/** Spot-to-spot consolidation needs this many cheaper spot options (consolidation.go MinInstanceTypesForSpotToSpotConsolidation). */
export const MIN_SPOT_TO_SPOT_OPTIONS = 15;

/** Settings of consolidation that come from the operator (Karpenter's `--feature-gates`). */
export interface ConsolidationSettings {
  /** The `SpotToSpotConsolidation` feature gate: replace spot nodes by spot nodes. Off in Karpenter by default. */
  readonly spotToSpotConsolidation: boolean;
  /**
   * The `PodDeletionCostManagement` gate (scale-down steering): consolidation moves no pods onto
   * a node a scale-down emptied (deletion-cost.ts `leaveEmptyNodesEmpty`). @default false
   */
  readonly podDeletionCostManagement?: boolean;
}

/** Karpenter's defaults: every feature gate off. */
export const DEFAULT_CONSOLIDATION_SETTINGS: ConsolidationSettings = { spotToSpotConsolidation: false };

/** The narrowed replacement, or why there is none, in Karpenter's Unconsolidatable words. */
export type ReplacementOptions = { readonly plan: NodeClaimPlan } | { readonly why: string };

/**
 * The replacement `plan` for `candidates` with only the options Karpenter would launch: each
 * option's worst launch price below the candidates' price together, or below `share` when the
 * plan is one of several replacements (and, for several candidates, below the cheapest candidate
 * whose own type is among the options: `filterOutSameInstanceType`, deleting fewer nodes is the
 * better move then), minValues still satisfied, cheapest first. When every candidate is spot and
 * the replacement may be spot, only with the `SpotToSpotConsolidation` gate, only spot options,
 * and the one replacement of a single candidate needs at least {@link MIN_SPOT_TO_SPOT_OPTIONS}
 * of them and launches the 15 cheapest (more when minValues needs more), so the instance EC2
 * picks is among the cheapest and is not consolidated again at once. A node split over several
 * (global consolidation) is not held to that: each part is narrowed below its share, a fraction
 * of the node's price, and no one cheaper node holds what it holds. The NodeClaim's requirements
 * are narrowed to the options' types and capacity type.
 */
export function replacementOptions(
  candidates: readonly Candidate[],
  plan: NodeClaimPlan,
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings,
  share?: number,
): ReplacementOptions {
  const price = share ?? candidates.reduce((sum, c) => sum + c.price, 0);
  const types = typesByName(plan, snapshot);
  const allSpot = candidates.every((c) => c.capacityType === 'spot');
  const spotToSpot = allSpot && (plan.requirements.get(LABEL_CAPACITY_TYPE)?.has('spot') ?? true);
  if (spotToSpot && !settings.spotToSpotConsolidation)
    return { why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" };
  // The plan's options come cheapest first (NodeClaimPlan), as `OrderByPrice` leaves them.
  let kept = spotToSpot
    ? plan.instanceTypeOptions.filter((o) => o.capacityType === 'spot')
    : [...plan.instanceTypeOptions];
  const byPrice = cheaperThan(kept, plan, types, price);
  if ('why' in byPrice) return byPrice;
  kept = byPrice.kept;
  // Multi-node's rule; for one candidate its ceiling is the price just applied, so it changes nothing.
  const bySameType = cheaperThan(kept, plan, types, sameTypeCeiling(candidates, kept));
  if ('why' in bySameType) return bySameType;
  kept = bySameType.kept;
  if (kept.length === 0) return { why: "Can't replace with a cheaper node" };
  if (spotToSpot && candidates.length === 1 && share === undefined) {
    if (kept.length < MIN_SPOT_TO_SPOT_OPTIONS)
      return {
        why: `SpotToSpotConsolidation requires ${MIN_SPOT_TO_SPOT_OPTIONS} cheaper instance type options than the current candidate to consolidate, got ${kept.length}`,
      };
    kept = kept.slice(0, Math.max(MIN_SPOT_TO_SPOT_OPTIONS, minValuesPrefix(kept, plan.requirements, types)));
  }
  return { plan: narrowed(plan, kept) };
}

/** The NodePool's instance types for the plan's node class, by name. */
function typesByName(plan: NodeClaimPlan, snapshot: ClusterSnapshot): ReadonlyMap<string, InstanceType> {
  if (!snapshot.catalog) return new Map();
  const nodeClass = snapshot.nodeClasses.find((c) => c.name === plan.nodeClass);
  return new Map(
    resolveInstanceTypes(snapshot.catalog, nodeClass, snapshot.unavailableOfferings).map((t) => [t.name, t]),
  );
}

/**
 * `RemoveInstanceTypeOptionsByPriceAndMinValues`: the options whose worst launch price is below
 * `maxPrice`, or why not when they no longer satisfy the requirements' minValues.
 */
function cheaperThan(
  options: readonly InstanceTypeOption[],
  plan: NodeClaimPlan,
  types: ReadonlyMap<string, InstanceType>,
  maxPrice: number,
): { kept: InstanceTypeOption[] } | { why: string } {
  const kept = options.filter((o) => worstLaunchPrice(o, plan, types.get(o.name)) < maxPrice);
  const unmet = unmetMinValues(kept, plan.requirements, types);
  if (unmet.length > 0)
    return { why: `Filtering by price: minValues requirement is not met for label(s) ${unmet.join(', ')}` };
  return { kept };
}

/**
 * cloudprovider/types.go `WorstLaunchPrice`: the dearest available offering the NodeClaim could
 * launch as — of the option's capacity type (the one the launch asks for), in any zone its
 * requirements allow — since EC2, not podlift, picks the zone. The option's own price when the
 * type is not in the catalog.
 */
function worstLaunchPrice(
  option: InstanceTypeOption,
  plan: NodeClaimPlan,
  type: InstanceType | undefined,
): number {
  if (type === undefined) return option.price;
  let worst: number | undefined;
  for (const o of type.offerings)
    if (o.capacityType === option.capacityType && offeringAllowed(o, plan.requirements))
      worst = Math.max(worst ?? o.price, o.price);
  return worst ?? option.price;
}

/**
 * multinodeconsolidation.go `filterOutSameInstanceType`: when the replacement could be of a type
 * a candidate already is, it must be cheaper than the cheapest such candidate — otherwise
 * keeping that candidate and deleting the others does the same with fewer pods moved.
 */
function sameTypeCeiling(candidates: readonly Candidate[], options: readonly InstanceTypeOption[]): number {
  const offered = new Set(options.map((o) => o.name));
  let ceiling = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    // No option is named '': a candidate without a type label offers nothing to keep.
    if (offered.has(c.claim.labels[LABEL_INSTANCE_TYPE] ?? '')) ceiling = Math.min(ceiling, c.price);
  }
  return ceiling;
}

/** The keys whose minValues the options' types no longer reach (cloudprovider/types.go `SatisfiesMinValues`). */
function unmetMinValues(
  options: readonly InstanceTypeOption[],
  requirements: Requirements,
  types: ReadonlyMap<string, InstanceType>,
): string[] {
  const unmet: string[] = [];
  for (const r of requirements.values())
    if (r.minValues !== undefined && distinctValues(options, r.key, types).size < r.minValues)
      unmet.push(r.key);
  return unmet;
}

/** How many of the cheapest options minValues needs (`SatisfiesMinValues`' count); 1 without minValues. */
function minValuesPrefix(
  options: readonly InstanceTypeOption[],
  requirements: Requirements,
  types: ReadonlyMap<string, InstanceType>,
): number {
  for (let n = 1; n < options.length; n++)
    if (unmetMinValues(options.slice(0, n), requirements, types).length === 0) return n;
  return options.length;
}

function distinctValues(
  options: readonly InstanceTypeOption[],
  key: string,
  types: ReadonlyMap<string, InstanceType>,
): Set<string> {
  const values = new Set<string>();
  for (const o of options) {
    const r = types.get(o.name)?.requirements.get(key);
    if (r && !r.complement) for (const v of r.values) values.add(v);
  }
  return values;
}

/**
 * The plan with only `options`, its expected launch the cheapest of them, its requirements
 * pinned to their types and capacity type: consolidation.go adds `capacity-type In [spot]` so a
 * spot shortage fails the launch instead of buying a dearer on-demand node.
 */
function narrowed(plan: NodeClaimPlan, options: readonly InstanceTypeOption[]): NodeClaimPlan {
  const [expected] = options;
  const capacityTypes = [...new Set(options.map((o) => o.capacityType))];
  return {
    ...plan,
    instanceTypeOptions: options,
    instanceType: expected.name,
    capacityType: expected.capacityType,
    capacityTypes,
    zone: expected.zone,
    price: expected.price,
    requirements: plan.requirements.with(
      Requirement.of(
        LABEL_INSTANCE_TYPE,
        'In',
        options.map((o) => o.name),
      ),
      Requirement.of(LABEL_CAPACITY_TYPE, 'In', capacityTypes),
    ),
  };
}

/** Several narrowed replacements, or why one of them has no option left. */
export type ReplacementsOptions = { readonly plans: readonly NodeClaimPlan[] } | { readonly why: string };

/**
 * {@link replacementOptions} for a move that needs several new nodes (podlift's global
 * consolidation; Karpenter's consolidation launches at most one): each plan narrowed below its
 * share of the candidates' price, in proportion to its own expected price. The shares add up to
 * the candidates' price, so whichever options EC2 picks, the replacements together cost less than
 * the candidates; one plan keeps the whole price, exactly as {@link replacementOptions}.
 */
export function replacementsOptions(
  candidates: readonly Candidate[],
  plans: readonly NodeClaimPlan[],
  snapshot: ClusterSnapshot,
  settings: ConsolidationSettings,
): ReplacementsOptions {
  const price = candidates.reduce((sum, c) => sum + c.price, 0);
  const planned = plans.reduce((sum, p) => sum + p.price, 0);
  const narrowedPlans: NodeClaimPlan[] = [];
  for (const plan of plans) {
    const share = plans.length === 1 ? undefined : (price * plan.price) / planned;
    const options = replacementOptions(candidates, plan, snapshot, settings, share);
    if ('why' in options) return options;
    narrowedPlans.push(options.plan);
  }
  return { plans: narrowedPlans };
}
