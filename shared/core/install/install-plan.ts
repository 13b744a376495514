import { formatRef, type ObjectRef } from './install-objects';

/**
 * In which order the installer applies and deletes podlift's objects, and which ones it never
 * deletes.
 */

/**
 * Kinds in the order they are applied (Helm's `InstallOrder`, releaseutil/kind_sorter.go, and
 * kustomize's legacy order): what others refer to first — the Namespace before what lives in
 * it, CRDs before any custom resource, RBAC and the ServiceAccount before the pod that runs as
 * it, the ConfigMap before the Deployment that reads it. Other kinds go last.
 */
const APPLY_ORDER = [
  'Namespace',
  'CustomResourceDefinition',
  'ServiceAccount',
  'ConfigMap',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Deployment',
];

/**
 * The kind never deleted: removing a CustomResourceDefinition deletes every object of its kind,
 * so every NodePool, EC2NodeClass and NodeClaim, and with the NodeClaims the nodes.
 */
export const RETAINED_KIND = 'CustomResourceDefinition';

/** `objects` sorted for applying (stable within a kind). */
export function applyOrder<T extends { readonly kind: string }>(objects: readonly T[]): T[] {
  const rank = (kind: string) => {
    const i = APPLY_ORDER.indexOf(kind);
    return i === -1 ? APPLY_ORDER.length : i;
  };
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i)
    .map(({ o }) => o);
}

/**
 * What to delete of `refs`, in order: never a CRD ({@link RETAINED_KIND}); the reverse of the
 * apply order, so the watcher stops first and the Namespace goes last.
 */
export function deletionOrder(refs: readonly ObjectRef[]): ObjectRef[] {
  return applyOrder(refs.filter((r) => r.kind !== RETAINED_KIND)).reverse();
}

/**
 * What an update prunes: the objects the previous version applied that the new one no longer
 * has (CRDs excepted), in deletion order.
 */
export function pruneRefs(previous: readonly ObjectRef[], next: readonly ObjectRef[]): ObjectRef[] {
  const kept = new Set(next.map(formatRef));
  return deletionOrder(previous.filter((r) => !kept.has(formatRef(r))));
}
