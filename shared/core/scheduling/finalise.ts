import type { InstanceType } from '../catalog/instance-type';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import { addInto, fits, type MutableResources, type Resources } from '../model/resources';
import { chooseLaunch, type LaunchChoice, type Priced, pricedTypes } from './instance-selection';
import type { NodePoolContext } from './nodepool-context';
import { compatibleTypes, LIMITED_OPTION_SPREAD, maxCapacity, type PlannedNode } from './planned-node';
import { repack } from './repack';
import { ReservationLedger } from './reservation-ledger';
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
  const launches: LaunchMemo = { memo: new Map(), ledger: new ReservationLedger() };
  for (const nodes of interchangeable(planned)) {
    const node = nodes[0];
    const ctx = node.context;
    for (const n of nodes) n.release();
    const ds = ctx.daemonSetOverhead(node.requirements);
    const compatible = typesFor(typesCache, ctx, node.requirements);
    const perNode = nodes.map((n) =>
      n.topologyBound ? [n.pods] : splitForCost(compatible, n.requirements, n.pods, ds),
    );
    const fail = (pods: readonly Pod[], rejection: NodePoolRejection) =>
      unschedulable.push(
        ...unschedulablePods(pods, { kind: 'nodepool', nodePool: ctx.nodePool.name, rejection }),
      );
    // Pods that take no part in topology are repacked together when that is cheaper than the
    // nodes first-fit-decreasing built (see repack.ts): those of the group's free nodes, or, on
    // a NodePool without limits, also those riding on topology-bound nodes, which then keep
    // only their bound pods (same requirements, zone and hostname counts as planned).
    const bound = nodes.filter((n) => n.topologyBound);
    const priced = pricedTypes(compatible, node.requirements);
    const costOf = (parts: readonly (readonly Pod[])[]) =>
      parts.reduce((sum, pods) => sum + cheapestPrice(priced, pods, ds), 0);
    const candidates: { parts: Pod[][]; kept: (readonly Pod[])[]; cost: number }[] = [];
    const freePods = nodes.flatMap((n) => (n.topologyBound ? [] : n.pods));
    const whole = bound.map((n) => n.pods);
    const repacked = freePods.length > 0 ? repack(priced, freePods, ds) : undefined;
    if (repacked)
      candidates.push({ parts: repacked.parts, kept: whole, cost: repacked.cost + costOf(whole) });
    if (!ctx.limited && bound.some((n) => n.boundPods.length < n.pods.length)) {
      const kept = bound.map((n) => n.boundPods);
      const riding = bound.flatMap((n) => n.pods.filter(freeOf(n)));
      const all = repack(priced, [...freePods, ...riding], ds);
      if (all) candidates.push({ parts: all.parts, kept, cost: all.cost + costOf(kept) });
    }
    const best = candidates.reduce<(typeof candidates)[number] | undefined>(
      (b, c) => (!b || c.cost < b.cost ? c : b),
      undefined,
    );
    if (best && best.cost < costOf(perNode.flat()) * (1 - MIN_REPACK_SAVING)) {
      const made = planParts(node, best.parts, compatible, ds, launches);
      if (Array.isArray(made)) {
        nodeClaims.push(...made);
        bound.forEach((n, i) => {
          const one = planParts(n, [best.kept[i]], compatible, ds, launches);
          if (Array.isArray(one)) nodeClaims.push(...one);
          else fail(best.kept[i], one);
        });
        continue;
      }
    }
    nodes.forEach((n, i) => {
      let made = planParts(n, perNode[i], compatible, ds, launches);
      if (!Array.isArray(made) && perNode[i].length > 1)
        made = planParts(n, [n.pods], compatible, ds, launches);
      if (Array.isArray(made)) nodeClaims.push(...made);
      else fail(n.pods, made);
    });
  }
  return { nodeClaims, unschedulable };
}

/**
 * Launch choices already made in one finalise call, by NodePool, requirements, requests and size
 * band (reserved ones excepted), and the reservations promised so far.
 */
