import type { InstanceType } from '../catalog/instance-type';
import { doNotDisruptActive } from '../model/do-not-disrupt';
import { durationMs } from '../model/duration';
import { evictionCost } from '../model/eviction-cost';
import { ANNOTATIONS, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { isStaticNodePool, NODES_LIMIT, type NodePool } from '../model/nodepool';
import { Requirement, Requirements } from '../model/requirements';
import type { NodeClaimPlan } from '../scheduling/types';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { StateNode } from '../state/cluster-state';
import { launchOptions } from './claim-options';

/**
 * Static NodePools (`spec.replicas`, kubernetes-sigs/karpenter pkg/controllers/static/provisioning):
 * a fixed number of nodes whatever the pods, as kOps' InstanceGroup minSize maps to. Each run
 * plans the NodeClaims missing to reach `replicas` — capped by `limits.nodes` — so a lost node is
 * replaced; one NodeClaim per missing node, launched as the cheapest offering its requirements
 * allow. Static pools take no pending pods and are never consolidated.
 */
export function staticPoolPlans(
  pools: readonly NodePool[],
  claims: readonly NodeClaim[],
  instanceTypes: ReadonlyMap<string, readonly InstanceType[]>,
  unavailable: ReadonlySet<string>,
): NodeClaimPlan[] {
  const plans: NodeClaimPlan[] = [];
  for (const pool of pools) {
    if (!isStaticNodePool(pool)) continue;
    const active = claims.filter(
      (c) => c.labels[LABEL_NODEPOOL] === pool.name && !c.deletionTimestamp,
    ).length;
    const cap = pool.limits[NODES_LIMIT] ?? Number.POSITIVE_INFINITY;
    const missing = Math.min(pool.replicas ?? 0, cap) - active;
    if (missing <= 0) continue;
    const plan = staticNodeClaimPlan(pool, instanceTypes.get(pool.name) ?? [], unavailable);
    if (!plan) continue;
    for (let i = 0; i < missing; i++) plans.push(plan);
  }
  return plans;
}

/**
 * One NodeClaim made from a static NodePool's template (Karpenter's `NewNodeClaimTemplate`):
 * launched as the cheapest offering its requirements allow among `instanceTypes`, with no pods.
 * Undefined when no offering is allowed. Also what a drifted static node is replaced by
 * (disruption/static-drift.ts).
 */
export function staticNodeClaimPlan(
  pool: NodePool,
  instanceTypes: readonly InstanceType[],
  unavailable: ReadonlySet<string>,
): NodeClaimPlan | undefined {
  const requirements = Requirements.from(pool.template.requirements);
  const types = instanceTypes.filter((t) => !requirements.intersects(t.requirements));
  const options = launchOptions(pool.template.requirements, {}, types, unavailable);
  const [cheapest] = options;
  if (!cheapest) return undefined;
  return {
    nodePool: pool.name,
    nodeClass: pool.template.nodeClassRef.name,
    instanceTypeOptions: options,
    instanceType: cheapest.name,
    capacityType: cheapest.capacityType,
    capacityTypes: [...new Set(options.map((o) => o.capacityType))],
    zone: cheapest.zone,
    zones: [...new Set(options.map((o) => o.zone))],
    price: cheapest.price,
    requirements: requirements.with(
      Requirement.of(LABEL_INSTANCE_TYPE, 'In', [...new Set(options.map((o) => o.name))]),
    ),
    labels: {},
    taints: pool.template.taints,
    startupTaints: pool.template.startupTaints,
    pods: [],
    requests: {},
    daemonSetRequests: {},
  };
}

/** A NodeClaim a static NodePool no longer needs, and why it was picked. */
export interface StaticScaleDown {
  readonly nodePool: string;
  readonly nodeClaim: string;
  readonly why: string;
}

/**
 * The NodeClaims to delete so each static NodePool comes down to `replicas` after it was
 * lowered (kubernetes-sigs/karpenter pkg/controllers/static/deprovisioning `Reconcile` and
 * `getDeprovisioningCandidates`). Only running NodeClaims count — not deleting and not under a
 * disruption command, whose replacement would otherwise be taken for a surplus node. Picked in
 * Karpenter's order: NodeClaims not launched yet; then empty nodes (no pods but DaemonSet ones,
 * none with `karpenter.sh/do-not-disrupt`; a launched node not joined yet is empty); then nodes
 * without do-not-disrupt pods before those with, cheapest to disrupt first (the pods' eviction
 * costs times the node's remaining lifetime). Deleting them hands them to termination's drain.
 */
export function staticPoolExcess(
  pools: readonly NodePool[],
  claims: readonly NodeClaim[],
  nodes: readonly StateNode[],
  now: number,
): StaticScaleDown[] {
  const picked: StaticScaleDown[] = [];
  const nodeOf = new Map(
    joinNodesAndClaims(nodes, claims).flatMap(({ node, nodeClaim }) =>
      nodeClaim && node ? [[nodeClaim.name, node] as const] : [],
    ),
  );
  for (const pool of pools) {
    if (!isStaticNodePool(pool)) continue;
    const running = claims.filter(
      (c) =>
        c.labels[LABEL_NODEPOOL] === pool.name &&
        !c.deletionTimestamp &&
        !c.annotations[ANNOTATIONS.disruptionCommand],
    );
    const excess = running.length - (pool.replicas ?? 0);
    if (excess <= 0) continue;
    const ranked = running
      .map((claim) => ({ claim, ...scaleDownRank(claim, nodeOf.get(claim.name), now) }))
      .sort((a, b) => a.tier - b.tier || a.cost - b.cost || (a.claim.name < b.claim.name ? -1 : 1));
    for (const { claim, why } of ranked.slice(0, excess))
      picked.push({ nodePool: pool.name, nodeClaim: claim.name, why });
  }
  return picked;
}

/** Where a NodeClaim stands in the scale-down order: tier first, then disruption cost. */
function scaleDownRank(
  claim: NodeClaim,
  node: StateNode | undefined,
  now: number,
): { tier: number; cost: number; why: string } {
  if (!claim.status.providerID) return { tier: 0, cost: 0, why: 'not launched yet' };
  const pods = node?.pods.filter((p) => !p.deleting) ?? [];
  const doNotDisrupt = pods.some((p) => doNotDisruptActive(p, now));
  if (!doNotDisrupt && pods.every((p) => p.ownerKind === 'DaemonSet'))
    return { tier: 1, cost: 0, why: 'empty' };
  const cost = pods.reduce((sum, p) => sum + evictionCost(p), 0) * lifetimeRemaining(claim, now);
  return doNotDisrupt
    ? {
        tier: 3,
        cost,
        why: 'has karpenter.sh/do-not-disrupt pods, but the NodePool has more nodes than replicas',
      }
    : { tier: 2, cost, why: 'cheapest to disrupt' };
}

/** The share of its expireAfter a NodeClaim has left, in [0, 1] (pkg/utils/disruption `LifetimeRemaining`). */
function lifetimeRemaining(claim: NodeClaim, now: number): number {
  const ttl = claim.spec.expireAfter ? durationMs(claim.spec.expireAfter) : undefined;
  if (ttl === undefined || ttl <= 0 || !claim.creationTimestamp) return 1;
  const left = ttl - (now - Date.parse(claim.creationTimestamp));
  return Math.min(1, Math.max(0, left / ttl));
}
