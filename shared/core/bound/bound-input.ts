import { labelSelectorMatches } from '../model/label-selector';
import { LABEL_HOSTNAME } from '../model/labels';
import type { Pod, PodAffinityTerm } from '../model/pod';
import { CPU, MEMORY, PODS } from '../model/resources';
import { cheapestOffering, NodePoolContext } from '../scheduling/nodepool-context';
import type { SchedulingInput } from '../scheduling/types';
import type { BinType, PodClass } from './bins';

/**
 * The configuration LP's input (config-lp.ts) from what the scheduler plans with: the instance
 * types the NodePools may launch, and the pods grouped by requests.
 */

/**
 * The bound's instance types: every type some NodePool may launch, priced at its cheapest
 * offering that NodePool allows (as the scheduler prices it), with the pool's DaemonSet overhead
 * taken off its allocatable. A type several pools offer keeps its most room and lowest price
 * across them: a bin at least as good as each real one keeps the bound a bound (it only ignores
 * which pool a pod may use, which makes the LP looser, never wrong).
 */
export function binTypes(input: SchedulingInput): BinType[] {
  const byName = new Map<string, BinType>();
  for (const pool of input.nodePools) {
    const nodeClass = input.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
    const ctx = new NodePoolContext(
      pool,
      nodeClass,
      input.instanceTypes.get(pool.name) ?? [],
      [],
      input.daemonSets,
    );
    const ds = ctx.daemonSetOverhead(ctx.requirements);
    for (const it of ctx.instanceTypes) {
      const offering = cheapestOffering(it, ctx.requirements);
      if (!offering) continue;
      const bin: BinType = {
        name: it.name,
        cpu: (it.allocatable[CPU] ?? 0) - (ds[CPU] ?? 0),
        memory: (it.allocatable[MEMORY] ?? 0) - (ds[MEMORY] ?? 0),
        pods: (it.allocatable[PODS] ?? 0) - (ds[PODS] ?? 0),
        price: offering.price,
      };
      const seen = byName.get(it.name);
      byName.set(
        it.name,
        seen
          ? {
              name: it.name,
              cpu: Math.max(seen.cpu, bin.cpu),
              memory: Math.max(seen.memory, bin.memory),
              pods: Math.max(seen.pods, bin.pods),
              price: Math.min(seen.price, bin.price),
            }
          : bin,
      );
    }
  }
  return [...byName.values()];
}

/**
 * Pods grouped by their cpu and memory requests. Pods that repel each other by hostname
 * anti-affinity (same namespace and labels, a required hostname term whose selector matches
 * those labels) get classes of their own, marked `apart` with that identity: whatever their
 * size, no node holds two of them, in any plan, so the bound stays valid and stops packing them.
 */
export function podClasses(pods: readonly Pod[]): PodClass[] {
  const byKey = new Map<string, PodClass & { count: number }>();
  for (const p of pods) {
    const cpu = p.requests[CPU] ?? 0;
    const memory = p.requests[MEMORY] ?? 0;
    const repels = p.podAntiAffinity.find((t) => selfRepellingOnHostname(p, t));
    const apart = repels && `${p.namespace}|${JSON.stringify(p.labels)}|${JSON.stringify(repels)}`;
    const key = apart ? `${cpu}|${memory}|${apart}` : `${cpu}|${memory}`;
    const e = byKey.get(key);
    if (e) e.count++;
    else byKey.set(key, apart ? { cpu, memory, count: 1, apart } : { cpu, memory, count: 1 });
  }
  return [...byKey.values()];
}

/** Whether a required anti-affinity term keeps two pods with `p`'s namespace and labels off one node. */
export function selfRepellingOnHostname(p: Pod, t: PodAffinityTerm): boolean {
  if (t.topologyKey !== LABEL_HOSTNAME || t.namespaceSelector !== undefined) return false;
  const namespaces = t.namespaces ?? [];
  if (namespaces.length > 0 && !namespaces.includes(p.namespace)) return false;
  return labelSelectorMatches(t.labelSelector, p.labels);
}
