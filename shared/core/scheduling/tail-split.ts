import type { InstanceType } from '../catalog/instance-type';
import type { Pod } from '../model/pod';
import type { Requirements } from '../model/requirements';
import { addInto, CPU, fits, MEMORY, type MutableResources, type Resources } from '../model/resources';
import { type Priced, pricedTypes } from './instance-selection';

/** How many of the cheapest instance types are tried as the first half of a split. */
const SPLIT_CANDIDATES = 30;
/** A split must save at least this fraction to be worth a second node. */
const MIN_SAVING = 0.02;
/** Nodes using more than this share of their cheapest fitting type are left alone. */
const WELL_USED = 0.85;

function sumRequests(pods: readonly Pod[], base: Resources): MutableResources {
  const out: MutableResources = { ...base };
  for (const p of pods) addInto(out, p.requests);
  return out;
}

function cheapestFitting(sorted: readonly Priced[], need: Resources): Priced | undefined {
  return sorted.find((p) => fits(need, {}, p.it.allocatable));
}

/**
 * Splits the pods of a planned node whose cheapest fitting instance type would be poorly used
 * (the last node of a batch, typically) into two nodes when that is cheaper: 10 pods of 1 cpu
 * fit one 16-vCPU node, but an 8-vCPU and a 4-vCPU node cost less. First-fit-decreasing fills
 * each of the cheapest types as the first node; the rest goes onto the cheapest type that
 * holds it; the best pair wins if it saves at least 2 %. Splits repeat on the remainder.
 * Only for nodes whose pods take no part in topology rules (a split changes hostnames).
 */
export function splitForCost(
  types: readonly InstanceType[],
  requirements: Requirements,
  pods: readonly Pod[],
  daemonSetOverhead: Resources,
): Pod[][] {
  const sorted = pricedTypes(types, requirements);
  const parts: Pod[][] = [];
  let rest = [...pods].sort(
    (a, b) =>
      (b.requests[CPU] ?? 0) - (a.requests[CPU] ?? 0) ||
      (b.requests[MEMORY] ?? 0) - (a.requests[MEMORY] ?? 0),
  );
  for (;;) {
    const split = bestSplit(sorted, rest, daemonSetOverhead);
    if (!split) break;
    parts.push(split.first);
    rest = split.rest;
  }
  parts.push(rest);
  return parts;
}

function bestSplit(
  sorted: readonly Priced[],
  pods: readonly Pod[],
  ds: Resources,
): { first: Pod[]; rest: Pod[] } | undefined {
  if (pods.length < 2) return undefined;
  const need = sumRequests(pods, ds);
  const whole = cheapestFitting(sorted, need);
  if (!whole) return undefined;
  const usage = Math.max(
    (need[CPU] ?? 0) / Math.max(1, whole.it.allocatable[CPU] ?? 0),
    (need[MEMORY] ?? 0) / Math.max(1, whole.it.allocatable[MEMORY] ?? 0),
  );
  if (usage > WELL_USED) return undefined;
  let best: { first: Pod[]; rest: Pod[]; cost: number } | undefined;
  for (const candidate of sorted.slice(0, SPLIT_CANDIDATES)) {
    if (candidate.option.price >= whole.option.price) break;
    const used: MutableResources = { ...ds };
    const first: Pod[] = [];
    const rest: Pod[] = [];
    for (const p of pods) {
      if (fits(p.requests, used, candidate.it.allocatable)) {
        addInto(used, p.requests);
        first.push(p);
      } else {
        rest.push(p);
      }
    }
    if (first.length === 0 || rest.length === 0) continue;
    const second = cheapestFitting(sorted, sumRequests(rest, ds));
    if (!second) continue;
    const cost = candidate.option.price + second.option.price;
    if (!best || cost < best.cost) best = { first, rest, cost };
  }
  return best && best.cost < whole.option.price * (1 - MIN_SAVING) ? best : undefined;
}
