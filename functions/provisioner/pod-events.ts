import type { Pod } from '../../shared/core/model/pod';
import type { UnschedulablePod } from '../../shared/core/scheduling/unschedulable-reason';
import { mapConcurrently } from '../concurrency';
import type { Invocation } from '../invocation';
import type { LoopRuntime } from '../runtime';

/** Events written per invocation at most: explanations must not slow down the capacity. */
const MAX_POD_EVENTS = 200;
/**
 * Pods whose Event is checked per invocation at most. Most checks find the Event already said
 * and write nothing, so the pods after the first {@link MAX_POD_EVENTS} get their turn.
 */
const MAX_POD_EVENT_CHECKS = 2 * MAX_POD_EVENTS;

/** A pod's Event as an EventInput target. */
function podObject(pod: Pod) {
  return { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid };
}

/**
 * Tells pods where they are expected to land and why others cannot be placed, as Karpenter's
 * provisioner does (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/events.go:
 * `Nominated` "Pod should schedule on: nodeclaim/<name>", and `FailedScheduling` with the
 * scheduler's reason). Each is said once: while a pod's latest Event of that reason already says
 * the same, nothing is written (Karpenter re-posts after its 5-minute dedupe cache expires; the
 * cluster is podlift's memory, so it compares with the Event itself). Failures to record are
 * logged and ignored: an Event explains a decision, it is not part of it.
 * @returns how many Events were written (created or counted).
 */
export async function recordPodEvents(
  runtime: LoopRuntime,
  invocation: Invocation,
  nominated: readonly { readonly nodeClaim: string; readonly pods: readonly Pod[] }[],
  unschedulable: readonly UnschedulablePod[],
): Promise<number> {
  const events = [
    ...nominated.flatMap(({ nodeClaim, pods }) =>
      pods.map((pod) => ({
        object: podObject(pod),
        type: 'Normal' as const,
        reason: 'Nominated',
        message: `Pod should schedule on: nodeclaim/${nodeClaim}`,
        once: true,
      })),
    ),
    ...unschedulable.map(({ pod, reason }) => ({
      object: podObject(pod),
      type: 'Warning' as const,
      reason: 'FailedScheduling',
      message: `Failed to schedule pod, ${reason}`,
      once: true,
    })),
  ].slice(0, MAX_POD_EVENT_CHECKS);
  // A slot is taken before each record (up to 8 run at once) and given back when nothing was
  // written, so no more than MAX_POD_EVENTS are ever written.
  let slots = 0;
  await mapConcurrently(events, 8, async (event) => {
    if (slots >= MAX_POD_EVENTS) return;
    slots++;
    try {
      if ((await runtime.ports.events.record(event)) === 'unchanged') slots--;
    } catch (error) {
      slots--;
      invocation.log.warn('recording a pod Event failed', {
        pod: `${event.object.namespace}/${event.object.name}`,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
  return slots;
}
