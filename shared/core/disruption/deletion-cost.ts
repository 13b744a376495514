import { podDisruptable } from '../model/do-not-disrupt';
import { POD_DELETION_COST } from '../model/eviction-cost';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import { conditionIsTrue } from '../model/nodeclaim';
import { isStaticNodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { StateNode } from '../state/cluster-state';
import { type Candidate, candidatePrice, disruptionCandidates } from './candidates';
import { underCommand } from './command-record';
import { type Consolidation, simulateRemoval } from './methods';
import type { ConsolidationSettings } from './replacement-options';

/**
 * Scale-down steering (the `PodDeletionCostManagement` gate): podlift writes
 * `controller.kubernetes.io/pod-deletion-cost` on the ReplicaSet pods of the nodes it would
 * remove first, so that a Deployment scaled down deletes their pods first and leaves those nodes
 * empty — deleted by emptiness, with no eviction — instead of one pod from every node, which is
 * what the ReplicaSet controller does by itself (kubernetes pkg/controller/replicaset/replica_set.go
 * `getPodsToDelete` ranks the pods of nodes holding more of the ReplicaSet's pods first, after the
 * deletion cost: pkg/controller/controller_utils.go `ActivePodsWithRanks.Less`).
 *
 * It follows the design Karpenter has under review, not in a release (kubernetes-sigs/karpenter
 * PR #2894, RFC #2935 designs/pod-deletion-cost-controller.md): nodes of a disruption in flight
 * first (their pods are evicted anyway), then drifted nodes, then the rest; nodes whose pods or
 * Node say do-not-disrupt are not steered; at most 50 nodes; a cost a user set is never touched.
 * Differences: the rest go by the dollars an hour emptying them saves per pod the scale-down must
 * delete, the most first, where the RFC goes by fewest pods (consolidation's order): a scale-down
 * deletes a given number of pods, and the nodes it can empty with them should be those that cost
 * the most — an m5.2xlarge with two pods before a t3.medium with one; a node's cost is its own
 * ({@link steeredCost}), not its position from −n, so it stays put as other nodes change; podlift
 * writes one annotation of its own (`podlift.dev/managed-deletion-cost`, the value it wrote) where
 * the RFC writes two; the NodePool's disruption budget does not bound how many nodes are steered,
 * since a scale-down is the user's deletion, not a disruption podlift makes. And a node a
 * scale-down emptied is left to emptiness: {@link leaveEmptyNodesEmpty}, {@link waitsForEmptiness}.
 */

/** How many nodes' pods carry a steered cost at once (the RFC's cap of 50 ranked nodes). */
export const MAX_STEERED_NODES = 50;

/** One pod's annotations to write (a string sets one, null removes it). */
export interface DeletionCostChange {
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  readonly annotations: Readonly<Record<string, string | null>>;
  /** The pod's resourceVersion as read: the write is refused if the pod changed since. */
  readonly resourceVersion?: string;
}

/** A pod podlift steers: its mark is there and still equals its pod-deletion-cost. */
function managedCost(pod: Pod): string | undefined {
  const mark = pod.annotations?.[ANNOTATIONS.managedDeletionCost];
  return mark === pod.annotations?.[POD_DELETION_COST] ? mark : undefined;
}

/** A pod whose pod-deletion-cost is someone else's: set without podlift's mark, or changed since. */
function userCost(pod: Pod): boolean {
  return pod.annotations?.[POD_DELETION_COST] !== undefined && managedCost(pod) === undefined;
}

/** Only the ReplicaSet controller reads the cost to pick whom to delete; only live pods are picked. */
const steerable = (pod: Pod) => pod.ownerKind === 'ReplicaSet' && !pod.deleting;

interface Ranked {
  readonly node: StateNode;
  /** 0: being disrupted or deleted; 1: drifted; 2: the rest. */
  readonly group: number;
  readonly pods: number;
  readonly price: number;
}

/**
 * The nodes to empty first, in order: podlift's nodes (an initialized NodeClaim of a NodePool it
 * knows, not static) whose Node and pods allow disruption, by group, then by what emptying them
 * saves for each pod a scale-down must take (price ÷ ReplicaSet pods, the most first), then the
 * fewer pods, then by name. Nodes without ReplicaSet pods are never steered.
 */
function rankedNodes(snapshot: ClusterSnapshot): Ranked[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const ranked: Ranked[] = [];
  for (const { node, nodeClaim: claim } of joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims)) {
    if (!node || !claim || !conditionIsTrue(claim, 'Initialized')) continue;
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    if (!pool || isStaticNodePool(pool)) continue;
    if (node.annotations?.[ANNOTATIONS.doNotDisrupt] === 'true') continue;
    if (!node.pods.every((p) => podDisruptable(p, snapshot.now))) continue;
    const going = node.deleting || claim.deletionTimestamp !== undefined || underCommand(claim);
    ranked.push({
      node,
      group: going ? 0 : conditionIsTrue(claim, 'Drifted') ? 1 : 2,
      pods: node.pods.filter(steerable).length,
      price: candidatePrice(claim, node, snapshot.catalog).price,
    });
  }
  return ranked.sort(
    (a, b) =>
      a.group - b.group ||
      b.price / b.pods - a.price / a.pods ||
      a.pods - b.pods ||
      (a.node.name < b.node.name ? -1 : 1),
  );
}

