import type { Pod } from '../../shared/core/model/pod';
import type { UnschedulablePod } from '../../shared/core/scheduling/unschedulable-reason';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import type { LoopRuntime } from '../runtime';

/** Events written per invocation at most: explanations must not slow down the capacity. */
const MAX_POD_EVENTS = 200;

/** A pod's Event as an EventInput target. */
function podObject(pod: Pod) {
  return { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid };
}

/**
 * Tells pods where they are expected to land and why others cannot be placed, as Karpenter's
 * provisioner does (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/events.go:
 * `Nominated` "Pod should schedule on: nodeclaim/<name>", and `FailedScheduling` with the
 * scheduler's reason). The recorder folds a repeat of the same Event into a count, so a pod
 * that stays unschedulable keeps one Event, not one per minute. Failures to record are logged
 * and ignored: an Event explains a decision, it is not part of it.
 */
export async function recordPodEvents(
  runtime: LoopRuntime,
  invocation: Invocation,
  nominated: readonly { readonly nodeClaim: string; readonly pods: readonly Pod[] }[],
  unschedulable: readonly UnschedulablePod[],
): Promise<void> {
  const events = [
    ...nominated.flatMap(({ nodeClaim, pods }) =>
      pods.map((pod) => ({
        object: podObject(pod),
        type: 'Normal' as const,
        reason: 'Nominated',
        message: `Pod should schedule on: nodeclaim/${nodeClaim}`,
      })),
    ),
    ...unschedulable.map(({ pod, reason }) => ({
      object: podObject(pod),
      type: 'Warning' as const,
      reason: 'FailedScheduling',
      message: `Failed to schedule pod, ${reason}`,
    })),
  ].slice(0, MAX_POD_EVENTS);
  await mapConcurrently(events, 8, (event) =>
    runtime.ports.events.record(event).catch((error: unknown) => {
      invocation.log.warn('recording a pod Event failed', {
        pod: `${event.object.namespace}/${event.object.name}`,
        error: error instanceof Error ? error.message : String(error),
      });
    }),
  );
}
