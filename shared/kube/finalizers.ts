import { isNotFoundError } from '../core/model/errors';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import type { KubeObjectJson, ObjectAccess } from './object-access';
import { nodeAccess, nodeClaimAccess } from './object-access';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Adding and removing one finalizer without disturbing the others: read, change the list, write
 * it back with the resourceVersion read (a conditional merge patch); on 409 read again.
 */

/**
 * Adds `finalizer` to the object unless it is already there.
 * @throws NotFoundError when the object does not exist; CloudError when the API refuses (a
 *   deleting object takes no new finalizers: 422).
 */
export async function addFinalizer(access: ObjectAccess, finalizer: string): Promise<void> {
  await changeFinalizers(access, `adding finalizer ${finalizer} to ${access.description}`, (list) =>
    list.includes(finalizer) ? undefined : [...list, finalizer],
  );
}

/**
 * Removes `finalizer` from the object; nothing to do when it is absent or the object is gone.
 * Removing the last finalizer of a deleting object lets the API server delete it.
 */
export async function removeFinalizer(access: ObjectAccess, finalizer: string): Promise<void> {
  try {
    await changeFinalizers(access, `removing finalizer ${finalizer} from ${access.description}`, (list) =>
      list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined,
    );
  } catch (error) {
    if (isNotFoundError(error)) return;
    throw error;
  }
}

/** Read, change the finalizer list (undefined = nothing to do), write it conditionally; re-read on 409. */
async function changeFinalizers(
  access: ObjectAccess,
  doing: string,
  change: (finalizers: readonly string[]) => readonly string[] | undefined,
): Promise<void> {
  try {
    await retryOnConflict(
      () => access.get(),
      (current) => {
        const next = change(current.metadata?.finalizers ?? []);
        return next === undefined ? undefined : finalizerPatch(current, next);
      },
      (patch) => access.mergePatch(patch),
      { doing },
    );
  } catch (error) {
    throw kubeError(error, doing, access.description, access.resource);
  }
}

/** {@link addFinalizer} on a Node. */
export function addNodeFinalizer(api: KubeApi, name: string, finalizer: string): Promise<void> {
  return addFinalizer(nodeAccess(api, name), finalizer);
}

/** {@link removeFinalizer} on a Node. */
export function removeNodeFinalizer(api: KubeApi, name: string, finalizer: string): Promise<void> {
  return removeFinalizer(nodeAccess(api, name), finalizer);
}

/** {@link addFinalizer} on a NodeClaim. */
export function addNodeClaimFinalizer(api: KubeApi, name: string, finalizer: string): Promise<void> {
  return addFinalizer(nodeClaimAccess(api, name), finalizer);
}

/** {@link removeFinalizer} on a NodeClaim. */
export function removeNodeClaimFinalizer(api: KubeApi, name: string, finalizer: string): Promise<void> {
  return removeFinalizer(nodeClaimAccess(api, name), finalizer);
}

function finalizerPatch(current: KubeObjectJson, finalizers: readonly string[]): Record<string, unknown> {
  return { metadata: { finalizers, resourceVersion: current.metadata?.resourceVersion } };
}
