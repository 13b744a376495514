import type { PodManifest } from '../core/manifests/kube-objects';

/**
 * Which pods podlift provisions capacity for, as Karpenter's `pod.IsProvisionable`: not bound,
 * not being deleted, not finished, not already preempting others for a nominated node, marked
 * unschedulable by a scheduler (`PodScheduled=False`, reason `Unschedulable`), and not a
 * DaemonSet's or a node's own (mirror) pod, which no new node would ever take.
 */

/** Options of {@link isProvisionablePod}. */
export interface PendingPodOptions {
  /**
   * Only pods handed to these schedulers (`spec.schedulerName`, which defaults to
   * `default-scheduler`). Absent = every scheduler, as Karpenter does: a secondary scheduler
   * that marks a pod Unschedulable asks for capacity just the same.
   * @default undefined
   */
  readonly schedulerNames?: readonly string[];
}

/** The scheduler a pod without `spec.schedulerName` gets. */
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** Field selector that narrows a pod list to unbound pending pods on the server. */
export const PENDING_POD_FIELD_SELECTOR = 'status.phase=Pending,spec.nodeName=';

/** Whether podlift should find capacity for `pod` (see the module comment). */
export function isProvisionablePod(pod: PodManifest, options: PendingPodOptions = {}): boolean {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  if (spec.nodeName) return false;
  if (pod.metadata?.deletionTimestamp) return false;
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return false;
  if (status.nominatedNodeName) return false;
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller === true);
  if (owner?.kind === 'DaemonSet' || owner?.kind === 'Node') return false;
  const scheduler = spec.schedulerName || DEFAULT_SCHEDULER;
  if (options.schedulerNames && !options.schedulerNames.includes(scheduler)) return false;
  return (status.conditions ?? []).some(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  );
}

/**
 * Names of the PersistentVolumeClaims a pod mounts: `persistentVolumeClaim.claimName`, and
 * `<pod>-<volume>` for generic ephemeral volumes (the name their controller gives the claim).
 */
export function podClaimNames(pod: PodManifest): string[] {
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim) names.push(claim);
    else if (volume.ephemeral && volume.name) names.push(`${pod.metadata?.name ?? ''}-${volume.name}`);
  }
  return names;
}
