import type { Catalog } from '../catalog/instance-type';
import { podDisruptable } from '../model/do-not-disrupt';
import { labelSelectorMatches } from '../model/label-selector';
import {
  ANNOTATIONS,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from '../model/labels';
import { conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import { isStaticNodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { isReschedulable } from '../provisioning/pods-to-provision';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { PodDisruptionBudget, StateNode } from '../state/cluster-state';
import { commandIdOf, MIN_COMMAND_TIMEOUT_MS } from './command-record';

/**
 * A node consolidation, drift or emptiness may act on (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/types.go `Candidate`, helpers.go `GetCandidates`): an initialized
 * NodeClaim of a podlift NodePool with its registered Node, the pods that would have to move,
 * and what it costs an hour.
 */
export interface Candidate {
  readonly claim: NodeClaim;
  readonly node: StateNode;
  readonly pool: NodePool;
  /** The pods that would move: not DaemonSet or mirror pods, not leaving already. */
  readonly pods: readonly Pod[];
  /** USD per hour (`podlift.dev/hourly-price`, else its offering in the catalog); 0 when unknown. */
  readonly price: number;
  /** Why the price is unknown, when it is (consolidation never takes an unpriced candidate). */
  readonly unpriced?: string;
  readonly capacityType: string;
  /**
   * Why the graceful disruption class (emptiness, consolidation) must not take it, when it must not.
   */
  readonly blocked?: string;
  /**
   * Why the eventual class (drift, static drift) must not take it, when it must not: as
   * {@link blocked}, except that a static NodePool is no block and, when its NodeClaim has a
   * terminationGracePeriod, neither are its pods' do-not-disrupt annotations and PodDisruptionBudgets
   * (types.go `NewCandidate`: `state.IgnorePodBlockEvictionError` for `EventualDisruptionClass`).
   */
  readonly eventualBlocked?: string;
}

/** A voluntary disruption method, as a command names it (methods.ts `DisruptionCommand`). */
export type DisruptionMethod = 'emptiness' | 'drift' | 'consolidation';

/**
 * Why `method` must not take the candidate, by the class Karpenter puts the method in
 * (disruption/types.go): drift is eventual, emptiness and consolidation graceful.
 */
export function blockedFor(c: Candidate, method: DisruptionMethod): string | undefined {
  return method === 'drift' ? c.eventualBlocked : c.blocked;
}

/**
 * Every candidate of the snapshot, blocked ones included (they get an Event saying why). The
 * replacements of a command whose candidates' pods have yet to move are none: Karpenter's
 * provisioner nominates the replacements for those pods — `StartCommand` first, then every
 * provisioning pass while the candidates are marked for deletion (queue.go) — and a nominated
 * node is no candidate (statenode.go `ValidateNodeDisruptable`: "node is nominated for a pending
 * pod"). Without it emptiness could take a replacement, still empty, while its command waits.
 */
export function disruptionCandidates(snapshot: ClusterSnapshot): Candidate[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const pairs = joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims);
  const awaited = new Set(
    pairs.flatMap(({ node, nodeClaim: claim }) => {
      const id = claim && commandIdOf(claim);
      // On a decision's snapshot the pods of a candidate being deleted are pending already
      // (`besideCommandsInFlight`); `podsLeaving` keeps that they have yet to move.
      const moving =
        !claim?.deletionTimestamp ||
        node?.pods.some(isReschedulable) === true ||
        (node !== undefined && snapshot.podsLeaving?.has(node.name) === true);
      return id !== undefined && moving ? [id] : [];
    }),
  );
  const candidates: Candidate[] = [];
  for (const { node, nodeClaim: claim } of pairs) {
    if (!node || !claim || claim.deletionTimestamp || node.deleting) continue;
    if (!conditionIsTrue(claim, 'Initialized')) continue;
    const replaces = claim.annotations[ANNOTATIONS.replaces];
    if (replaces !== undefined && awaited.has(replaces)) continue;
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    if (!pool) continue;
    const pods = node.pods.filter(isReschedulable);
    const budgets = snapshot.podDisruptionBudgets;
    const blocked = blockedBecause(node, pool, pods, budgets, snapshot.now);
    const eventualBlocked = claim.spec.terminationGracePeriod
      ? nodeBlockedBecause(node, pods)
      : evictionBlockedBecause(node, pods, budgets, snapshot.now);
    const priced = candidatePrice(claim, node, snapshot.catalog);
    candidates.push({
      claim,
      node,
      pool,
      pods,
      price: priced.price,
      ...(priced.unpriced ? { unpriced: priced.unpriced } : {}),
      capacityType: claim.labels[LABEL_CAPACITY_TYPE] ?? 'on-demand',
      ...(blocked ? { blocked } : {}),
      ...(eventualBlocked ? { eventualBlocked } : {}),
    });
  }
  return withoutKeptRoom(candidates, snapshot.now);
}

/**
 * How long a phased step's new node keeps its room for the candidates it was sized for, at most
 * (from its NodeClaim's creation): the orchestration's shortest command timeout (queue.go
 * `minRetryDuration`). The second phase normally follows within a minute or two of the first.
 */
export const ROOM_KEPT_MS = MIN_COMMAND_TIMEOUT_MS;

/**
 * The candidates less the new nodes of a phased global step (`podlift.dev/makes-room-for`) while
 * a candidate they were sized for can still move onto them — not blocked, pods to move — and for
 * at most {@link ROOM_KEPT_MS}. Without it the room looks like waste: under a budget of one node
 * the new node, holding only the first phase's pods and first in consolidation's order (fewest
 * pods, dearest), was replaced by a smaller one before the rest could move, and the step began
 * again — a pod evicted every two minutes. Karpenter keeps a node nominated for pods from
 * disruption the same way (statenode.go `ValidateNodeDisruptable`).
 */
function withoutKeptRoom(candidates: Candidate[], now: number): Candidate[] {
  const movable = new Set(candidates.filter((c) => !c.blocked && c.pods.length > 0).map((c) => c.claim.name));
  return candidates.filter((c) => {
    const roomFor = c.claim.annotations[ANNOTATIONS.makesRoomFor];
    if (!roomFor) return true;
    const created = Date.parse(c.claim.creationTimestamp ?? '');
    const kept = Number.isFinite(created) && now < created + ROOM_KEPT_MS;
    return !(kept && roomFor.split(',').some((name) => movable.has(name)));
  });
}

/**
 * Why Karpenter would not disrupt the node voluntarily (pkg/utils/pod `IsDisruptable`,
 * pkg/controllers/disruption `canBeTerminated`): the Node says `karpenter.sh/do-not-disrupt: "true"`
 * (pkg/controllers/state/statenode.go `ValidateNodeDisruptable`), a pod's do-not-disrupt is in
 * force (`"true"`, or a duration not yet over since it started: model/do-not-disrupt.ts),
 * a pod has no controller to recreate it, a PodDisruptionBudget allows no eviction of one of its
 * pods now, or the NodePool is static (its node count is fixed).
 */
export function blockedBecause(
  node: StateNode,
  pool: NodePool,
  pods: readonly Pod[],
  budgets: readonly PodDisruptionBudget[],
  now: number,
): string | undefined {
  if (isStaticNodePool(pool)) return `NodePool ${pool.name} is static`;
  return evictionBlockedBecause(node, pods, budgets, now);
}

/**
 * Why the node's pods may not be evicted now (statenode.go `ValidateNodeDisruptable`, then
 * `ValidatePodsDisruptable`): a block of the Node itself ({@link nodeBlockedBecause}), then a pod's
 * do-not-disrupt in force or a PodDisruptionBudget that allows no eviction of one of its pods.
 */
function evictionBlockedBecause(
  node: StateNode,
  pods: readonly Pod[],
  budgets: readonly PodDisruptionBudget[],
  now: number,
): string | undefined {
  const nodeBlock = nodeBlockedBecause(node, pods);
  if (nodeBlock) return nodeBlock;
  for (const pod of pods) {
    const name = `${pod.namespace}/${pod.name}`;
    if (!podDisruptable(pod, now)) return `pod ${name} has karpenter.sh/do-not-disrupt`;
    const pdb = budgets.find(
      (b) =>
        b.namespace === pod.namespace &&
        b.disruptionsAllowed <= 0 &&
        labelSelectorMatches(b.selector, pod.labels),
    );
    if (pdb) return `PodDisruptionBudget ${pdb.namespace}/${pdb.name} allows no eviction of pod ${name}`;
  }
  return undefined;
}

/**
 * The candidate with only the pods that need room elsewhere before it goes, as
 * kubernetes-sigs/karpenter pkg/controllers/disruption/helpers.go `SimulateScheduling` keeps only
 * pkg/utils/pdb `IsCurrentlyReschedulable` pods: not those whose do-not-disrupt is in force, nor
 * those a PodDisruptionBudget blocks for good (maxUnavailable 0 or "0%", minAvailable "100%", or
 * more than one budget, which the eviction API refuses) — "spinning up capacity until these pods
 * are evicted is wasteful". Only an eventual disruption (drift with a terminationGracePeriod) takes
 * a node with such pods; the drain evicts them when they allow it or the grace period ends.
 */
export function withReschedulablePods(
  c: Candidate,
  budgets: readonly PodDisruptionBudget[],
  now: number,
): Candidate {
  const fullyBlocked = (pod: Pod) => {
    const matching = budgets.filter(
      (b) => b.namespace === pod.namespace && labelSelectorMatches(b.selector, pod.labels),
    );
    return (
      matching.length > 1 ||
      matching.some((b) => b.maxUnavailable === 0 || b.maxUnavailable === '0%' || b.minAvailable === '100%')
    );
  };
  return { ...c, pods: c.pods.filter((pod) => podDisruptable(pod, now) && !fullyBlocked(pod)) };
}

/**
 * What blocks every voluntary disruption, eventual ones included: the Node's own
 * `karpenter.sh/do-not-disrupt: "true"` (statenode.go `ValidateNodeDisruptable`, checked before
 * the pods and never ignored), and a pod no controller would recreate (podlift's rule, stricter
 * than Karpenter's: such a pod would be lost, not moved).
 */
function nodeBlockedBecause(node: StateNode, pods: readonly Pod[]): string | undefined {
  if (node.annotations?.[ANNOTATIONS.doNotDisrupt] === 'true')
    return 'the Node has karpenter.sh/do-not-disrupt';
  const orphan = pods.find((pod) => pod.ownerKind === undefined);
  return orphan ? `pod ${orphan.namespace}/${orphan.name} has no controller` : undefined;
}

/**
 * What the candidate costs an hour: the `podlift.dev/hourly-price` podlift recorded at launch, or,
 * for a NodeClaim without one (carried over from Karpenter), the price of its offering in the
 * catalog by its instance type, zone and capacity type labels — the Node's labels, else the
 * claim's — as Karpenter's types.go `resolveNodePrice` looks up `OfferingPrice(zone,
 * capacityType)`: on-demand from the on-demand price, spot from the spot price of the zone, as the
 * provisioner prices its offerings (catalog/instance-type-resolution.ts `instanceTypeOfferings`).
 * No price to be found is 0 with why, worded as consolidation.go `ShouldDisrupt` words it.
 */
export function candidatePrice(
  claim: Pick<NodeClaim, 'annotations' | 'labels'>,
  node: Pick<StateNode, 'labels'>,
  catalog: Catalog | undefined,
): { price: number; unpriced?: string } {
  const recorded = Number(claim.annotations[ANNOTATIONS.hourlyPrice]);
  if (recorded > 0) return { price: recorded };
  const label = (key: string) => node.labels[key] ?? claim.labels[key];
  const type = label(LABEL_INSTANCE_TYPE) ?? '';
  const capacityType = label(LABEL_CAPACITY_TYPE);
  const zone = label(LABEL_ZONE);
  const unpriced = (why: string) => ({ price: 0, unpriced: why });
  if (!catalog) return unpriced('no instance type catalog is loaded to price it');
  if (!catalog.types.some((t) => t.name === type)) return unpriced(`Instance Type "${type}" not found`);
  if (!capacityType) return unpriced(`Node does not have label "${LABEL_CAPACITY_TYPE}"`);
  if (!zone) return unpriced(`Node does not have label "${LABEL_ZONE}"`);
  const price =
    capacityType === 'on-demand'
      ? catalog.prices.onDemand.get(type)
      : capacityType === 'spot'
        ? catalog.prices.spot.get(type)?.get(zone)
        : undefined;
  if (price === undefined || !(price > 0))
    return unpriced(`the catalog has no ${capacityType} price for Instance Type "${type}" in ${zone}`);
  return { price };
}
