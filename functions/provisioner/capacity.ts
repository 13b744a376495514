import { reservationsByNodeClass } from '../../shared/core/catalog/reserved-offerings';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import { newNodeClaim } from '../../shared/core/provisioning/nodeclaims';
import { withinPriceBand } from '../../shared/core/provisioning/price-band';
import {
  instanceTypesByNodePool,
  type PlanCapacityOptions,
  planCapacity,
} from '../../shared/core/scheduling/plan-capacity';
import type { NodeClaimPlan } from '../../shared/core/scheduling/types';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { schedulingCapacity } from '../../shared/core/state/cluster-snapshot';
import type { CapacityActions, ProvisionOptions, ProvisionOutcome } from '../capacity';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';
import { type LaunchResult, launchNodeClaim } from './launch';

/** Rounds of "insufficient capacity → mark → plan the pods again" within one invocation. */
const MAX_ROUNDS = 3;
/** NodeClaims created and launched at once: CreateFleet calls in flight. */
const CONCURRENCY = 8;

/**
 * The provisioner's capacity executor, which every loop that adds nodes goes through: each
 * plan becomes a NodeClaim first (intent recorded in the cluster), then an instance; when EC2
 * has no capacity for any of a plan's offerings the launcher has marked them unavailable, so
 * the plan's pods are planned again without them, up to {@link MAX_ROUNDS} times within the
 * invocation (Karpenter re-plans on its next batch; podlift does not wait for one).
 */
export function provisionerCapacity(runtime: LoopRuntime): CapacityActions {
  return {
    async provision(plans, snapshot, invocation, options = {}) {
      const outcomes: ProvisionOutcome[] = [];
      // NodeClaims made in this invocation that launched, or stay to be launched by the next run.
      const made: Made[] = [];
      let round = plans;
      for (let r = 0; r < MAX_ROUNDS && round.length > 0; r++) {
        const results = await mapConcurrently(round, CONCURRENCY, (plan) =>
          provisionOne(runtime, invocation, snapshot, plan, options),
        );
        const refused: NodeClaimPlan[] = [];
        for (const [i, result] of results.entries()) {
          const plan = round[i];
          if (result.kind === 'launched') {
            outcomes.push({ plan, launched: result.nodeClaim });
            made.push({ plan, nodeClaim: result.nodeClaim });
          } else if (
            result.kind === 'insufficient-capacity' &&
            r + 1 < MAX_ROUNDS &&
            options.replan !== false
          )
            refused.push(plan);
          else {
            outcomes.push({
              plan,
              failed: result.message,
              ...(result.claimName ? { nodeClaim: result.claimName } : {}),
              ...(result.kind === 'retry-later' ? { retrying: true } : {}),
            });
            if (result.kind === 'retry-later') made.push({ plan, nodeClaim: result.nodeClaim });
          }
        }
        round = refused.length > 0 ? replan(runtime, snapshot, refused, made) : [];
      }
      return outcomes;
    },
  };
}

async function provisionOne(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  plan: NodeClaimPlan,
  options: ProvisionOptions,
): Promise<LaunchResult> {
  const nodePool = snapshot.nodePools.find((p) => p.name === plan.nodePool);
  const nodeClass = snapshot.nodeClasses.find((c) => c.name === plan.nodeClass);
  const resolved = nodeClass && snapshot.nodeClassStatus.get(nodeClass.name);
  if (!nodePool || !nodeClass || !resolved || !snapshot.catalog) {
    return {
      kind: 'failed',
      message: `NodePool ${plan.nodePool}: EC2NodeClass ${plan.nodeClass} is not resolved`,
    };
  }
  const types = instanceTypesByNodePool(
    [nodePool],
    [nodeClass],
    snapshot.catalog,
    planOptions(runtime, snapshot),
  ).get(nodePool.name);
  const instanceTypes = new Map((types ?? []).map((t) => [t.name, t]));
  checkpoint(invocation);
  const claim = await runtime.ports.cluster.createNodeClaim(
    newNodeClaim(
      withinPriceBand(plan, nodePool.launchPriceBand, instanceTypes),
      nodePool,
      nodeClass,
      options.annotations,
    ),
  );
  invocation.metrics.add(METRICS.nodeClaimsCreated, 'Count', 1, { nodePool: nodePool.name });
  invocation.log.info('created NodeClaim', {
    nodeClaim: claim.name,
    nodePool: nodePool.name,
    pods: plan.pods.length,
    instanceType: plan.instanceType,
    capacityType: plan.capacityType,
    zone: plan.zone,
    price: plan.price,
    ...(options.reason ? { reason: options.reason } : {}),
  });
  checkpoint(invocation);
  return launchNodeClaim(runtime, invocation, claim, { nodePool, nodeClass, resolved, instanceTypes });
}

/**
 * A NodeClaim this invocation made that stays: launched, or throttled and left for the next
 * run to launch; and the plan it was made for.
 */
interface Made {
  readonly plan: NodeClaimPlan;
  readonly nodeClaim: NodeClaim;
}

/**
 * The refused plans' pods planned again, the offerings marked since excluded, as Karpenter's
 * next batch would plan them: with the NodeClaims made in this invocation that stay as in-flight
 * capacity (a throttled one sized from its spec and counted against its NodePool's limits, see
 * `schedulingCapacity`) and their pods planned again with the refused ones, so topology counts
 * them (a zonal spread planned without them would pile the refused zone's pods into the others)
 * and they stay where they are (the in-flight claims were sized for them).
 */
function replan(
  runtime: LoopRuntime,
  snapshot: ClusterSnapshot,
  refused: readonly NodeClaimPlan[],
  made: readonly Made[],
): NodeClaimPlan[] {
  if (!snapshot.catalog) return [];
  const now: ClusterSnapshot = {
    ...snapshot,
    nodeClaims: [...snapshot.nodeClaims, ...made.map((m) => m.nodeClaim)],
  };
  const result = planCapacity(
    {
      pods: [...made.map((m) => m.plan), ...refused].flatMap((plan) => plan.pods),
      daemonSets: snapshot.daemonSets,
      nodes: schedulingCapacity(now),
      nodePools: snapshot.nodePools,
      nodeClasses: snapshot.nodeClasses,
    },
    snapshot.catalog,
    planOptions(runtime, snapshot),
  );
  return [...result.nodeClaims];
}

/**
 * What the provisioner plans with besides the cluster: the offerings EC2 refused recently, and
 * each resolved EC2NodeClass's capacity reservations when the ReservedCapacity gate is on.
 */
export function planOptions(runtime: LoopRuntime, snapshot: ClusterSnapshot): PlanCapacityOptions {
  return {
    unavailableOfferings: runtime.unavailable.keys(),
    reservations: reservationsByNodeClass(
      snapshot.nodeClassStatus,
      runtime.ports.config.featureGates.reservedCapacity,
    ),
  };
}
