import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { Pod } from '../../shared/core/model/pod';
import type { UnschedulablePod } from '../../shared/core/scheduling/unschedulable-reason';
import type { StateNode } from '../../shared/core/state/cluster-state';
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

/** Pods nominated to one place: `on` is what follows "Pod should schedule on: ". */
export interface Nomination {
  readonly on: string;
  readonly pods: readonly Pod[];
}

/**
 * Where pods the scheduler placed on existing capacity are nominated, worded as events.go
 * `NominatePodEvent` words it for `Results.ExistingNodes` (scheduling/scheduler.go `Solve`
 * publishes one per pod): `nodeclaim/<name>` when the capacity has a NodeClaim, then
 * `node/<name>` when it has a Node — both for a registered Node of a NodeClaim, the NodeClaim
 * alone while it is in flight, the Node alone when no NodeClaim manages it.
 */
export function existingNominations(
  placements: readonly { readonly node: string; readonly pods: readonly Pod[] }[],
  capacity: readonly StateNode[],
  nodeClaims: readonly NodeClaim[],
): Nomination[] {
  const byName = new Map(capacity.map((n) => [n.name, n]));
  const claimOf = new Map(
    nodeClaims.flatMap((c) => (c.status.providerID ? [[c.status.providerID, c.name] as const] : [])),
  );
  return placements.flatMap(({ node: name, pods }) => {
    const node = byName.get(name);
    if (!node || pods.length === 0) return [];
    if (node.kind === 'nodeclaim') return [{ on: `nodeclaim/${name}`, pods }];
    const claim = node.providerID ? claimOf.get(node.providerID) : undefined;
    return [{ on: claim ? `nodeclaim/${claim}, node/${name}` : `node/${name}`, pods }];
  });
}

/**
 * Tells pods where they are expected to land and why others cannot be placed, as Karpenter's
 * provisioner does (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/events.go:
 * `Nominated` "Pod should schedule on: nodeclaim/<name>" for a new NodeClaim, and for existing
 * capacity as {@link existingNominations} words it; `FailedScheduling` with the scheduler's
 * reason). Each is said once: while a pod's latest Event of that reason already says
 * the same, nothing is written (Karpenter re-posts after its 5-minute dedupe cache expires; the
 * cluster is podlift's memory, so it compares with the Event itself). Failures to record are
 * logged and ignored: an Event explains a decision, it is not part of it.
 * @returns how many Events were written (created or counted).
 */
export async function recordPodEvents(
  runtime: LoopRuntime,
  invocation: Invocation,
  nominated: readonly Nomination[],
  unschedulable: readonly UnschedulablePod[],
): Promise<number> {
  const events = [
    ...nominated.flatMap(({ on, pods }) =>
      pods.map((pod) => ({
        object: podObject(pod),
        type: 'Normal' as const,
        reason: 'Nominated',
        message: `Pod should schedule on: ${on}`,
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
