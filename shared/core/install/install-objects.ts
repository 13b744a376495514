/**
 * podlift's in-cluster objects (manifests/) with one cluster's values filled in, what the
 * installer applies, and how it names them.
 */

/** A Kubernetes object as JSON, with the fields the installer reads typed. */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/** What names an object for apply and delete. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
}

/** The values of one cluster that manifests/kustomization.yaml leaves as placeholders. */
export interface InstallValues {
  readonly clusterName: string;
  readonly eventBusName: string;
  readonly region: string;
  /** The watcher's image reference (the stack's WatcherImageUri). */
  readonly watcherImage: string;
}

/** The watcher's ConfigMap and Deployment (manifests/kustomization.yaml, watcher-deployment.yaml). */
export const WATCHER_CONFIG_MAP = 'podlift-watcher';
export const WATCHER_DEPLOYMENT = 'podlift-watcher';
/** The watcher's container, whose image the installer sets. */
export const WATCHER_CONTAINER = 'watcher';

/**
 * The pod template annotation carrying a digest of the watcher's ConfigMap: a changed value
 * rolls the watcher (environment variables are read once, at start), as kustomize's
 * hash-suffixed ConfigMap name does for `kubectl apply -k`.
 */
export const CONFIG_DIGEST_ANNOTATION = 'podlift.dev/config-digest';

/**
 * `base` (manifests/ as kustomize renders it) with `values` in the watcher's ConfigMap
 * (CLUSTER_NAME, EVENT_BUS_NAME, AWS_REGION) and image, and the ConfigMap's digest on the
 * watcher's pod template. Throws when `base` lacks the ConfigMap, the Deployment or its
 * container: the installer would otherwise apply a watcher pointed at no cluster.
 */
export function installObjects(base: readonly ManifestObject[], values: InstallValues): ManifestObject[] {
  const configMap = base.find((o) => o.kind === 'ConfigMap' && o.metadata.name === WATCHER_CONFIG_MAP);
  const deployment = base.find((o) => o.kind === 'Deployment' && o.metadata.name === WATCHER_DEPLOYMENT);
  if (!configMap || !deployment) {
    throw new Error(
      `podlift's manifests lack ConfigMap ${WATCHER_CONFIG_MAP} or Deployment ${WATCHER_DEPLOYMENT}`,
    );
  }
  const data: Record<string, string> = {
    ...(configMap.data as Record<string, string> | undefined),
    CLUSTER_NAME: values.clusterName,
    EVENT_BUS_NAME: values.eventBusName,
    AWS_REGION: values.region,
  };
  const filledConfigMap: ManifestObject = { ...configMap, data };
  const filledDeployment = withWatcherImage(deployment, values.watcherImage, configDigest(data));
  return base.map((o) => (o === configMap ? filledConfigMap : o === deployment ? filledDeployment : o));
}

function withWatcherImage(deployment: ManifestObject, image: string, digest: string): ManifestObject {
  const spec = deployment.spec as {
    template: { metadata?: Record<string, unknown>; spec: { containers: { name: string }[] } };
  };
  const containers = spec.template.spec.containers;
  if (!containers.some((c) => c.name === WATCHER_CONTAINER)) {
    throw new Error(`podlift's Deployment ${WATCHER_DEPLOYMENT} has no container ${WATCHER_CONTAINER}`);
  }
  const metadata = spec.template.metadata ?? {};
  return {
    ...deployment,
    spec: {
      ...spec,
      template: {
        ...spec.template,
        metadata: {
          ...metadata,
          annotations: {
            ...(metadata.annotations as object | undefined),
            [CONFIG_DIGEST_ANNOTATION]: digest,
          },
        },
        spec: {
          ...spec.template.spec,
          containers: containers.map((c) => (c.name === WATCHER_CONTAINER ? { ...c, image } : c)),
        },
      },
    },
  };
}

/**
 * A digest of the ConfigMap's data: FNV-1a (32 bits) over its keys and values in key order, as
 * hex. Not for security: it only has to change when a value does.
 */
export function configDigest(data: Readonly<Record<string, string>>): string {
  let hash = 0x811c9dc5;
  const text = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The reference of `object`. */
export function refOf(object: ManifestObject): ObjectRef {
  const { apiVersion, kind } = object;
  const { name, namespace } = object.metadata;
  return namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
}

/** `apps/v1 Deployment podlift/podlift-watcher`: how messages and CloudFormation properties name an object. */
export function formatRef(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`;
}

/** The reverse of {@link formatRef}; undefined for a string it did not make. */
export function parseRef(text: string): ObjectRef | undefined {
  const match = /^(\S+) (\S+) (?:([^/\s]+)\/)?([^/\s]+)$/.exec(text);
  if (!match) return undefined;
  const [, apiVersion, kind, namespace, name] = match;
  return namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
}
