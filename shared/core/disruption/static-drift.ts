import { LABEL_NODEPOOL } from '../model/labels';
import { isStaticNodePool, NODES_LIMIT } from '../model/nodepool';
import { staticNodeClaimPlan } from '../provisioning/static-pools';
import { instanceTypesByNodePool } from '../scheduling/plan-capacity';
import type { NodeClaimPlan } from '../scheduling/types';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import type { DisruptionReason } from './budgets';
import type { Candidate } from './candidates';

/** A candidate static drift passed over, and why. */
export interface StaticDriftPass {
  readonly candidate: Candidate;
  readonly why: string;
}

/** The drifted static candidates to replace now, and those passed over. */
export interface StaticDriftChoice {
  readonly chosen: readonly Candidate[];
  readonly passedOver: readonly StaticDriftPass[];
}

/**
 * Which drifted nodes of static NodePools to replace now, as kubernetes-sigs/karpenter
 * pkg/controllers/disruption/staticdrift.go `StaticDrift.ComputeCommands` decides per NodePool:
 * none while its Drifted budget allows none; none while it has more NodeClaims than `replicas`
 * (a scale-down or an earlier replacement is still under way: "We dont want to disrupt nodes until
 * scale down is complete"); else as many as the budget allows, no more than its node limit leaves
 * room for beside its NodeClaims (`ReserveNodeCount`: each replacement is a NodeClaim more until
 * its candidate is gone), in the order given (`drifted`: the longest drifted first). A candidate
 * the eventual class may not take is passed over with why. Each chosen one is replaced by a
 * NodeClaim made from its NodePool's template before it is deleted (`NewNodeClaimTemplate`),
 * whatever its pods: a static NodePool takes no pods from the scheduler.
 */
export function staticDriftChoice(
  drifted: readonly Candidate[],
  snapshot: Pick<ClusterSnapshot, 'nodeClaims'>,
  budgetFor: (c: Candidate, reason: DisruptionReason) => number,
): StaticDriftChoice {
  const chosen: Candidate[] = [];
  const passedOver: StaticDriftPass[] = [];
  const byPool = new Map<string, Candidate[]>();
  for (const c of drifted) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
  for (const [name, list] of byPool) {
    const pool = list[0].pool;
    const active = snapshot.nodeClaims.filter(
      (c) => c.labels[LABEL_NODEPOOL] === name && !c.deletionTimestamp,
    ).length;
    const budget = budgetFor(list[0], 'Drifted');
    const room = (pool.limits[NODES_LIMIT] ?? Number.POSITIVE_INFINITY) - active;
    const why =
      budget <= 0
        ? `the NodePool's disruption budget for Drifted allows no more nodes now`
        : active > (pool.replicas ?? 0)
          ? `static NodePool ${name} has ${active} NodeClaims for ${pool.replicas} replicas; waiting for it to scale down`
          : room <= 0
            ? `static NodePool ${name}'s node limit leaves no room for a replacement`
            : undefined;
    let allowed = Math.min(budget, room);
    for (const c of list) {
      const pass = why ?? c.eventualBlocked ?? (allowed > 0 ? undefined : limitOrBudget(budget, room));
      if (pass) passedOver.push({ candidate: c, why: pass });
      else {
        chosen.push(c);
        allowed--;
      }
    }
  }
  return { chosen, passedOver };
}

function limitOrBudget(budget: number, room: number): string {
  return budget <= room
    ? `the NodePool's disruption budget for Drifted allows no more nodes now`
    : `the NodePool's node limit leaves no room for another replacement`;
}

/**
 * The replacements of a static drift command's candidates: one NodeClaim from each one's NodePool
 * template (staticdrift.go: `scheduling.NewNodeClaimTemplate(np)`, one per command), and how many
 * have none (no catalog, or no offering the NodePool allows is available). Candidates of dynamic
 * NodePools are not its business.
 */
export function staticReplacementPlans(
  candidates: readonly Candidate[],
  snapshot: Pick<ClusterSnapshot, 'catalog' | 'nodeClasses' | 'unavailableOfferings'>,
): { plans: readonly NodeClaimPlan[]; missing: number } {
  const pools = candidates.map((c) => c.pool).filter(isStaticNodePool);
  if (!snapshot.catalog) return { plans: [], missing: pools.length };
  // Unmarked types: staticNodeClaimPlan's launchOptions leaves the unavailable offerings out.
  const types = instanceTypesByNodePool(pools, snapshot.nodeClasses, snapshot.catalog);
  const plans = pools.flatMap(
    (pool) => staticNodeClaimPlan(pool, types.get(pool.name) ?? [], snapshot.unavailableOfferings) ?? [],
  );
  return { plans, missing: pools.length - plans.length };
}
