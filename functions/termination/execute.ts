import { isNotFoundError } from '../../shared/core/model/errors';
import {
  ANNOTATIONS,
  DISRUPTED_TAINT,
  LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS,
} from '../../shared/core/model/labels';
import { TERMINATION_FINALIZER } from '../../shared/core/model/nodeclaim';
import type { PodRef } from '../../shared/core/ports/cluster';
import type { EventInput } from '../../shared/core/ports/cluster-events';
import type { TerminationAction } from '../../shared/core/termination/actions';
import { failedDraining, podEvicted } from '../../shared/core/termination/events';
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
      await record(runtime, {
        object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: action.nodeClaim },
        type: 'Normal',
        reason: 'GarbageCollected',
        message: `Deleting NodeClaim: ${action.reason}`,
      });
      return;
    case 'taint-node':
      // Karpenter's terminator.go `Taint` writes both in one patch; two idempotent writes here.
      await cluster.taintNode(action.node, { add: [DISRUPTED_TAINT] });
      await cluster.labelNode(action.node, { [LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS]: 'karpenter' });
      log.info('tainted Node for termination', { node: action.node });
      return;
    case 'set-conditions':
      // A NodeClaim finished by the same run is gone: nothing left to record (Karpenter's status
      // patch ignores NotFound too).
      await cluster
        .updateNodeClaimStatus(action.nodeClaim, { conditions: action.conditions })
        .catch((error: unknown) => {
          if (!isNotFoundError(error)) throw error;
        });
      return;
    case 'record-event':
      await record(runtime, action.event);
      return;
    case 'set-termination-time':
      await cluster.patchNodeClaimMetadata(action.nodeClaim, {
        annotations: { [ANNOTATIONS.terminationTimestamp]: action.at },
      });
      return;
    case 'evict':
      return evict(runtime, invocation, action);
    case 'delete-pods':
      for (const { gracePeriodSeconds, ...pod } of action.pods)
        await cluster.deletePod(pod, { gracePeriodSeconds });
      // The pods go so that the Node is gone by its termination time (eviction.go `forceDelete`);
      // the line keeps its wording, which the simulator's invariants recognise.
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

/** Records an Event; one the API server refuses is dropped: an Event explains, it decides nothing. */
async function record(runtime: LoopRuntime, event: EventInput): Promise<void> {
  await runtime.ports.events.record(event).catch(() => undefined);
}

/**
 * Evicts the pods one by one (eviction.go `evict`): an accepted eviction records `Evicted` on the
 * pod; a PodDisruptionBudget's refusal is no error but `FailedDraining` on the Node, and the pod
 * is tried again next run.
 */
async function evict(
  runtime: LoopRuntime,
  invocation: Invocation,
  action: { readonly node: string; readonly pods: readonly PodRef[]; readonly reason: string },
): Promise<void> {
  let evicted = 0;
  let blocked = 0;
  for (const pod of action.pods) {
    try {
      const outcome = await runtime.ports.cluster.evictPod(pod);
      if (outcome === 'evicted') {
        evicted++;
        await record(runtime, podEvicted({ uid: `${pod.namespace}/${pod.name}`, ...pod }, action.reason));
      }
    } catch (error) {
      if (!(error instanceof EvictionBlockedError)) throw error;
      blocked++;
      const multiple = /more than one PodDisruptionBudget/i.test(error.detail);
      await record(
        runtime,
        failedDraining(
          action.node,
          multiple ? 'eviction does not support multiple PDBs' : 'evicting pod violates a PDB',
        ),
      );
      invocation.log.info('eviction blocked by a PodDisruptionBudget; trying again next run', {
        pod: `${pod.namespace}/${pod.name}`,
        ...(error.budget ? { budget: error.budget } : {}),
      });
    }
  }
  invocation.metrics.add(METRICS.podsEvicted, 'Count', evicted);
  if (blocked > 0) invocation.metrics.add(METRICS.evictionsBlocked, 'Count', blocked);
  invocation.log.info('draining Node', { node: action.node, evicted, blocked });
}
