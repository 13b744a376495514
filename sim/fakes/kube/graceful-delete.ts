/**
 * What a DELETE does to an object, as the real registry decides it: graceful deletion for pods
 * (kubernetes pkg/registry/core/pod/strategy.go `CheckGracefulDelete`, apiserver
 * pkg/registry/rest/delete.go `BeforeDelete`) and finalizers for everything (apiserver
 * pkg/registry/generic/registry/store.go `Store.Delete`, `updateForGracefulDeletionAndFinalizers`,
 * `markAsDeleting`). Pure: the store applies the plan.
 */
import type { KubeObject } from './kube-object';
import { formatKubeTime, isJsonObject } from './kube-object';
import type { ResourceType } from './resources';

/**
 * The pod's grace when neither the request nor the pod names one: the API server defaults
 * `spec.terminationGracePeriodSeconds` to 30 when a pod is created (`SetDefaults_PodSpec`).
 */
export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;

/** What a delete does. */
export type DeletionPlan =
  /** Already being deleted and the request does not shorten the grace: nothing changes (200, the object). */
  | { readonly kind: 'pending' }
  /** The object is written with these deletion fields and stays (a grace period runs, or finalizers hold it). */
  | { readonly kind: 'mark'; readonly next: KubeObject }
  /**
   * The object goes now. With `marked`, the registry first writes it with its deletion fields
   * (a MODIFIED event), then deletes it (DELETED), as a graceful delete with grace 0 does.
   */
  | { readonly kind: 'now'; readonly marked?: KubeObject };

/** Whether a resource deletes gracefully (only pods implement `RESTGracefulDeleteStrategy` here). */
export function deletesGracefully(type: ResourceType): boolean {
  return type.group === '' && type.plural === 'pods';
}

const withDeletion = (object: KubeObject, at: number, grace: number, bumpGeneration: boolean): KubeObject => {
  const next = structuredClone(object);
  next.metadata.deletionTimestamp = formatKubeTime(new Date(at));
  next.metadata.deletionGracePeriodSeconds = grace;
  if (bumpGeneration && (object.metadata.generation ?? 0) > 0)
    next.metadata.generation = (object.metadata.generation ?? 0) + 1;
  return next;
};

/** `CheckGracefulDelete`: the request's grace, else the pod's, 0 for unscheduled or finished pods, negative → 1. */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const status = isJsonObject(pod.status) ? pod.status : {};
  let period =
    requested ??
    (typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds
      : DEFAULT_TERMINATION_GRACE_SECONDS);
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') period = 0;
  if (status.phase === 'Failed' || status.phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

/**
 * The plan for deleting `current` of `type` at `now` (ms) with the request's
 * `gracePeriodSeconds` (undefined when the request names none).
 */
export function planDeletion(
  type: ResourceType,
  current: KubeObject,
  requestedGrace: number | undefined,
  now: number,
): DeletionPlan {
  // BeforeDelete: a negative grace on the request counts as 1 second.
  const requested = requestedGrace !== undefined && requestedGrace < 0 ? 1 : requestedGrace;
  const meta = current.metadata;
  const finalizers = (meta.finalizers?.length ?? 0) > 0;
  if (!deletesGracefully(type)) {
    if (meta.deletionTimestamp) return finalizers ? { kind: 'pending' } : { kind: 'now' };
    // markAsDeleting: deletionTimestamp now, grace 0, generation bumped.
    return finalizers ? { kind: 'mark', next: withDeletion(current, now, 0, true) } : { kind: 'now' };
  }
  if (meta.deletionTimestamp) {
    const grace = meta.deletionGracePeriodSeconds;
    // Already at grace 0 (the kubelet confirmed, or a force delete): gone unless finalizers hold it.
    if (grace === undefined || grace === 0) return finalizers ? { kind: 'pending' } : { kind: 'now' };
    // Only a shorter grace may be given; the deletion time moves by the difference.
    if (requested === undefined || requested >= grace) return { kind: 'pending' };
    const at = Date.parse(meta.deletionTimestamp) - grace * 1000 + requested * 1000;
    const next = withDeletion(current, at, requested, false);
    return finalizers || requested > 0 ? { kind: 'mark', next } : { kind: 'now', marked: next };
  }
  const period = podGracePeriod(current, requested);
  // The deletionTimestamp is when the grace runs out, not when the delete was asked for.
  const next = withDeletion(current, now + period * 1000, period, true);
  return finalizers || period > 0 ? { kind: 'mark', next } : { kind: 'now', marked: next };
}

/**
 * `ShouldDeleteDuringUpdate`: an update that leaves a deleting object without finalizers deletes
 * it only when its grace period is already 0 (a pod still in its grace waits for the kubelet).
 */
export function deletesOnUpdate(previous: KubeObject, next: KubeObject): boolean {
  return (
    Boolean(next.metadata.deletionTimestamp) &&
    !next.metadata.finalizers?.length &&
    previous.metadata.deletionGracePeriodSeconds === 0
  );
}
