import type { Pod } from '../model/pod';
import {
  addInto,
  CPU,
  copiesThatFit,
  MEMORY,
  type MutableResources,
  PODS,
  type Resources,
} from '../model/resources';
import { firstUntoleratedTaint } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import { hostnameCap, nodeAllowed, nodeDomain } from './domains';
import type { PlacementRequest } from './placement-request';
import type { PodGroup } from './pod-groups';
import type { PlacementProfile } from './relaxation';
import { RoomIndex } from './room-index';
import { recordPlacement, type TopologyRegistry } from './topology';
import type { Placement } from './types';

/**
 * Capacity that exists already: running nodes and in-flight NodeClaims (Karpenter's
 * ExistingNode, kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/existingnode.go).
 * Pending pods go here before any new node is planned.
 *
 * Split in two so that one decision can simulate many runs without rebuilding it: an
 * {@link ExistingCapacityBase} is what the nodes hold (their pods' requests, their free room
 * indexed), computed once; an {@link ExistingCapacity} is one scheduling run's view of it, less
 * the nodes the run leaves out, copying a node's figures only when the run places a pod on it.
 * Karpenter builds its ExistingNodes anew in every `NewScheduler` (scheduler.go, called by
 * disruption/helpers.go `SimulateScheduling` for each simulation); podlift's disruption decision
 * runs up to a hundred and more simulations over one snapshot, and rebuilding 80,000 pods' worth
 * of nodes for each was most of its time.
 */
export class ExistingCapacityBase {
  /** The pods' requests on each node, by node index. Never changed after construction. */
  readonly used: readonly Resources[];
  /** Each node's free room (allocatable − used). Runs change clones of it, never it. */
  readonly room = new RoomIndex();
  /** Running pods grouped by what topology counters match (namespace and labels), built on first need. */
  private podClasses?: RunningPodClasses;

  constructor(readonly nodes: readonly StateNode[]) {
    this.used = nodes.map((node) => {
      const used: MutableResources = {};
      for (const p of node.pods) addInto(used, p.requests);
      return used;
    });
    nodes.forEach((node, i) => {
      this.room.push(freeRoom(node, this.used[i]));
    });
  }

  /** A scheduling run's view of these nodes less those named in `without`. */
  without(names: ReadonlySet<string>): ExistingCapacity {
    const excluded = new Uint8Array(this.nodes.length);
    this.nodes.forEach((n, i) => {
      if (names.has(n.name)) excluded[i] = 1;
    });
    return new ExistingCapacity(this, excluded, true);
  }

  /** The running pods' classes, computed once for every view. */
  classes(): RunningPodClasses {
    this.podClasses ??= runningPodClasses(this.nodes);
    return this.podClasses;
  }
}

/**
 * Running pods by class: pods of one class (same namespace and labels) match the same topology
 * counters, so a run asks once per class whether any counter counts them.
 */
interface RunningPodClasses {
  /** One pod of each class. */
  readonly representatives: readonly Pod[];
  /** Per node, per pod (in order), its class. */
  readonly classOf: readonly Int32Array[];
  /** Whether some running pod carries required pod anti-affinity (recorded whatever its class). */
  readonly antiAffinity: boolean;
}

function runningPodClasses(nodes: readonly StateNode[]): RunningPodClasses {
  const ids = new Map<string, number>();
  const representatives: Pod[] = [];
  const classOf = nodes.map((node) =>
    Int32Array.from(node.pods, (pod) => {
      const key = `${pod.namespace}\0${JSON.stringify(pod.labels)}`;
      let id = ids.get(key);
      if (id === undefined) {
        id = representatives.length;
        ids.set(key, id);
        representatives.push(pod);
      }
      return id;
    }),
  );
  const antiAffinity = nodes.some((node) => node.pods.some((pod) => pod.podAntiAffinity.length > 0));
  return { representatives, classOf, antiAffinity };
}

/** The room index's view of a node's free room (the resources it tracks). */
function freeRoom(node: StateNode, used: Resources): Resources {
  const free = (k: string) => (node.allocatable[k] ?? 0) - (used[k] ?? 0);
  return { [CPU]: free(CPU), [MEMORY]: free(MEMORY), [PODS]: free(PODS) };
}

/** A pod group's existing nodes under one profile, walked in node order as places are taken. */
export interface ExistingCandidates {
  readonly group: PodGroup;
  readonly profile: PlacementProfile;
  /** Nodes before `frontier` that admit the group and may still take some of it, in order. */
  readonly kept: number[];
  /** Nodes from here on are not looked at yet. */
  frontier: number;
}

/**
 * One scheduling run's existing capacity: the base's nodes less the excluded ones, with the
 * pending pods this run placed on them.
 */
export class ExistingCapacity {
  /** Requests on the nodes this run placed pods on (copied from the base on first placement). */
  private readonly usedHere = new Map<number, MutableResources>();
  /** Pending pods placed on each node in this run. */
  private readonly placed = new Map<number, Pod[]>();
  private readonly base: ExistingCapacityBase;
  /** The base's room index until this run first places a pod, then its own copy. */
  private room: RoomIndex;
  private ownRoom = false;

