import { doNotDisruptActive } from '../model/do-not-disrupt';
import { DISRUPTED_TAINT } from '../model/labels';
import type { Pod } from '../model/pod';
import { taintTolerated } from '../model/taints';
import type { PodRef } from '../ports/cluster';

/**
 * Which pods a drain waits for, evicts or deletes, as kubernetes-sigs/karpenter decides it in
 * pkg/utils/pod/scheduling.go (`IsDrainable`, `IsEvictable`, `IsStuckTerminating`) and
 * pkg/controllers/node/termination/terminator (terminator.go `Drain`, `groupPodsByPriority`;
 * eviction.go `needsForceDelete`, `forceDelete`). The pods read are already not finished
 * (Succeeded and Failed pods are not listed), which is Karpenter's `IsTerminal` filter.
 */

const CRITICAL = new Set(['system-cluster-critical', 'system-node-critical']);

/** A Terminating pod this long past its deletionTimestamp no longer holds the drain (`IsStuckTerminating`). */
export const STUCK_TERMINATING_MS = 60_000;
/** spec.terminationGracePeriodSeconds when a pod does not say: the API server defaults it to 30. */
export const DEFAULT_POD_GRACE_SECONDS = 30;

/**
 * A static pod's mirror (`IsOwnedByNode`: the kubelet owns it, the API cannot delete it). The
 * kubelet also marks mirrors with `kubernetes.io/config.mirror`, which counts the same.
 */
function ownedByNode(pod: Pod): boolean {
  return pod.ownerKind === 'Node' || pod.annotations?.['kubernetes.io/config.mirror'] !== undefined;
}

/** The pod tolerates `karpenter.sh/disrupted:NoSchedule` (`ToleratesDisruptedNoScheduleTaint`): it may stay. */
function toleratesDisrupted(pod: Pod): boolean {
  return taintTolerated(pod.tolerations, DISRUPTED_TAINT);
}

/**
 * Terminating for over a minute past its deletionTimestamp (which already includes its grace
 * period): the kubelet is not finishing it, so the drain stops waiting (`IsStuckTerminating`).
 */
export function isStuckTerminating(pod: Pod, now: number): boolean {
  return (
    pod.deletionTimestamp !== undefined && now - Date.parse(pod.deletionTimestamp) > STUCK_TERMINATING_MS
  );
}

/**
 * Whether the drain waits for `pod` to go (`IsWaitingEviction` = not finished and `IsDrainable`):
 * not one that tolerates the disrupted taint, not stuck terminating, not a mirror pod.
 * DaemonSet pods and do-not-disrupt pods are waited for (the latter until the node's
 * terminationGracePeriod forces them).
 */
export function isDrainable(pod: Pod, now: number): boolean {
  return !toleratesDisrupted(pod) && !isStuckTerminating(pod, now) && !ownedByNode(pod);
}

/**
 * Whether the drain may ask the Eviction API to move `pod` now (`IsEvictable`): active (not
 * already Terminating), not tolerating the disrupted taint, not a mirror pod, and its
 * `karpenter.sh/do-not-disrupt` not in force.
 */
export function isEvictable(pod: Pod, now: number): boolean {
  return !pod.deleting && !toleratesDisrupted(pod) && !ownedByNode(pod) && !doNotDisruptActive(pod, now);
}

/**
 * The drain's order (`groupPodsByPriority`, after the node graceful shutdown's): non-critical
 * non-DaemonSet pods, non-critical DaemonSet pods, critical non-DaemonSet pods, critical
 * DaemonSet pods; critical means priorityClassName system-cluster-critical or system-node-critical.
 */
export function groupPodsByPriority(pods: readonly Pod[]): Pod[][] {
  const groups: Pod[][] = [[], [], [], []];
  for (const pod of pods) {
    const critical = CRITICAL.has(pod.priorityClassName ?? '') ? 2 : 0;
    const daemon = pod.ownerKind === 'DaemonSet' ? 1 : 0;
    groups[critical + daemon].push(pod);
  }
  return groups;
}

/**
 * Whether `pod` must be deleted now, budgets and do-not-disrupt notwithstanding, so that it is
 * gone by the node's termination time `deadline` (eviction.go `needsForceDelete`): a Terminating
 * pod whose deletionTimestamp lies past the deadline (`IsPodEligibleForForcedEviction`), or an
 * active one once now + its terminationGracePeriodSeconds passes the deadline.
 */
export function needsForceDelete(pod: Pod, deadline: number | undefined, now: number): boolean {
  if (deadline === undefined) return false;
  if (pod.deleting) {
    return pod.deletionTimestamp !== undefined && Date.parse(pod.deletionTimestamp) > deadline;
  }
  const grace = pod.terminationGracePeriodSeconds ?? DEFAULT_POD_GRACE_SECONDS;
  return now > deadline - grace * 1000;
}

/**
 * The grace period a forced delete grants (eviction.go `forceDelete`): what is left until the
 * deadline in whole seconds, at least 1 — 0 would remove the pod from etcd at once, before its
 * containers stopped, and break at-most-one-pod semantics.
 */
export function forceDeleteGracePeriodSeconds(deadline: number, now: number): number {
  return Math.max(Math.trunc((deadline - now) / 1000), 1);
}

/** What a drain step does with a node's pods. */
export interface DrainPlan {
  /** Every pod the drain still waits for; the node is drained when none is left. */
  readonly waiting: readonly Pod[];
  /** Pods to delete now with a clamped grace period (all priority groups at once). */
  readonly forceDelete: readonly Pod[];
  /** Pods of the first group still waiting that the Eviction API may move now. */
  readonly evict: readonly Pod[];
}

/**
 * One step of a node's drain (terminator.go `Drain` and the eviction queue's `Reconcile`): the
 * pods past the force-delete threshold go in every group at once; of the others, only the first
 * group with pods left is worked on, and of it the pods that may be evicted now — the rest of
 * the group (Terminating, do-not-disrupt) is waited for.
 */
export function planDrain(pods: readonly Pod[], deadline: number | undefined, now: number): DrainPlan {
  const waiting = pods.filter((p) => isDrainable(p, now));
  const forceDelete = waiting.filter((p) => needsForceDelete(p, deadline, now));
  const graceful = waiting.filter((p) => !forceDelete.includes(p));
  const group = groupPodsByPriority(graceful).find((g) => g.length > 0) ?? [];
  return { waiting, forceDelete, evict: group.filter((p) => isEvictable(p, now)) };
}

/** The eviction target for a pod: by name and uid, so a replacement reusing the name is spared. */
export function podRef(pod: Pod): PodRef {
  return { namespace: pod.namespace, name: pod.name, uid: pod.uid };
}
