import type { BinType } from '../bound/bins';
import { binTypes, podClasses } from '../bound/bound-input';
import { type ConfigurationBound, configurationBound } from '../bound/config-lp';
import type { Catalog } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import { isManagedNodePool, isStaticNodePool, type NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import type { LpSolver } from '../ports/lp-solver';
import { schedulingInputFor } from '../scheduling/plan-capacity';
import { schedule } from '../scheduling/scheduler';
import type { DaemonSet, PodDisruptionBudget, StateNode } from '../state/cluster-state';
import { type Constraint, constrainingPods } from './constraints';
import { type CurrentNodes, comparedPods, priceCurrentNodes } from './current-nodes';
import { defaultNodePool } from './default-nodepool';

/**
 * `podlift savings`: what a cluster's running pods cost on today's nodes, on the nodes podlift
 * would launch for the same pods, and at least under any plan at all (the configuration-LP
 * bound); and which pods hold the saving back. Pure: the cluster's state, a catalog and a solver
 * in, figures out.
 */

/** Hours in a month, as AWS bills them (365 × 24 ÷ 12). */
export const HOURS_PER_MONTH = 730;

/** The cluster's state as the estimate reads it. */
export interface SavingsInput {
  /** Today's nodes, each with the pods bound to it. */
  readonly nodes: readonly StateNode[];
  readonly daemonSets: readonly DaemonSet[];
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
  readonly podDisruptionBudgets: readonly PodDisruptionBudget[];
  /** Epoch milliseconds: do-not-disrupt durations count to it. */
  readonly now: number;
}

/** Options of {@link estimateSavings}. */
export interface SavingsOptions {
  /** Passed to the bound's column generation: true stops it early (still a valid bound). */
  readonly shouldStop?: () => boolean;
}

/** One node of podlift's plan. */
export interface PlannedNode {
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: CapacityType;
  readonly zone: string;
  /** USD per hour. */
  readonly price: number;
  readonly pods: number;
}

/** The estimate. Every cost is USD per hour. */
export interface SavingsEstimate {
  readonly current: CurrentNodes;
  /** The NodePools planned with; `defaulted` when the cluster had none podlift could use. */
  readonly nodePools: { readonly names: readonly string[]; readonly defaulted: boolean };
  /** Pods compared: running on the priced nodes, not DaemonSet or mirror pods. */
  readonly pods: number;
  readonly plan: { readonly nodes: readonly PlannedNode[]; readonly cost: number };
  readonly bound: ConfigurationBound;
  /** current − plan (negative when today's nodes are cheaper). */
  readonly savingPerHour: number;
  /** current − bound: no plan saves more than this. */
  readonly maxSavingPerHour: number;
  readonly constraints: readonly Constraint[];
}

/**
 * Estimates the saving: prices today's nodes ({@link priceCurrentNodes}), plans their pods
 * afresh, with no existing nodes, under the cluster's NodePools (or, with none it can use,
 * Karpenter's general-purpose one: {@link defaultNodePool}) with the scheduler `podlift plan`
 * and the provisioner use, and bounds any plan's cost from below with the configuration LP over
 * the pods the plan placed.
 */
export function estimateSavings(
  input: SavingsInput,
  catalog: Catalog,
  solver: LpSolver,
  options: SavingsOptions = {},
): SavingsEstimate {
  const current = priceCurrentNodes(input.nodes, catalog);
  const pricedNames = new Set(current.priced.map((n) => n.name));
  const pods = input.nodes
    .filter((n) => pricedNames.has(n.name))
    .flatMap((n) => comparedPods(n).map(pending));
  const usable = input.nodePools.filter((p) => isManagedNodePool(p) && !isStaticNodePool(p));
  const fallback = usable.length === 0 ? defaultNodePool() : undefined;
  const nodePools = fallback ? [fallback.nodePool] : usable;
  const nodeClasses = fallback ? [fallback.nodeClass] : input.nodeClasses;
  const schedulingInput = schedulingInputFor(
    { pods, daemonSets: input.daemonSets, nodes: [], nodePools, nodeClasses },
    catalog,
  );
  const result = schedule(schedulingInput);
  const planned: PlannedNode[] = result.nodeClaims.map((c) => ({
    nodePool: c.nodePool,
    instanceType: c.instanceType,
    capacityType: c.capacityType,
    zone: c.zone,
    price: c.price,
    pods: c.pods.length,
  }));
  const planCost = planned.reduce((sum, n) => sum + n.price, 0);
  const placed = result.nodeClaims.flatMap((c) => c.pods as Pod[]);
  const bins: BinType[] = binTypes(schedulingInput);
  const bound = configurationBound(solver, bins, podClasses(placed), {
    ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
  });
  return {
    current,
    nodePools: { names: nodePools.map((p) => p.name), defaulted: fallback !== undefined },
    pods: pods.length,
    plan: { nodes: planned, cost: planCost },
    bound,
    savingPerHour: current.cost - planCost,
    maxSavingPerHour: current.cost - bound.cost,
    constraints: constrainingPods({
      pods,
      unschedulable: result.unschedulable,
      bins,
      podDisruptionBudgets: input.podDisruptionBudgets,
      now: input.now,
    }),
  };
}

/** The pod as the scheduler plans a pending one: unbound. */
function pending(pod: Pod): Pod {
  const { nodeName: _bound, ...rest } = pod;
  return rest;
}
