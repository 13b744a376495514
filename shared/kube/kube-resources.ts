/**
 * The collections of the Kubernetes API podlift reads and writes, described well enough to say
 * why a server might not serve one: podlift's own CRDs are missing, or the cluster predates it.
 */

/** A collection of the Kubernetes API. */
export interface KubeResource {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  /** Served by one of podlift's CRDs (manifests/crds), not by Kubernetes itself. */
  readonly crd?: true;
  /** The Kubernetes release that first served this group/version of it. */
  readonly servedSince?: string;
}

/** `poddisruptionbudgets.policy/v1`, `pods/v1`: how messages name a collection. */
export function kubeResourceName(resource: KubeResource): string {
  const name = resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
  return `${name}/${resource.version}`;
}

/** core/v1 pods. */
export const PODS: KubeResource = { group: '', version: 'v1', plural: 'pods' };
/** core/v1 nodes. */
export const NODES: KubeResource = { group: '', version: 'v1', plural: 'nodes' };
/** core/v1 events. */
export const EVENTS: KubeResource = { group: '', version: 'v1', plural: 'events' };
/** core/v1 persistentvolumes. */
export const PERSISTENT_VOLUMES: KubeResource = { group: '', version: 'v1', plural: 'persistentvolumes' };
/** core/v1 persistentvolumeclaims. */
export const PERSISTENT_VOLUME_CLAIMS: KubeResource = {
  group: '',
  version: 'v1',
  plural: 'persistentvolumeclaims',
};
/** storage.k8s.io/v1 VolumeAttachments (GA in 1.13). */
export const VOLUME_ATTACHMENTS: KubeResource = {
  group: 'storage.k8s.io',
  version: 'v1',
  plural: 'volumeattachments',
  servedSince: '1.13',
};
/** apps/v1 DaemonSets (GA in 1.9). */
export const DAEMONSETS: KubeResource = {
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  servedSince: '1.9',
};
/** policy/v1 PodDisruptionBudgets (GA in 1.21; policy/v1beta1 before). */
export const POD_DISRUPTION_BUDGETS: KubeResource = {
  group: 'policy',
  version: 'v1',
  plural: 'poddisruptionbudgets',
  servedSince: '1.21',
};
/** policy/v1 Evictions, posted to `pods/{name}/eviction` (accepted since 1.22). */
export const EVICTIONS: KubeResource = {
  group: 'policy',
  version: 'v1',
  plural: 'evictions',
  servedSince: '1.22',
};
/** coordination.k8s.io/v1 Leases (GA in 1.14). */
export const LEASES: KubeResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  servedSince: '1.14',
};
