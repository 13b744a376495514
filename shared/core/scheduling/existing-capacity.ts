import type { Pod } from '../model/pod';
import { addInto, copiesThatFit, type MutableResources } from '../model/resources';
import { firstUntoleratedTaint } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import { hostnameCap, nodeAllowed, nodeDomain } from './domains';
import type { PlacementRequest } from './placement-request';
import type { PodGroup } from './pod-groups';
import type { PlacementProfile } from './relaxation';
import { recordPlacement, type TopologyRegistry } from './topology';
import type { Placement } from './types';

/** An existing or in-flight node with its remaining room. */
export interface ExistingSlot {
  readonly node: StateNode;
  readonly used: MutableResources;
  /** Pending pods placed on it in this run. */
  readonly placed: Pod[];
}

/**
 * Capacity that exists already: running nodes and in-flight NodeClaims (Karpenter's
 * ExistingNode). Pending pods go here before any new node is planned.
 */
export class ExistingCapacity {
  private readonly slots: ExistingSlot[];

  constructor(nodes: readonly StateNode[]) {
    this.slots = nodes.map((node) => {
      const used: MutableResources = {};
      for (const p of node.pods) addInto(used, p.requests);
      return { node, used, placed: [] };
    });
  }

  /** Counts the pods already running in the topology counters. */
  recordRunningPods(registry: TopologyRegistry): void {
    for (const { node } of this.slots) {
      for (const pod of node.pods) registry.recordExisting(pod, (key) => nodeDomain(node, key));
    }
  }

  /** Nodes whose taints and labels admit the group under a profile (not cordoned). */
  candidates(group: PodGroup, profile: PlacementProfile): ExistingSlot[] {
    const pod = group.representative;
    return this.slots.filter(
      (s) =>
        !s.node.unschedulable &&
        firstUntoleratedTaint(pod.tolerations, s.node.taints) === undefined &&
        profile.terms.some((t) => t.requirements.matchesLabels(s.node.labels)),
    );
  }

  /**
   * Places as many pending pods as the first candidate with room takes; 0 when none has.
   * Candidates that cannot take the group any more are removed from `candidates`.
   */
  place(candidates: ExistingSlot[], request: PlacementRequest): number {
    const { group, profile, topology, pending, bulk, restrictions } = request;
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i];
      if (!nodeAllowed(restrictions, slot.node)) continue;
      const cap = hostnameCap(profile, topology, slot.node.name);
      const room = copiesThatFit(group.requests, slot.used, slot.node.allocatable);
      const n = Math.min(bulk, cap, room);
      if (n <= 0) {
        // Room and hostname counts only shrink while this group is placed: drop the node.
        candidates.splice(i--, 1);
        continue;
      }
      slot.placed.push(...pending.slice(0, n));
      addInto(slot.used, group.requests, n);
      recordPlacement(topology, n, (key) => nodeDomain(slot.node, key));
      return n;
    }
    return 0;
  }

  /** The pods placed on each node in this run. */
  placements(): Placement[] {
    return this.slots
      .filter((s) => s.placed.length > 0)
      .map((s): Placement => ({ node: s.node.name, pods: s.placed }));
  }
}
