import type { InstanceType } from '../catalog/instance-type';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import { addInto, type MutableResources, type Resources } from '../model/resources';
import { chooseLaunch } from './instance-selection';
import type { NodePoolContext } from './nodepool-context';
import { compatibleTypes, limitedBand, maxCapacity, type PlannedNode } from './planned-node';
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
  for (const node of planned) {
    const ctx = node.context;
    node.release();
    const ds = ctx.daemonSetOverhead(node.requirements);
    const compatible = typesFor(typesCache, ctx, node.requirements);
    const parts = node.topologyBound
      ? [node.pods]
      : splitForCost(compatible, node.requirements, node.pods, ds);
    let made = planParts(node, parts, compatible, ds);
    if (!Array.isArray(made) && parts.length > 1) made = planParts(node, [node.pods], compatible, ds);
    if (Array.isArray(made)) nodeClaims.push(...made);
    else
      unschedulable.push(
        ...unschedulablePods(node.pods, { kind: 'nodepool', nodePool: ctx.nodePool.name, rejection: made }),
      );
  }
  return { nodeClaims, unschedulable };
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
  const withinLimits = ctx.limited
    ? compatible.filter((it) => ctx.exceededLimit(it.capacity) === undefined)
    : compatible;
  if (withinLimits.length === 0) {
    const resource = compatible.length > 0 ? ctx.exceededLimit(compatible[0].capacity) : undefined;
    return resource
      ? { kind: 'limit-reached', resource, limit: ctx.nodePool.limits[resource] }
      : { kind: 'no-instance-type-fits' };
  }
  // Any option may launch, so the largest counts against the limits: a limited NodePool's
  // options stay within the same size band packing reserved (see reservationFor).
  const requests = { ...used };
  addInto(requests, ds);
  const band = ctx.limited ? limitedBand(ctx, withinLimits, requests) : [];
  const choice = chooseLaunch(band.length > 0 ? band : withinLimits, node.requirements, used, ds);
  if (choice.kind !== 'launch') return choice;
  const chosen = new Set(choice.options.map((o) => o.name));
  const capacity = ctx.limited ? maxCapacity(compatible.filter((it) => chosen.has(it.name))) : {};
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
