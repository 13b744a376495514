import { expiringCapacityBlockClaims } from '../../shared/core/lifecycle/capacity-block-expiration';
import { nodeClassReady } from '../../shared/core/model/ec2nodeclass-status';
import { podsToProvision } from '../../shared/core/provisioning/pods-to-provision';
import { staticPoolExcess, staticPoolPlans } from '../../shared/core/provisioning/static-pools';
import { instanceTypesByNodePool, planCapacity } from '../../shared/core/scheduling/plan-capacity';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { schedulingCapacity } from '../../shared/core/state/cluster-snapshot';
import { loadClusterSnapshot } from '../cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint, withClusterLease } from '../lease';
import { METRICS, timeDecision } from '../observability';
import type { LoopRuntime } from '../runtime';
import { planOptions, provisionerCapacity } from './capacity';
import { advanceLifecycle } from './lifecycle';
import { existingNominations, recordPodEvents } from './pod-events';
import { launchRecordedClaims } from './repair';
import { reportNodeClasses, reportNodePools } from './status';

/** What one provisioner run did. */
export interface ProvisionerSummary {
  readonly ran: boolean;
  readonly lifecycleSteps: number;
  readonly repaired: number;
  readonly podsConsidered: number;
  readonly nodeClaimsLaunched: number;
  readonly nodeClaimsFailed: number;
  readonly podsUnschedulable: number;
}

/**
 * One provisioner run (Karpenter's provisioner and NodeClaim lifecycle controllers in one
 * level-triggered pass), holding the cluster Lease: read the cluster; advance NodeClaims whose
 * Node joined; launch NodeClaims an earlier run recorded but did not launch; plan the pods that
 * need capacity against the Nodes and in-flight NodeClaims; create and launch a NodeClaim per
 * plan; tell the pods; keep what EC2 refused on the Lease for the other loops and containers.
 */
export async function runProvisioner(
  runtime: LoopRuntime,
  invocation: Invocation,
): Promise<ProvisionerSummary> {
  const run = await withClusterLease(runtime.ports.lease, invocation, async (held) => {
    const { snapshot, nodeClassFailures } = await loadClusterSnapshot(
      runtime.ports,
      held,
      runtime.unavailable,
      {
        resolveNodeClasses: true,
      },
    );
    for (const [name, error] of nodeClassFailures) {
      held.log.warn('EC2NodeClass not resolved; its NodePools launch nothing', {
        nodeClass: name,
        error: error.message,
      });
    }
    // A checkpoint before each step: a run that lost the Lease stops there (functions/lease.ts);
    // provisionerCapacity checks again before each NodeClaim it creates or launches.
    checkpoint(held);
    await reportNodeClasses(runtime, held, snapshot);
    await reportNodePools(runtime, held, snapshot);
    checkpoint(held);
    await expireCapacityBlocks(runtime, held, snapshot);
    checkpoint(held);
    const advanced = await advanceLifecycle(runtime, held, snapshot);
    checkpoint(held);
    const repaired = await launchRecordedClaims(runtime, held, snapshot);
    const current: ClusterSnapshot = {
      ...snapshot,
      nodeClaims: snapshot.nodeClaims.map((c) => repaired.get(c.name) ?? advanced.get(c.name) ?? c),
    };
    checkpoint(held);
    const provisioned = await provisionPods(runtime, held, current);
    checkpoint(held);
    const staticLaunched = await provisionStaticPools(runtime, held, current);
    await runtime.ports.lease.saveUnavailableOfferings(runtime.unavailable.list());
    return {
      lifecycleSteps: advanced.size,
      repaired: repaired.size,
      ...provisioned,
      nodeClaimsLaunched: provisioned.nodeClaimsLaunched + staticLaunched,
    };
  });
  if (!run.ran) {
    return {
      ran: false,
      lifecycleSteps: 0,
      repaired: 0,
      podsConsidered: 0,
      nodeClaimsLaunched: 0,
      nodeClaimsFailed: 0,
      podsUnschedulable: 0,
    };
  }
  return { ran: true, ...run.result };
}

/**
 * Deletes the NodeClaims of Capacity Blocks about to end (core/lifecycle/
 * capacity-block-expiration.ts, Karpenter's capacityreservation.expiration controller), so
 * termination drains them before EC2 reclaims the instances; their pods are planned again.
 */
