import type { InstanceType } from '../shared/core/catalog/instance-type';
import { LABEL_INSTANCE_SIZE } from '../shared/core/model/labels';
import type { Pod } from '../shared/core/model/pod';
import {
  AMD_GPU,
  addInto,
  CPU,
  fits,
  MEMORY,
  type MutableResources,
  NEURON,
  NEURON_CORE,
  NVIDIA_GPU,
  type Resources,
} from '../shared/core/model/resources';
import { cheapestOffering, NodePoolContext } from '../shared/core/scheduling/nodepool-context';
import type { SchedulingInput } from '../shared/core/scheduling/types';

/**
 * Karpenter's decision before consolidation, re-implemented for comparison: what its
 * provisioner would launch for the same pending pods, from the same catalog, in one scheduling
 * round. Matched against kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling:
 *
 * - queue.go `NewQueue`: pods sorted by cpu, then memory, descending (byCPUAndMemoryDescending);
 * - scheduler.go `add`: a pod goes onto the first in-flight NodeClaim that takes it, those with
 *   the fewest pods tried first (the `sort.Slice(s.newNodeClaims, … len(Pods) <)` before the
 *   loop); else a new NodeClaim from the NodePool's template, with its instance types cut to
 *   those within the NodePool's remaining limits (`filterByRemainingResources`), and the
 *   largest remaining option's capacity subtracted from the limits (`subtractMax`);
 * - nodeclaim.go `Add`: the NodeClaim keeps every instance type that still fits the sum of
 *   its pods' requests plus DaemonSet overhead (`filterInstanceTypesByRequirements`), so a
 *   NodeClaim keeps taking pods while its largest option has room;
 * - at launch, the AWS provider drops exotic types (metal, GPUs, accelerators) when others
 *   remain (aws/karpenter-provider-aws pkg/providers/instance/filter `ExoticInstanceTypeFilter`)
 *   and CreateFleet's lowest-price strategy launches the cheapest option.
 *
 * Only plain pods (requests, no topology or node affinity) are modelled: the reference is used
 * on workloads without those rules. Pods that fit no type are counted, not placed.
 */

/** One NodeClaim Karpenter would launch. */
export interface ReferenceNode {
  readonly instanceType: string;
  readonly price: number;
  readonly pods: number;
}

/** Karpenter's first decision for a set of pods. */
export interface ReferencePlan {
  readonly nodes: readonly ReferenceNode[];
  readonly costPerHour: number;
  readonly unschedulable: number;
}

const EXOTIC_RESOURCES = [NVIDIA_GPU, AMD_GPU, NEURON, NEURON_CORE];

/** Whether the AWS provider's exotic filter would set this type aside. */
function isExotic(it: InstanceType): boolean {
  const size = it.requirements.get(LABEL_INSTANCE_SIZE);
  if (size && !size.complement && [...size.values].some((v) => v.includes('metal'))) return true;
  return EXOTIC_RESOURCES.some((r) => (it.capacity[r] ?? 0) > 0);
}

interface InFlight {
  options: InstanceType[];
  readonly requests: MutableResources;
  pods: number;
  readonly order: number;
}

/** Karpenter's decision before consolidation for the first NodePool of `input`, which must have no topology rules. */
export function karpenterDecision(input: SchedulingInput): ReferencePlan {
  const pool = input.nodePools[0];
  const nodeClass = input.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
  const ctx = new NodePoolContext(
    pool,
    nodeClass,
    input.instanceTypes.get(pool.name) ?? [],
    input.nodes,
    input.daemonSets,
  );
  const overhead = ctx.daemonSetOverhead(ctx.requirements);
  const priced = ctx.instanceTypes.filter((it) => cheapestOffering(it, ctx.requirements) !== undefined);
  const pods = [...input.pods].sort(
    (a: Pod, b: Pod) =>
      (b.requests[CPU] ?? 0) - (a.requests[CPU] ?? 0) ||
      (b.requests[MEMORY] ?? 0) - (a.requests[MEMORY] ?? 0),
  );
  const inFlight: InFlight[] = [];
  let unschedulable = 0;
  for (const pod of pods) {
    inFlight.sort((a, b) => a.pods - b.pods || a.order - b.order);
    let placed = false;
    for (const node of inFlight) {
      const need: MutableResources = { ...node.requests };
      addInto(need, pod.requests);
      const options = node.options.filter((it) => fits(need, {}, it.allocatable));
      if (options.length === 0) continue;
      node.options = options;
      addInto(node.requests, pod.requests);
      node.pods++;
      placed = true;
      break;
    }
    if (placed) continue;
    const need: MutableResources = { ...overhead };
    addInto(need, pod.requests);
    const options = priced.filter(
      (it) =>
        fits(need, {}, it.allocatable) && (!ctx.limited || ctx.exceededLimit(it.capacity) === undefined),
    );
    if (options.length === 0) {
      unschedulable++;
      continue;
    }
    let largest: Resources = {};
    for (const it of options) {
      const m: MutableResources = { ...largest };
      for (const k in it.capacity) m[k] = Math.max(m[k] ?? 0, it.capacity[k]);
      largest = m;
    }
    if (ctx.limited) ctx.reserve(largest, 1);
    inFlight.push({ options, requests: need, pods: 1, order: inFlight.length });
  }
  const nodes = inFlight
    .sort((a, b) => a.order - b.order)
    .map((node) => {
      const generic = node.options.filter((it) => !isExotic(it));
      const launchable = generic.length > 0 ? generic : node.options;
      let best: ReferenceNode | undefined;
      for (const it of launchable) {
        const price = cheapestOffering(it, ctx.requirements)?.price ?? Number.POSITIVE_INFINITY;
        if (!best || price < best.price) best = { instanceType: it.name, price, pods: node.pods };
      }
      return best!;
    });
  return { nodes, costPerHour: nodes.reduce((s, n) => s + n.price, 0), unschedulable };
}