/** Steps of $0.0001/h per pod, at most 99,999 ($10/h a pod). */
const PER_POD_STEPS = 100_000;
/** Nodes that save as much per pod are told apart by a hash of their name, 0 to 999. */
const TIE_STEPS = 1_000;
/** Each group's costs lie below the next group's. */
const GROUP_SPAN = PER_POD_STEPS * TIE_STEPS;

/**
 * A node's pods' pod-deletion-cost: `-(3 - group) × 10^8 - (price ÷ pods in $0.0001/h) × 1,000 -
 * (a hash of the node's name, 0-999)`, the dollars capped within the group. It depends on the node
 * alone, not on its position among the others, so a run rewrites only the pods of nodes whose own
 * pods changed: the ReplicaSet documentation warns against updating the annotation often. Every
 * steered pod goes before an unannotated one (cost 0); nodes alike in group and dollars per pod
 * still differ, so a scale-down empties one of them rather than taking a pod from each (the
 * ReplicaSet's next key spreads). Within int32, as the ReplicaSet controller reads it.
 */
export function steeredCost(group: number, price: number, pods: number, node: string): number {
  const perPod = Math.min(PER_POD_STEPS - 1, Math.round((price / pods) * 10_000));
  return -(3 - group) * GROUP_SPAN - perPod * TIE_STEPS - (fnv1a(node) % TIE_STEPS);
}

/** FNV-1a over the UTF-16 code units: a stable, well-spread hash of a short name. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * The annotations to write so that pod-deletion-cost steers scale-downs (see the module comment):
 * the ReplicaSet pods of the 50 first-ranked nodes get their node's {@link steeredCost}, nodes
 * without ReplicaSet pods take no rank, and every other pod podlift steered loses its cost.
 * With `enabled` false every cost podlift wrote is removed. Pods whose cost a user set are left
 * alone, and a pod already at its cost needs no write: a run in a steady cluster writes nothing.
 * In the order to write them: the first-ranked node's pods first.
 */
export function deletionCostChanges(snapshot: ClusterSnapshot, enabled: boolean): DeletionCostChange[] {
  const wanted = new Map<Pod, { node: string; cost: string }>();
  if (enabled) {
    const steered = rankedNodes(snapshot)
      .filter((r) => r.pods > 0)
      .slice(0, MAX_STEERED_NODES);
    for (const { node, group, price, pods } of steered) {
      const cost = String(steeredCost(group, price, pods, node.name));
      for (const pod of node.pods)
        if (steerable(pod) && !userCost(pod)) wanted.set(pod, { node: node.name, cost });
    }
  }
  const changes: DeletionCostChange[] = [];
  for (const [pod, { node, cost }] of wanted)
    if (managedCost(pod) !== cost) changes.push(change(pod, node, cost));
  for (const node of snapshot.nodes)
    for (const pod of node.pods)
      if (!wanted.has(pod) && pod.annotations?.[ANNOTATIONS.managedDeletionCost] !== undefined)
        changes.push(change(pod, node.name, userCost(pod) ? undefined : null));
  return changes;
}

