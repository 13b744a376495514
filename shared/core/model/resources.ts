/**
 * Resource vectors. Every value is an exact integer in the resource's canonical unit:
 * `cpu` in millicores, `memory` and `ephemeral-storage` in bytes, `pods` and extended
 * resources (`nvidia.com/gpu`, `aws.amazon.com/neuron`, ...) in units. Absent means zero.
 */
export type Resources = Readonly<Record<string, number>>;

/** Well-known resource names. */
export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';
export const NVIDIA_GPU = 'nvidia.com/gpu';
export const AMD_GPU = 'amd.com/gpu';
export const NEURON = 'aws.amazon.com/neuron';
export const NEURON_CORE = 'aws.amazon.com/neuroncore';
export const POD_ENI = 'vpc.amazonaws.com/pod-eni';
export const EFA = 'vpc.amazonaws.com/efa';

/** A resource vector being accumulated (hot paths mutate in place instead of allocating). */
export type MutableResources = Record<string, number>;

/** a + b. */
export function addResources(a: Resources, b: Resources): MutableResources {
  const out: MutableResources = { ...a };
  for (const k in b) out[k] = (out[k] ?? 0) + b[k];
  return out;
}

/** Adds `times` × b into acc, in place. */
export function addInto(acc: MutableResources, b: Resources, times = 1): void {
  for (const k in b) acc[k] = (acc[k] ?? 0) + b[k] * times;
}

/** a − b (may go negative). */
export function subtractResources(a: Resources, b: Resources): MutableResources {
  const out: MutableResources = { ...a };
  for (const k in b) out[k] = (out[k] ?? 0) - b[k];
  return out;
}

/** Element-wise maximum. */
export function maxResources(a: Resources, b: Resources): MutableResources {
  const out: MutableResources = { ...a };
  for (const k in b) out[k] = Math.max(out[k] ?? 0, b[k]);
  return out;
}

/** Whether `used + request` fits in `total` for every resource `request` names. */
export function fits(request: Resources, used: Resources, total: Resources): boolean {
  for (const k in request) {
    const r = request[k];
    if (r > 0 && (used[k] ?? 0) + r > (total[k] ?? 0)) return false;
  }
  return true;
}

/** How many copies of `request` fit in `total − used` (Infinity when `request` is all zero). */
export function copiesThatFit(request: Resources, used: Resources, total: Resources): number {
  let n = Number.POSITIVE_INFINITY;
  for (const k in request) {
    const r = request[k];
    if (r <= 0) continue;
    const free = (total[k] ?? 0) - (used[k] ?? 0);
    n = Math.min(n, free < r ? 0 : Math.floor(free / r));
    if (n === 0) return 0;
  }
  return n;
}

/** The first resource for which `used + request` exceeds `total`, or undefined. */
export function firstExceeded(request: Resources, used: Resources, total: Resources): string | undefined {
  for (const k in request) {
    if (request[k] > 0 && (used[k] ?? 0) + request[k] > (total[k] ?? 0)) return k;
  }
  return undefined;
}
