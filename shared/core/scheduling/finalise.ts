import type { InstanceType } from '../catalog/instance-type';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import { addInto, fits, type MutableResources, type Resources } from '../model/resources';
import { chooseLaunch, type Priced, pricedTypes } from './instance-selection';
import type { NodePoolContext } from './nodepool-context';
import { compatibleTypes, LIMITED_OPTION_SPREAD, maxCapacity, type PlannedNode } from './planned-node';
import { repack } from './repack';
import { splitForCost } from './tail-split';
import type { NodeClaimPlan } from './types';
import type { UnschedulablePod } from './unschedulable-reason';
import { type NodePoolRejection, unschedulablePods } from './unschedulable-reason';

/** What finalising the planned nodes gives: the NodeClaims, and the pods none could be made for. */
export interface Finalised {
  readonly nodeClaims: NodeClaimPlan[];
  readonly unschedulable: UnschedulablePod[];
}

/**
 * Turns planned nodes into NodeClaim plans: final instance type options, capacity type, zone
 * and price. A node whose pods take no part in topology may be split in two when that is
 * cheaper (see splitForCost). Each node's reservation against its NodePool's limits is
 * replaced by that of the NodeClaims made for it.
 */
export function finalise(planned: readonly PlannedNode[]): Finalised {
  const nodeClaims: NodeClaimPlan[] = [];
  const unschedulable: UnschedulablePod[] = [];
  const typesCache = new Map<string, InstanceType[]>();
  for (const nodes of interchangeable(planned)) {
    const node = nodes[0];
    const ctx = node.context;
    for (const n of nodes) n.release();
    const ds = ctx.daemonSetOverhead(node.requirements);
    const compatible = typesFor(typesCache, ctx, node.requirements);
    const perNode = nodes.map((n) =>
      n.topologyBound ? [n.pods] : splitForCost(compatible, n.requirements, n.pods, ds),
    );
    // Nodes whose pods take no part in topology are repacked together when that is cheaper
    // than the nodes first-fit-decreasing built (see repack.ts).
    if (!node.topologyBound) {
      const priced = pricedTypes(compatible, node.requirements);
      const repacked = repack(
        priced,
        nodes.flatMap((n) => n.pods),
        ds,
      );
      const current = perNode.flat().reduce((sum, pods) => sum + cheapestPrice(priced, pods, ds), 0);
      if (repacked && repacked.cost < current * (1 - MIN_REPACK_SAVING)) {
        const made = planParts(node, repacked.parts, compatible, ds);
        if (Array.isArray(made)) {
          nodeClaims.push(...made);
          continue;
        }
      }
    }
    nodes.forEach((n, i) => {
      let made = planParts(n, perNode[i], compatible, ds);
      if (!Array.isArray(made) && perNode[i].length > 1) made = planParts(n, [n.pods], compatible, ds);
      if (Array.isArray(made)) nodeClaims.push(...made);
      else
        unschedulable.push(
          ...unschedulablePods(n.pods, { kind: 'nodepool', nodePool: ctx.nodePool.name, rejection: made }),
        );
    });
  }
  return { nodeClaims, unschedulable };
}

/** A repack replaces first-fit-decreasing's nodes only when it saves at least this fraction. */
const MIN_REPACK_SAVING = 0.005;

/**
 * Planned nodes in groups whose pods could trade places: same NodePool and requirements and
 * no topology; a topology-bound node is a group of its own. Groups keep the order nodes were
 * planned in.
 */
function interchangeable(planned: readonly PlannedNode[]): PlannedNode[][] {
  const groups: PlannedNode[][] = [];
  const byKey = new Map<string, PlannedNode[]>();
  for (const node of planned) {
    if (node.topologyBound) {
      groups.push([node]);
      continue;
    }
    const key = `${node.context.nodePool.name}||${node.requirements.toString()}`;
    const group = byKey.get(key);
    if (group) group.push(node);
    else {
      const fresh = [node];
      byKey.set(key, fresh);
      groups.push(fresh);
    }
  }
  return groups;
}