interface LaunchMemo {
  readonly memo: Map<string, LaunchChoice | NodePoolRejection>;
  readonly ledger: ReservationLedger;
}

const requirementTexts = new WeakMap<Requirements, string>();

/**
 * `requirements.toString()` plus the minValues it leaves out, once per (immutable) Requirements
 * value: grouping, typesFor and the launch memo all key on it.
 */
function requirementsText(requirements: Requirements): string {
  let text = requirementTexts.get(requirements);
  if (text === undefined) {
    text = requirements.toString();
    for (const r of requirements.values())
      if (r.minValues !== undefined) text += ` |${r.key} minValues ${r.minValues}`;
    requirementTexts.set(requirements, text);
  }
  return text;
}

/** A resource list as text independent of key order. */
function resourcesKey(r: Resources): string {
  return Object.keys(r)
    .sort()
    .map((k) => `${k}=${r[k]}`)
    .join(',');
}

/** A predicate for the pods of `node` that take no part in topology. */
function freeOf(node: PlannedNode): (pod: Pod) => boolean {
  const bound = new Set(node.boundPods);
  return (pod) => !bound.has(pod);
}

/** A repack replaces first-fit-decreasing's nodes only when it saves at least this fraction. */
const MIN_REPACK_SAVING = 0.005;

/**
 * Planned nodes in groups whose free pods could trade places: same NodePool and requirements.
 * A topology-bound node's bound pods never move; one with nothing else, or on a NodePool with
 * limits, is a group of its own. Groups keep the order nodes were planned in.
 */
function interchangeable(planned: readonly PlannedNode[]): PlannedNode[][] {
  const groups: PlannedNode[][] = [];
  const byKey = new Map<string, PlannedNode[]>();
  for (const node of planned) {
    // A bound node none of whose pods may move stays a group of its own, in planned order.
    if (node.topologyBound && (node.context.limited || node.boundPods.length === node.pods.length)) {
      groups.push([node]);
      continue;
    }
    const key = `${node.context.nodePool.name}||${requirementsText(node.requirements)}`;
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
  const key = `${ctx.nodePool.name}||${requirementsText(requirements)}`;
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
  launches: LaunchMemo,
): NodeClaimPlan[] | NodePoolRejection {
  const ctx = node.context;
  const reserved: Resources[] = [];
  const plans: NodeClaimPlan[] = [];
  for (const pods of parts) {
    const made = planPart(node, pods, compatible, ds, launches);
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
  launches: LaunchMemo,
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
  // Many parts repeat one pattern (repacking's copies, first-fit's identical nodes): the choice
  // depends only on the types, requirements, requests and size band, so it is made once.
  // (Near a limit `withinLimits` is a fresh subset and the choice is made afresh.)
  const memoKey =
    withinLimits === compatible
      ? `${ctx.nodePool.name}|${requirementsText(node.requirements)}|${resourcesKey(used)}|${resourcesKey(ds)}|${bandBase?.name ?? ''}`
      : undefined;
  let choice = memoKey === undefined ? undefined : launches.memo.get(memoKey);
  if (!choice) {
    choice = chooseLaunch(withinLimits, node.requirements, used, ds, admit, launches.ledger);
    // A reserved choice took room in its reservations: the next part must ask the ledger again.
    const reserved = choice.kind === 'launch' && choice.capacityType === 'reserved';
    if (memoKey !== undefined && !reserved) launches.memo.set(memoKey, choice);
  }
  if (choice.kind !== 'launch') return choice;
  const capacity = ctx.limited ? maxCapacity(choice.instanceTypes) : {};
  const expected = choice.options[0];
  const plan: NodeClaimPlan = {
    nodePool: ctx.nodePool.name,
    nodeClass: ctx.nodePool.template.nodeClassRef.name,
    instanceTypeOptions: [...choice.options],
    instanceType: expected.name,
    capacityType: choice.capacityType,
    capacityTypes: [choice.capacityType],
    ...(choice.reservationIds === undefined ? {} : { reservationIds: choice.reservationIds }),
    zone: expected.zone,
    zones: [...choice.zones],
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
