import type { NodeOwnerReference } from '../core/ports/cluster';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { nodeAccess } from './object-access';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Adds `owner` to Node `name`'s ownerReferences unless one with the same apiVersion, kind and
 * uid is there, as kubernetes-sigs/karpenter pkg/utils/nodeclaim/nodeclaim.go
 * `UpdateNodeOwnerReferences` does at registration. A merge patch replaces the whole list, so
 * the list read is written back with the new reference and the resourceVersion read (409 →
 * read again): other owners are kept.
 * @throws NotFoundError when the Node is gone.
 */
export async function addNodeOwnerReference(
  api: KubeApi,
  name: string,
  owner: NodeOwnerReference,
): Promise<void> {
  const access = nodeAccess(api, name);
  const doing = `adding owner ${owner.kind} ${owner.name} to ${access.description}`;
  try {
    await retryOnConflict(
      () => access.get(),
      (current) => {
        const existing = (current.metadata?.ownerReferences ?? []) as readonly NodeOwnerReference[];
        const present = existing.some(
          (o) => o.apiVersion === owner.apiVersion && o.kind === owner.kind && o.uid === owner.uid,
        );
        if (present) return undefined;
        return {
          metadata: {
            ownerReferences: [...existing, owner],
            resourceVersion: current.metadata?.resourceVersion,
          },
        };
      },
      (patch) => access.mergePatch(patch),
      { doing },
    );
  } catch (error) {
    throw kubeError(error, doing, access.description, access.resource);
  }
}
