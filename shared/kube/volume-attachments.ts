import type { V1PersistentVolumeClaim, V1VolumeAttachment } from '@kubernetes/client-node';
import type { VolumeAttachment } from '../core/ports/cluster';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { PERSISTENT_VOLUME_CLAIMS, VOLUME_ATTACHMENTS } from './kube-resources';
import { listAllPages } from './list-pages';

/**
 * The reads termination's volume detachment needs (kubernetes-sigs/karpenter
 * pkg/controllers/node/termination/controller.go `pendingVolumeAttachments`): the
 * VolumeAttachments (Karpenter's `GetVolumeAttachments` lists them by spec.nodeName through its
 * cache's field index; the API server offers no such field selector, so all are listed and the
 * core picks a node's) and the volumes bound to claims, to leave out the volumes of pods the drain
 * does not move.
 */

/** Every VolumeAttachment, as core's {@link VolumeAttachment}. */
export async function readVolumeAttachments(api: KubeApi): Promise<VolumeAttachment[]> {
  const storage = await api.storage();
  let items: V1VolumeAttachment[];
  try {
    items = await listAllPages((cont, limit) =>
      storage.listVolumeAttachment({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
  } catch (error) {
    throw kubeError(
      error,
      'listing VolumeAttachments',
      'volumeattachments.storage.k8s.io',
      VOLUME_ATTACHMENTS,
    );
  }
  return items.map((a) => {
    const volume = a.spec?.source?.persistentVolumeName;
    return {
      name: a.metadata?.name ?? '',
      nodeName: a.spec?.nodeName ?? '',
      ...(volume ? { persistentVolumeName: volume } : {}),
    };
  });
}

/** `namespace/claim` → spec.volumeName of every bound PersistentVolumeClaim. */
export async function readClaimedVolumes(api: KubeApi): Promise<Map<string, string>> {
  const core = await api.core();
  let claims: V1PersistentVolumeClaim[];
  try {
    claims = await listAllPages((cont, limit) =>
      core.listPersistentVolumeClaimForAllNamespaces({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
  } catch (error) {
    throw kubeError(
      error,
      'listing PersistentVolumeClaims',
      'persistentvolumeclaims',
      PERSISTENT_VOLUME_CLAIMS,
    );
  }
  const volumes = new Map<string, string>();
  for (const claim of claims) {
    const volume = claim.spec?.volumeName;
    if (volume)
      volumes.set(`${claim.metadata?.namespace ?? 'default'}/${claim.metadata?.name ?? ''}`, volume);
  }
  return volumes;
}