/**
 * The write for one pod: a cost and podlift's mark of it; null removes both; `undefined` (a user
 * changed a cost podlift wrote) removes only the mark, and the user's value stays.
 */
function change(pod: Pod, nodeName: string, cost: string | null | undefined): DeletionCostChange {
  const annotations: Record<string, string | null> =
    cost === undefined
      ? { [ANNOTATIONS.managedDeletionCost]: null }
      : { [POD_DELETION_COST]: cost, [ANNOTATIONS.managedDeletionCost]: cost };
  return {
    namespace: pod.namespace,
    name: pod.name,
    nodeName,
    annotations,
    ...(pod.resourceVersion ? { resourceVersion: pod.resourceVersion } : {}),
  };
}

/**
 * The snapshot as consolidation should simulate it with scale-down steering: the Nodes of empty
 * candidates (no pod that would move, not blocked, of a NodePool that consolidates) take no pods,
 * as those of commands in flight take none (commands-in-flight.ts `besideCommandsInFlight`).
 * Emptiness deletes such a node once it has been empty for consolidateAfter and the budget allows;
 * until then Karpenter's consolidation may move another node's pods onto it — a scale-down that
 * steering emptied would then be refilled by evictions, the churn steering is there to spare.
 * Provisioning still places pending pods there (only the disruption simulation changes).
 */
export function leaveEmptyNodesEmpty(snapshot: ClusterSnapshot): ClusterSnapshot {
  const empty = new Set(
    disruptionCandidates(snapshot)
      .filter((c) => c.pods.length === 0 && !c.blocked && c.pool.disruption.consolidateAfter !== 'Never')
      .map((c) => c.node),
  );
  if (empty.size === 0) return snapshot;
  return {
    ...snapshot,
    nodes: snapshot.nodes.map((n) => (empty.has(n) ? { ...n, unschedulable: true } : n)),
  };
}

/**
 * The snapshot consolidation and its validation simulate on: with scale-down steering (the
 * `PodDeletionCostManagement` gate), nodes a scale-down emptied are left to emptiness, not
 * refilled ({@link leaveEmptyNodesEmpty}); without it, the snapshot as it is, as in Karpenter.
 */
export function consolidationRoom(
  snapshot: ClusterSnapshot,
  settings: Pick<ConsolidationSettings, 'podDeletionCostManagement'>,
): ClusterSnapshot {
  return settings.podDeletionCostManagement ? leaveEmptyNodesEmpty(snapshot) : snapshot;
}

/**
 * Whether consolidation should wait for emptiness rather than take `consolidation` of `chosen`
 * (scale-down steering only): it replaces them on the snapshot without the emptied nodes
 * ({@link consolidationRoom}), while with those nodes they could be deleted. Emptiness takes an
 * emptied node within consolidateAfter; replacing the candidates meanwhile would evict their pods
 * and launch a node for them as well (in the soak, 28 replacements where 5 were made without the
 * rule). After it, the candidates are judged again, on the room that is left.
 */
export function waitsForEmptiness(
  chosen: readonly Candidate[],
  consolidation: Consolidation,
  snapshot: ClusterSnapshot,
  settings: Pick<ConsolidationSettings, 'podDeletionCostManagement' | 'spotToSpotConsolidation'>,
): boolean {
  if (consolidation.action !== 'replace' || consolidationRoom(snapshot, settings) === snapshot) return false;
  return simulateRemoval(chosen, snapshot, settings)?.action === 'delete';
}
