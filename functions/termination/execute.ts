import { ANNOTATIONS, DISRUPTED_TAINT } from '../../shared/core/model/labels';
import { TERMINATION_FINALIZER } from '../../shared/core/model/nodeclaim';
import type { TerminationAction } from '../../shared/core/termination/decide';
import { EvictionBlockedError } from '../../shared/kube/eviction-blocked-error';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/**
 * Carries out one termination action through the ports. Every action is idempotent (deleting
 * what is gone, removing a finalizer that is not there, terminating a terminated instance all
 * succeed), so a run that repeats one after a crash does no harm. An eviction a
 * PodDisruptionBudget refuses (429) is not an error: the pod is tried again next run.
 */
export async function executeTermination(
  runtime: LoopRuntime,
  invocation: Invocation,
  action: TerminationAction,
): Promise<void> {
  const { cluster, instances } = runtime.ports;
  const { log, metrics } = invocation;
  switch (action.kind) {
    case 'delete-nodeclaim':
      await cluster.deleteNodeClaim(action.nodeClaim);
      log.info('deleting NodeClaim', { nodeClaim: action.nodeClaim, reason: action.reason });
      await runtime.ports.events
        .record({
          object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: action.nodeClaim },
          type: 'Normal',
          reason: 'GarbageCollected',
          message: `Deleting NodeClaim: ${action.reason}`,
        })
        .catch(() => undefined);
      return;
    case 'taint-node':
      await cluster.taintNode(action.node, { add: [DISRUPTED_TAINT] });
      log.info('tainted Node for termination', { node: action.node });
      return;
    case 'set-termination-time':
      await cluster.patchNodeClaimMetadata(action.nodeClaim, {
        annotations: { [ANNOTATIONS.terminationTimestamp]: action.at },
      });
      return;
    case 'evict':
      return evict(runtime, invocation, action.node, action.pods);
    case 'delete-pods':
      for (const pod of action.pods) await cluster.deletePod(pod);
      log.warn('terminationGracePeriod is over: deleted the pods left on the Node', {
        node: action.node,
        pods: action.pods.length,
      });
      return;
    case 'terminate-instance':
      await instances.terminate([action.instanceId]);
      if (action.nodeClaim) {
        await cluster.updateNodeClaimStatus(action.nodeClaim, {
          conditions: [{ type: 'InstanceTerminating', status: 'True' }],
        });
      } else metrics.add(METRICS.instancesGarbageCollected, 'Count', 1);
      log.info('terminating instance', {
        instanceId: action.instanceId,
        reason: action.reason,
        ...(action.nodeClaim ? { nodeClaim: action.nodeClaim } : {}),
      });
      return;
    case 'finish':
      if (action.node) {
        await cluster.removeNodeFinalizer(action.node, TERMINATION_FINALIZER);
        await cluster.deleteNode(action.node);
      }
      if (action.nodeClaim) {
        await cluster.removeNodeClaimFinalizer(action.nodeClaim, TERMINATION_FINALIZER);
        metrics.add(METRICS.nodeClaimsTerminated, 'Count', 1);
      }
      log.info('terminated', { ...action });
      return;
  }
}

async function evict(
  runtime: LoopRuntime,
  invocation: Invocation,
  node: string,
  pods: readonly { namespace: string; name: string; uid?: string }[],
): Promise<void> {
  let evicted = 0;
  let blocked = 0;
  for (const pod of pods) {
    try {
      await runtime.ports.cluster.evictPod(pod);
      evicted++;
    } catch (error) {
      if (!(error instanceof EvictionBlockedError)) throw error;
      blocked++;
      invocation.log.info('eviction blocked by a PodDisruptionBudget; trying again next run', {
        pod: `${pod.namespace}/${pod.name}`,
        ...(error.budget ? { budget: error.budget } : {}),
      });
    }
  }
  invocation.metrics.add(METRICS.podsEvicted, 'Count', evicted);
  if (blocked > 0) invocation.metrics.add(METRICS.evictionsBlocked, 'Count', blocked);
  invocation.log.info('draining Node', { node, evicted, blocked });
}
