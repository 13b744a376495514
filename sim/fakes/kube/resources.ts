/**
 * The resource types the fake API server serves, described the way the real server's
 * discovery does: group, version, plural, kind, scope and whether `/status` is a subresource.
 */

/** One served resource type. */
export interface ResourceType {
  /** API group; `''` for the core group (served under `/api/v1`). */
  readonly group: string;
  readonly version: string;
  /** Lower-case plural used in paths (`pods`, `nodeclaims`). */
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** With a status subresource, main updates ignore `status` and `/status` updates change only it. */
  readonly statusSubresource: boolean;
  /**
   * Custom resource (CRD) semantics: `status` is dropped on create, updates must carry a
   * resourceVersion, strategic merge patch is refused, list items keep `apiVersion`/`kind`.
   */
  readonly custom: boolean;
  /** Field selector labels beyond `metadata.name` and `metadata.namespace`. */
  readonly selectableFields?: readonly string[];
  /** The first Kubernetes release that serves it; always served when absent. */
  readonly servedFrom?: { readonly major: number; readonly minor: number };
}

/** Names of the resources served out of the box, as kubectl spells them (`plural.group`). */
export type KnownResource =
  | 'pods'
  | 'nodes'
  | 'events'
  | 'namespaces'
  | 'daemonsets.apps'
  | 'poddisruptionbudgets.policy'
  | 'leases.coordination.k8s.io'
  | 'volumeattachments.storage.k8s.io'
  | 'nodepools.karpenter.sh'
  | 'nodeclaims.karpenter.sh'
  | 'ec2nodeclasses.karpenter.k8s.aws'
  | 'serviceaccounts'
  | 'configmaps'
  | 'deployments.apps'
  | 'clusterroles.rbac.authorization.k8s.io'
  | 'clusterrolebindings.rbac.authorization.k8s.io'
  | 'roles.rbac.authorization.k8s.io'
  | 'rolebindings.rbac.authorization.k8s.io'
  | 'customresourcedefinitions.apiextensions.k8s.io';

const builtin = (
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
  statusSubresource: boolean,
  selectableFields: readonly string[] = [],
): ResourceType => ({
  group,
  version,
  plural,
  kind,
  namespaced,
  statusSubresource,
  custom: false,
  selectableFields,
});

const crd = (group: string, plural: string, kind: string): ResourceType => ({
  group,
  version: 'v1',
  plural,
  kind,
  namespaced: false,
  statusSubresource: true,
  custom: true,
});

/** What podlift's functions, watcher and simulator touch. */
export const defaultResources: readonly ResourceType[] = [
  builtin('', 'v1', 'pods', 'Pod', true, true, [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ]),
  builtin('', 'v1', 'nodes', 'Node', false, true, ['spec.unschedulable']),
  builtin('', 'v1', 'events', 'Event', true, false, [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'type',
  ]),
  builtin('', 'v1', 'namespaces', 'Namespace', false, true, ['status.phase']),
  builtin('apps', 'v1', 'daemonsets', 'DaemonSet', true, true),
  // policy/v1 PodDisruptionBudgets are GA since 1.21; older servers serve only policy/v1beta1.
  {
    ...builtin('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, true),
    servedFrom: { major: 1, minor: 21 },
  },
  builtin('coordination.k8s.io', 'v1', 'leases', 'Lease', true, false),
  // storage.k8s.io/v1 VolumeAttachments (GA in 1.13): cluster-scoped, with a status the
  // attacher writes; no selectable fields beyond name (termination lists them all).
  builtin('storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false, true),
  // What podlift's installer applies (manifests/): its ServiceAccount, ConfigMap and Deployment,
  // RBAC and the CRDs themselves. RBAC objects stored here are data: the server authorizes by
  // the policy it was started with (FakeKubeAuthorization), as a test fixes it.
  builtin('', 'v1', 'serviceaccounts', 'ServiceAccount', true, false),
  builtin('', 'v1', 'configmaps', 'ConfigMap', true, false),
  builtin('apps', 'v1', 'deployments', 'Deployment', true, true),
  builtin('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false, false),
  builtin('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false, false),
  builtin('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true, false),
  builtin('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true, false),
  builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, true),
  crd('karpenter.sh', 'nodepools', 'NodePool'),
  crd('karpenter.sh', 'nodeclaims', 'NodeClaim'),
  crd('karpenter.k8s.aws', 'ec2nodeclasses', 'EC2NodeClass'),
];

/** `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(resource: ResourceType): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** `pods`, `nodeclaims.karpenter.sh`: how the real server names a resource in its messages. */
export function qualifiedName(resource: ResourceType): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

/** `Pod`, `NodeClaim.karpenter.sh`: how the real server names a kind in validation messages. */
export function qualifiedKind(resource: ResourceType): string {
  return resource.group === '' ? resource.kind : `${resource.kind}.${resource.group}`;
}

/** Looks resource types up by name or by path segments. */
export class ResourceRegistry {
  readonly all: readonly ResourceType[];
  private readonly byName = new Map<string, ResourceType>();

  constructor(resources: readonly ResourceType[]) {
    this.all = resources;
    for (const resource of resources) this.byName.set(qualifiedName(resource), resource);
  }

  /** The resource called `name` (`pods`, `nodeclaims.karpenter.sh`); throws for an unknown name. */
  named(name: string): ResourceType {
    const resource = this.byName.get(name);
    if (!resource) {
      throw new Error(
        `unknown resource ${JSON.stringify(name)}; served: ${[...this.byName.keys()].join(', ')}`,
      );
    }
    return resource;
  }

  /** The resources a server of Kubernetes `major.minor` serves (see {@link ResourceType.servedFrom}). */
  servedBy(major: number, minor: number): ResourceRegistry {
    const served = this.all.filter(
      ({ servedFrom: from }) =>
        from === undefined || major > from.major || (major === from.major && minor >= from.minor),
    );
    return served.length === this.all.length ? this : new ResourceRegistry(served);
  }

  /**
   * The API groups the built-in resources belong to. The real server serves each through a
   * go-restful web service rooted at `/apis/{group}` (the core group at `/api`), which claims
   * every path below it, served or not.
   */
  builtinGroups(): ReadonlySet<string> {
    return new Set(this.all.filter((r) => !r.custom).map((r) => r.group));
  }

  /** The resource served at `/apis/{group}/{version}/{plural}` (group `''` for `/api/v1`). */
  atPath(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all.find((r) => r.group === group && r.version === version && r.plural === plural);
  }
}