async function expireCapacityBlocks(runtime: LoopRuntime, invocation: Invocation, snapshot: ClusterSnapshot) {
  for (const expiring of expiringCapacityBlockClaims(snapshot.nodeClaims, snapshot.nodeClassStatus)) {
    checkpoint(invocation);
    await runtime.ports.cluster.deleteNodeClaim(expiring.nodeClaim);
    invocation.log.info('initiating delete for capacity block expiration', { ...expiring });
  }
}

async function provisionPods(runtime: LoopRuntime, invocation: Invocation, snapshot: ClusterSnapshot) {
  const pods = podsToProvision(snapshot.pendingPods, snapshot.nodes);
  const none = {
    podsConsidered: pods.length,
    nodeClaimsLaunched: 0,
    nodeClaimsFailed: 0,
    podsUnschedulable: 0,
  };
  if (pods.length === 0 || !snapshot.catalog) return none;
  // Only NodePools whose EC2NodeClass resolved can launch; pods only they could take are
  // reported unschedulable with the scheduler's reason.
  const nodeClasses = readyNodeClasses(snapshot);
  const { catalog } = snapshot;
  const { capacity, result } = timeDecision(invocation.metrics, () => {
    const capacity = schedulingCapacity(snapshot);
    const result = planCapacity(
      { pods, daemonSets: snapshot.daemonSets, nodes: capacity, nodePools: snapshot.nodePools, nodeClasses },
      catalog,
      planOptions(runtime, snapshot),
    );
    return { capacity, result };
  });
  invocation.log.info('planned capacity', {
    pods: pods.length,
    placedOnExisting: result.placements.reduce((n, p) => n + p.pods.length, 0),
    nodeClaims: result.nodeClaims.length,
    unschedulable: result.unschedulable.length,
  });
  const outcomes = await provisionerCapacity(runtime).provision(result.nodeClaims, snapshot, invocation, {
    reason: 'pending pods',
  });
  const launched = outcomes.flatMap((o) =>
    'launched' in o ? [{ on: `nodeclaim/${o.launched.name}`, pods: o.plan.pods }] : [],
  );
  const failedPods = outcomes.flatMap((o) => ('failed' in o ? o.plan.pods : []));
  const scheduled = launched.reduce((n, l) => n + l.pods.length, 0);
  invocation.metrics.add(METRICS.podsScheduled, 'Count', scheduled);
  invocation.metrics.add(METRICS.podsUnschedulable, 'Count', result.unschedulable.length + failedPods.length);
  await recordPodEvents(
    runtime,
    invocation,
    [...existingNominations(result.placements, capacity, snapshot.nodeClaims), ...launched],
    result.unschedulable,
  );
  return {
    podsConsidered: pods.length,
    nodeClaimsLaunched: launched.length,
    nodeClaimsFailed: outcomes.length - launched.length,
    podsUnschedulable: result.unschedulable.length,
  };
}

/**
 * Brings static NodePools to `replicas` (core/provisioning/static-pools.ts): deletes the surplus
 * NodeClaims after `replicas` was lowered (termination drains them) and launches the missing ones.
 */
async function provisionStaticPools(runtime: LoopRuntime, invocation: Invocation, snapshot: ClusterSnapshot) {
  for (const surplus of staticPoolExcess(
    snapshot.nodePools,
    snapshot.nodeClaims,
    snapshot.nodes,
    snapshot.now,
  )) {
    checkpoint(invocation);
    await runtime.ports.cluster.deleteNodeClaim(surplus.nodeClaim);
    invocation.log.info('static NodePool has more nodes than replicas; deleting a NodeClaim', { ...surplus });
  }
  if (!snapshot.catalog) return 0;
  const ready = readyNodeClasses(snapshot);
  const pools = snapshot.nodePools.filter((p) => ready.some((c) => c.name === p.template.nodeClassRef.name));
  const unavailable = runtime.unavailable.keys();
  const types = instanceTypesByNodePool(pools, ready, snapshot.catalog, planOptions(runtime, snapshot));
  const plans = staticPoolPlans(pools, snapshot.nodeClaims, types, unavailable);
  if (plans.length === 0) return 0;
  const outcomes = await provisionerCapacity(runtime).provision(plans, snapshot, invocation, {
    reason: 'static NodePool replicas',
  });
  return outcomes.filter((o) => 'launched' in o).length;
}

/** The EC2NodeClasses that resolved and are Ready: the only ones anything launches through. */
function readyNodeClasses(snapshot: ClusterSnapshot) {
  return snapshot.nodeClasses.filter((c) => {
    const status = snapshot.nodeClassStatus.get(c.name);
    return status !== undefined && nodeClassReady(status);
  });
}
