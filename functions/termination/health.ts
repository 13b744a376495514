import { onNode } from '../../shared/core/interruption/decide';
import {
  decideInstanceHealth,
  type InstanceHealthDecision,
} from '../../shared/core/interruption/instance-health';
import { decideNodeRepairs, type NodeRepairDecision } from '../../shared/core/lifecycle/node-repair';
import { CloudError } from '../../shared/core/model/errors';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { InstanceHealthReport } from '../../shared/core/ports/cloud';
import type { EventInput } from '../../shared/core/ports/cluster-events';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/** What one health pass did. */
export interface HealthSummary {
  /** NodeClaims deleted because EC2 reports their instance unhealthy. */
  readonly unhealthyInstances: number;
  /** NodeClaims node repair deleted. */
  readonly repaired: number;
  /** Unhealthy Nodes left alone because too many of their NodePool's (or the cluster's) are. */
  readonly repairsBlocked: number;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The health pass of the termination run, Karpenter's two singleton health controllers in one
 * minute-by-minute step that needs no Lease (every write is idempotent):
 *
 * - instance health (aws/karpenter-provider-aws instancestatus_controller.go): EC2
 *   DescribeInstanceStatus; a NodeClaim whose instance or system status has been impaired for two
 *   minutes gets the termination timestamp now and is deleted, one with a scheduled event is
 *   deleted (core/interruption/instance-health.ts); termination then drains and terminates it and
 *   the provisioner replaces its pods' capacity;
 * - node repair, when `FEATURE_GATES` has `NodeRepair=true` (kubernetes-sigs/karpenter
 *   pkg/controllers/node/health/controller.go): see core/lifecycle/node-repair.ts.
 *
 * A failed read or write is logged and left for the next run; it never stops termination.
 */
export async function runHealthChecks(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<HealthSummary> {
  const now = invocation.time.now();
  const reports = await readInstanceStatus(runtime, invocation);
  let unhealthyInstances = 0;
  for (const decision of decideInstanceHealth(reports, snapshot.nodeClaims, now)) {
    if (await step(invocation, decision.nodeClaim, () => actOnInstance(runtime, invocation, decision)))
      unhealthyInstances += decision.deleteNodeClaim ? 1 : 0;
  }
  let repaired = 0;
  let repairsBlocked = 0;
  if (runtime.ports.config.featureGates.nodeRepair) {
    const decisions = decideNodeRepairs({ now, nodes: snapshot.nodes, nodeClaims: snapshot.nodeClaims });
    for (const decision of decisions) {
      if (!(await step(invocation, decision.nodeClaim, () => repair(runtime, invocation, decision))))
        continue;
      if (decision.kind === 'blocked') repairsBlocked++;
      else if (decision.deleteNodeClaim) repaired++;
    }
  }
  return { unhealthyInstances, repaired, repairsBlocked };
}

/** EC2's unhealthy instances; none when the call fails (a missing permission is said once per run). */
async function readInstanceStatus(
  runtime: LoopRuntime,
  invocation: Invocation,
): Promise<InstanceHealthReport[]> {
  try {
    return await runtime.ports.instances.unhealthyInstances();
  } catch (error) {
    if (error instanceof CloudError && error.code === 'UnauthorizedOperation') {
      invocation.log.warn(
        'ec2:DescribeInstanceStatus is not allowed; update the termination role to enable instance status health checks',
        { error: errorText(error) },
      );
    } else {
      invocation.log.warn('reading instance status failed; the next run tries again', {
        error: errorText(error),
      });
    }
    return [];
  }
}

async function step(invocation: Invocation, nodeClaim: string, run: () => Promise<void>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    invocation.log.warn('health step failed; the next run tries again', {
      nodeClaim,
      error: errorText(error),
    });
    return false;
  }
}

/** instancestatus_controller.go → interruption handleNodeClaim: annotate (forceful), delete, tell. */
async function actOnInstance(
  runtime: LoopRuntime,
  invocation: Invocation,
  decision: InstanceHealthDecision,
): Promise<void> {
  const { cluster } = runtime.ports;
  if (decision.terminationTimestamp) {
    await cluster.patchNodeClaimMetadata(decision.nodeClaim, {
      annotations: { [ANNOTATIONS.terminationTimestamp]: decision.terminationTimestamp },
    });
  }
  if (decision.deleteNodeClaim) {
    await cluster.deleteNodeClaim(decision.nodeClaim);
    for (const category of decision.categories)
      invocation.metrics.add(METRICS.instancesUnhealthy, 'Count', 1, { category });
    invocation.log.info('instance unhealthy: deleting its NodeClaim', {
      instanceId: decision.instanceId,
      nodeClaim: decision.nodeClaim,
      categories: decision.categories,
      forceful: decision.categories.some((c) => c !== 'EventStatus'),
    });
  }
  for (const event of decision.events) await recordOn(runtime, decision, event);
}

/** controller.go Reconcile's last steps: annotate, delete; or the NodeRepairBlocked Event. */
async function repair(
  runtime: LoopRuntime,
  invocation: Invocation,
  decision: NodeRepairDecision,
): Promise<void> {
  if (decision.kind === 'blocked') {
    invocation.log.info('node repair blocked', { node: decision.node, why: decision.message });
    await runtime.ports.events
      .record({
        object: { apiVersion: 'v1', kind: 'Node', name: decision.node },
        type: 'Warning',
        reason: 'NodeRepairBlocked',
        message: decision.message,
      })
      .catch(() => undefined);
    return;
  }
  const { cluster } = runtime.ports;
  if (decision.terminationTimestamp) {
    await cluster.patchNodeClaimMetadata(decision.nodeClaim, {
      annotations: { [ANNOTATIONS.terminationTimestamp]: decision.terminationTimestamp },
    });
  }
  if (!decision.deleteNodeClaim) return;
  await cluster.deleteNodeClaim(decision.nodeClaim);
  invocation.metrics.add(METRICS.nodeClaimsRepaired, 'Count', 1, { condition: decision.condition });
  invocation.log.info('deleting unhealthy node', {
    node: decision.node,
    nodeClaim: decision.nodeClaim,
    condition: decision.condition,
  });
}

/** An Event on the NodeClaim and on its Node; an Event never fails the step. */
async function recordOn(
  runtime: LoopRuntime,
  decision: { nodeClaim: string; node?: string },
  event: Omit<EventInput, 'object'>,
): Promise<void> {
  const objects = [
    { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: decision.nodeClaim },
    ...(decision.node ? [{ apiVersion: 'v1', kind: 'Node', name: decision.node }] : []),
  ];
  for (const object of objects)
    await runtime.ports.events
      .record({ object, ...(object.kind === 'Node' ? onNode(event) : event) })
      .catch(() => undefined);
}