  /**
   * The nodes as they are now (a base of their own, nothing excluded). `excluded` (1 = left
   * out, by node index) and `shared` are for {@link ExistingCapacityBase.without}.
   */
  constructor(
    nodes: readonly StateNode[] | ExistingCapacityBase,
    private readonly excluded?: Uint8Array,
    /** Whether the base serves many runs: then its pod classes are worth computing. */
    private readonly shared?: boolean,
  ) {
    this.base = nodes instanceof ExistingCapacityBase ? nodes : new ExistingCapacityBase(nodes);
    this.room = this.base.room;
  }

  /**
   * Counts the pods already running in the topology counters. A pod no counter matches and that
   * carries no required anti-affinity changes no count (`TopologyRegistry.recordExisting`), so a
   * shared base skips the classes of pods no counter counts instead of offering each pod to
   * every counter; the pods that count are recorded in the same order either way.
   */
  recordRunningPods(registry: TopologyRegistry): void {
    const { nodes } = this.base;
    const counted = this.shared ? this.countedClasses(registry) : undefined;
    if (counted && !counted.includes(true) && !this.base.classes().antiAffinity) return;
    nodes.forEach((node, i) => {
      if (this.excluded?.[i]) return;
      const classOf = counted && this.base.classes().classOf[i];
      const domainOf = (key: string) => nodeDomain(node, key);
      node.pods.forEach((pod, p) => {
        if (classOf && !counted[classOf[p]] && pod.podAntiAffinity.length === 0) return;
        registry.recordExisting(pod, domainOf);
      });
    });
  }

  /** Per running pod class, whether some counter of the registry counts its pods. */
  private countedClasses(registry: TopologyRegistry): boolean[] {
    return this.base.classes().representatives.map((pod) => registry.counts(pod));
  }

  /** The group's candidate nodes under a profile: those whose taints and labels admit it, not cordoned. */
  candidates(group: PodGroup, profile: PlacementProfile): ExistingCandidates {
    return { group, profile, kept: [], frontier: 0 };
  }

  /**
   * Places as many pending pods as the first candidate with room takes; 0 when none has.
   * Candidates that cannot take the group any more are dropped from `candidates`: room and
   * hostname counts only shrink while a group is placed. The nodes are walked in order, as
   * Karpenter's `addToExistingNode` tries them (scheduler.go), but the room index jumps over
   * every node without room for one pod of the group, which that walk would only have dropped,
   * and whether a node admits the group is asked only of the nodes the walk reaches.
   */
  place(candidates: ExistingCandidates, request: PlacementRequest): number {
    const { kept } = candidates;
    let w = 0;
    for (let r = 0; r < kept.length; r++) {
      const i = kept[r];
      const n = this.tryPlace(i, request);
      if (n !== 0) kept[w++] = i;
      if (n > 0) {
        for (r++; r < kept.length; r++) kept[w++] = kept[r];
        kept.length = w;
        return n;
      }
    }
    kept.length = w;
    const { group, profile } = candidates;
    for (;;) {
      const i = this.room.next(candidates.frontier, group.requests);
      if (i < 0) {
        candidates.frontier = this.base.nodes.length;
        return 0;
      }
      candidates.frontier = i + 1;
      if (!this.admits(i, group, profile)) continue;
      const n = this.tryPlace(i, request);
      if (n !== 0) kept.push(i);
      if (n > 0) return n;
    }
  }

  /** Whether node `i` is in this run, not cordoned, and its taints and labels admit the group. */
  private admits(i: number, group: PodGroup, profile: PlacementProfile): boolean {
    const node = this.base.nodes[i];
    return (
      !this.excluded?.[i] &&
      !node.unschedulable &&
      firstUntoleratedTaint(group.representative.tolerations, node.taints) === undefined &&
      profile.terms.some((t) => t.requirements.matchesLabels(node.labels))
    );
  }

  /**
   * Places on node `i` what it takes of the request: the number placed, 0 when it cannot take
   * any (drop it), −1 when the request's domains rule it out for now (keep it).
   */
  private tryPlace(i: number, request: PlacementRequest): number {
    const { group, profile, topology, pending, bulk, restrictions } = request;
    const node = this.base.nodes[i];
    if (!nodeAllowed(restrictions, node)) return -1;
    const cap = hostnameCap(profile, topology, node.name);
    const n = Math.min(bulk, cap, copiesThatFit(group.requests, this.usedOn(i), node.allocatable));
    if (n <= 0) return 0;
    const placed = this.placed.get(i);
    if (placed) placed.push(...pending.slice(0, n));
    else this.placed.set(i, pending.slice(0, n));
    const used = this.ownUsed(i);
    addInto(used, group.requests, n);
    if (!this.ownRoom) {
      this.room = this.room.clone();
      this.ownRoom = true;
    }
    this.room.set(i, freeRoom(node, used));
    recordPlacement(topology, n, (key) => nodeDomain(node, key));
    return n;
  }

  private usedOn(i: number): Resources {
    return this.usedHere.get(i) ?? this.base.used[i];
  }

  /** Node `i`'s requests as this run's own, copied from the base the first time. */
  private ownUsed(i: number): MutableResources {
    let used = this.usedHere.get(i);
    if (!used) {
      used = { ...this.base.used[i] };
      this.usedHere.set(i, used);
    }
    return used;
  }

  /** The pods placed on each node in this run, in node order. */
  placements(): Placement[] {
    return [...this.placed.keys()]
      .sort((a, b) => a - b)
      .map((i): Placement => ({ node: this.base.nodes[i].name, pods: this.placed.get(i)! }));
  }
}
