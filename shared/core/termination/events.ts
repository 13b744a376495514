import type { NodeClaim } from '../model/nodeclaim';
import type { Pod } from '../model/pod';
import type { VolumeAttachment } from '../ports/cluster';
import type { EventInput, InvolvedObject } from '../ports/cluster-events';

/**
 * The Events termination records, reason and message as kubernetes-sigs/karpenter writes them
 * (pkg/controllers/node/termination/terminator/events/events.go, reasons from pkg/events/reason.go),
 * so `kubectl get events` reads the same as under Karpenter.
 */

/** A Node by name. */
export const nodeObject = (name: string): InvolvedObject => ({ apiVersion: 'v1', kind: 'Node', name });

const podObject = (pod: Pod): InvolvedObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  namespace: pod.namespace,
  name: pod.name,
  uid: pod.uid,
});

const claimObject = (claim: NodeClaim): InvolvedObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  name: claim.name,
  ...(claim.uid ? { uid: claim.uid } : {}),
});

/**
 * A time as Go's `%v` prints a time.Time parsed from RFC 3339 in UTC (`2006-01-02 15:04:05 +0000
 * UTC`, fractional seconds only when there are any), as Karpenter's DisruptPodDelete message has it.
 */
export function goTimeString(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-21T10:05:00.000Z
  const fraction = iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction} +0000 UTC`;
}

/** `FailedDraining` on the Node while pods remain (`NodeFailedToDrain`). */
export function failedDraining(node: string, why: string): EventInput {
  return {
    object: nodeObject(node),
    type: 'Warning',
    reason: 'FailedDraining',
    message: `Failed to drain node, ${why}`,
  };
}

/** `TerminationGracePeriodExpiring` on the Node (`NodeTerminationGracePeriodExpiring`). */
export function nodeGracePeriodExpiring(node: string, terminationTime: string): EventInput {
  return {
    object: nodeObject(node),
    type: 'Warning',
    reason: 'TerminationGracePeriodExpiring',
    message: `All pods will be deleted by ${terminationTime}`,
    once: true,
  };
}

/** `TerminationGracePeriodExpiring` on the NodeClaim when its termination time is recorded. */
export function claimGracePeriodExpiring(claim: NodeClaim, terminationTime: string): EventInput {
  return {
    object: claimObject(claim),
    type: 'Warning',
    reason: 'TerminationGracePeriodExpiring',
    message: `All pods will be deleted by ${terminationTime}`,
    once: true,
  };
}

/** `Evicted` on a pod the Eviction API accepted (`EvictPod`). */
export function podEvicted(pod: Pick<Pod, 'namespace' | 'name' | 'uid'>, reason: string): EventInput {
  return {
    object: { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
    type: 'Normal',
    reason: 'Evicted',
    message: `Evicted pod: ${reason}`,
  };
}

/** `Disrupted` on a pod deleted to meet the node's termination time (`DisruptPodDelete`). */
export function podDeletedForDeadline(
  pod: Pod,
  gracePeriodSeconds: number,
  deadline: number,
  podGrace: number,
): EventInput {
  return {
    object: podObject(pod),
    type: 'Normal',
    reason: 'Disrupted',
    message:
      `Deleting the pod to accommodate the terminationTime ${goTimeString(deadline)} of the node. ` +
      `The pod was granted ${gracePeriodSeconds} seconds of grace-period of its ${podGrace} ` +
      'terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.',
  };
}

/** `AwaitingVolumeDetachment` on the Node (`NodeAwaitingVolumeDetachmentEvent`, names as pretty.Slice(…, 5)). */
export function awaitingVolumeDetachment(node: string, attachments: readonly VolumeAttachment[]): EventInput {
  const names = attachments.map((a) => a.name);
  const shown = names.slice(0, 5).join(', ');
  const more = names.length > 5 ? ` and ${names.length - 5} other(s)` : '';
  return {
    object: nodeObject(node),
    type: 'Normal',
    reason: 'AwaitingVolumeDetachment',
    message: `Awaiting deletion of bound volumeattachments (${shown}${more})`,
  };
}
