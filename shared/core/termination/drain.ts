import type { Pod } from '../model/pod';
import type { PodRef } from '../ports/cluster';

/**
 * Which pods a drain evicts, and in which order (kubernetes-sigs/karpenter
 * pkg/controllers/node/termination/terminator/terminator.go `groupPodsByPriority`):
 * non-critical pods before critical ones (priorityClassName system-cluster-critical or
 * system-node-critical), one group per step so the critical pods (DNS, CNI helpers) keep running
 * while the others move. DaemonSet pods are left (their controller recreates them; they go with
 * the node), as are mirror pods (the kubelet's static pods) and pods that already finished.
 */

const CRITICAL = new Set(['system-cluster-critical', 'system-node-critical']);

/** Whether a drain must move `pod` off its node. */
export function needsEviction(pod: Pod): boolean {
  if (pod.ownerKind === 'DaemonSet' || pod.ownerKind === 'Node') return false;
  return pod.annotations?.['kubernetes.io/config.mirror'] === undefined;
}

/** The pods to evict this step: the non-critical ones while any remain, then the critical ones. */
export function nextEvictionGroup(pods: readonly Pod[]): Pod[] {
  const movable = pods.filter(needsEviction);
  const nonCritical = movable.filter((p) => !CRITICAL.has(p.priorityClassName ?? ''));
  return nonCritical.length > 0 ? nonCritical : movable;
}

/** The eviction target for a pod: by name and uid, so a replacement reusing the name is spared. */
export function podRef(pod: Pod): PodRef {
  return { namespace: pod.namespace, name: pod.name, uid: pod.uid };
}