/** The price of the cheapest type holding `pods` plus DaemonSet overhead (Infinity when none does). */
function cheapestPrice(priced: readonly Priced[], pods: readonly Pod[], ds: Resources): number {
  const need: MutableResources = { ...ds };
  for (const p of pods) addInto(need, p.requests);
  return priced.find((p) => fits(need, {}, p.it.allocatable))?.option.price ?? Number.POSITIVE_INFINITY;
}

/** Instance types of the NodePool compatible with a finished node's requirements, cached by their text. */
function typesFor(
  cache: Map<string, InstanceType[]>,
  ctx: NodePoolContext,
  requirements: Requirements,
): InstanceType[] {
  const key = `${ctx.nodePool.name}||${requirements.toString()}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = compatibleTypes(ctx.instanceTypes, requirements);
    cache.set(key, hit);
  }
  return hit;
}

/** Plans one NodeClaim per part, within the NodePool's limits; all or nothing. */
function planParts(
  node: PlannedNode,
  parts: readonly (readonly Pod[])[],
  compatible: readonly InstanceType[],
  ds: Resources,
): NodeClaimPlan[] | NodePoolRejection {
  const ctx = node.context;
  const reserved: Resources[] = [];
  const plans: NodeClaimPlan[] = [];
  for (const pods of parts) {
    const made = planPart(node, pods, compatible, ds);
    if ('kind' in made) {
      for (const r of reserved) ctx.reserve(r, -1);
      return made;
    }
    ctx.reserve(made.capacity, 1);
    reserved.push(made.capacity);
    plans.push(made.plan);
  }
  return plans;
}

/** The NodeClaim for one part of a planned node and what it counts against the NodePool's limits. */
function planPart(
  node: PlannedNode,
  pods: readonly Pod[],
  compatible: readonly InstanceType[],
  ds: Resources,
): { plan: NodeClaimPlan; capacity: Resources } | NodePoolRejection {
  const ctx = node.context;
  const used: MutableResources = {};
  for (const p of pods) addInto(used, p.requests);
  const withinLimits = ctx.withinLimits(compatible);
  if (withinLimits.length === 0) {
    const resource = compatible.length > 0 ? ctx.exceededLimit(compatible[0].capacity) : undefined;
    return resource
      ? { kind: 'limit-reached', resource, limit: ctx.nodePool.limits[resource] }
      : { kind: 'no-instance-type-fits' };
  }
  // Any option may launch, so the largest counts against the limits: a limited NodePool's
  // options stay within the same size band packing reserved (see limitedBand).
  const requests = { ...used };
  addInto(requests, ds);
  const bandBase = ctx.limited ? ctx.cheapestFitting(withinLimits, requests) : undefined;
  const admit = bandBase
    ? (it: InstanceType) => ctx.withinFactor(it.capacity, bandBase.capacity, LIMITED_OPTION_SPREAD)
    : undefined;
  const choice = chooseLaunch(withinLimits, node.requirements, used, ds, admit);
  if (choice.kind !== 'launch') return choice;
  const capacity = ctx.limited ? maxCapacity(choice.instanceTypes) : {};
  const expected = choice.options[0];
  const plan: NodeClaimPlan = {
    nodePool: ctx.nodePool.name,
    nodeClass: ctx.nodePool.template.nodeClassRef.name,
    instanceTypeOptions: choice.options,
    instanceType: expected.name,
    capacityType: choice.capacityType,
    capacityTypes: [choice.capacityType],
    zone: expected.zone,
    zones: choice.zones,
    price: expected.price,
    requirements: node.requirements,
    labels: node.requirements.labels(),
    taints: ctx.nodePool.template.taints,
    startupTaints: ctx.nodePool.template.startupTaints,
    pods,
    requests,
    daemonSetRequests: ds,
  };
  return { plan, capacity };
}
