import { DISRUPTED_TAINT } from '../model/labels';
import type { Pod } from '../model/pod';
import type { StateNode } from '../state/cluster-state';

/**
 * The pods the provisioner finds capacity for (kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/provisioner.go `GetPendingPods` plus the pods of deleting
 * nodes, `reschedulablePods`): every pending pod, and the pods of nodes that are going away —
 * being deleted, or tainted `karpenter.sh/disrupted:NoSchedule` by an interruption, a drain or a
 * disruption command — so their replacement capacity is launched before they are evicted.
 * DaemonSet pods (each node runs its own), mirror pods (the kubelet's static pods) and pods
 * already being deleted are left out.
 */
export function podsToProvision(pendingPods: readonly Pod[], nodes: readonly StateNode[]): Pod[] {
  const pods = [...pendingPods];
  for (const node of nodes) {
    if (!isGoingAway(node)) continue;
    for (const pod of node.pods) if (isReschedulable(pod)) pods.push({ ...pod, nodeName: undefined });
  }
  return pods;
}

/** The node is being deleted or was tainted for disruption. */
export function isGoingAway(node: StateNode): boolean {
  return (
    node.deleting === true ||
    node.taints.some((t) => t.key === DISRUPTED_TAINT.key && t.effect === DISRUPTED_TAINT.effect)
  );
}

/** A pod that needs a new home when its node goes: not a DaemonSet or mirror pod, not leaving. */
export function isReschedulable(pod: Pod): boolean {
  if (pod.deleting) return false;
  if (pod.ownerKind === 'DaemonSet' || pod.ownerKind === 'Node') return false;
  return pod.annotations?.['kubernetes.io/config.mirror'] === undefined;
}
