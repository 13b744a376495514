import { PodliftError } from '../shared/core/model/errors';
import { apiStatus } from '../shared/kube/api-errors';
import { listJsonPage } from '../shared/kube/json-list';
import { EC2NODECLASSES, KubeApi, NODECLAIMS, NODEPOOLS } from '../shared/kube/kube-api';
import {
  DAEMONSETS,
  type KubeResource,
  kubeResourceName,
  NODES,
  POD_DISRUPTION_BUDGETS,
  PODS,
} from '../shared/kube/kube-resources';
import { staticKubeConfig } from '../shared/kube/kubeconfig-source';
import { listAllPages, pageQuery } from '../shared/kube/list-pages';
import { ResourceNotServedError } from '../shared/kube/resource-not-served-error';
import { checkServerVersion, type KubernetesVersion } from '../shared/kube/server-version';
import type { LoadedKubeconfig } from './kubeconfig';

/**
 * Reading a live cluster, read-only: `GET /version`, then one paginated list per collection
 * the commands use. Nothing is written; the identity needs `get` on /version (every
 * authenticated user has it) and `list` on the collections of {@link CLUSTER_READS}.
 */

/** One collection podlift reads from a live cluster, and the kind its items are. */
export interface ClusterRead {
  readonly resource: KubeResource;
  readonly apiVersion: string;
  readonly kind: string;
  /** How messages name what is being read: `NodePools`. */
  readonly what: string;
  /** Query filters, e.g. leaving out finished pods. */
  readonly fieldSelector?: string;
}

/** Everything `plan`, `savings` and `diff` read from a cluster. */
export const CLUSTER_READS: readonly ClusterRead[] = [
  { resource: NODEPOOLS, apiVersion: 'karpenter.sh/v1', kind: 'NodePool', what: 'NodePools' },
  {
    resource: EC2NODECLASSES,
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    what: 'EC2NodeClasses',
  },
  { resource: NODECLAIMS, apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', what: 'NodeClaims' },
  { resource: NODES, apiVersion: 'v1', kind: 'Node', what: 'Nodes' },
  {
    resource: PODS,
    apiVersion: 'v1',
    kind: 'Pod',
    what: 'Pods',
    // Finished pods hold no capacity; a cluster keeps thousands of completed Job pods.
    fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed',
  },
  { resource: DAEMONSETS, apiVersion: 'apps/v1', kind: 'DaemonSet', what: 'DaemonSets' },
  {
    resource: POD_DISRUPTION_BUDGETS,
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    what: 'PodDisruptionBudgets',
  },
];

/** What a live read returns: every object, kind and apiVersion set, and what was not served. */
export interface LiveClusterObjects {
  readonly version: KubernetesVersion;
  readonly objects: readonly Record<string, unknown>[];
  /**
   * podlift's CRDs the cluster does not serve (Karpenter is not installed): read as empty.
   * A built-in collection not served is an error instead (the cluster is too old).
   */
  readonly notServed: readonly ResourceNotServedError[];
}

/** The cluster cannot be read: unreachable, refused, or too old. Exits 1. */
export class ClusterReadError extends PodliftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClusterReadError';
  }
}

/**
 * Reads every collection of {@link CLUSTER_READS} from the cluster `kubeconfig` points at.
 * @throws ClusterReadError when the API server cannot be reached, refuses a read (naming the
 *   verb and resource), runs a Kubernetes older than podlift supports, or does not serve a
 *   built-in collection
 */
export async function readLiveCluster(kubeconfig: LoadedKubeconfig): Promise<LiveClusterObjects> {
  const target = `context "${kubeconfig.context}" (${kubeconfig.server})`;
  const api = new KubeApi(staticKubeConfig(kubeconfig.config));
  let version: KubernetesVersion;
  try {
    version = await checkServerVersion(api);
  } catch (error) {
    throw readError(error, target, 'reading the Kubernetes version', 'get', '/version');
  }
  const objects: Record<string, unknown>[] = [];
  const notServed: ResourceNotServedError[] = [];
  for (const read of CLUSTER_READS) {
    const path = collectionPath(read.resource);
    const doing = `listing ${read.what}`;
    let items: Record<string, unknown>[];
    try {
      items = await listAllPages((cont, limit) =>
        listJsonPage<Record<string, unknown>>(kubeconfig.config, path, {
          ...(read.fieldSelector ? { fieldSelector: read.fieldSelector } : {}),
          ...pageQuery(cont, limit),
        }),
      );
    } catch (error) {
      const status = apiStatus(error);
      if (status?.code === 404 && status.name === undefined) {
        const unserved = new ResourceNotServedError(read.resource, `${doing} on ${target}`, { cause: error });
        if (!read.resource.crd) throw new ClusterReadError(unserved.message, { cause: error });
        notServed.push(unserved);
        continue;
      }
      throw readError(error, target, doing, 'list', kubeResourceName(read.resource));
    }
    // The API server leaves kind and apiVersion out of the items of a built-in list.
    for (const item of items) objects.push({ ...item, apiVersion: read.apiVersion, kind: read.kind });
  }
  return { version, objects, notServed };
}

/** `/api/v1/pods`, `/apis/karpenter.sh/v1/nodepools`. */
export function collectionPath(resource: KubeResource): string {
  return resource.group === ''
    ? `/api/${resource.version}/${resource.plural}`
    : `/apis/${resource.group}/${resource.version}/${resource.plural}`;
}

function readError(error: unknown, target: string, doing: string, verb: string, resource: string): Error {
  // An error of ours without a cause is a verdict (an unsupported version), not a failed call.
  if (error instanceof PodliftError && error.cause === undefined) return error;
  const original = error instanceof PodliftError ? error.cause : error;
  const status = apiStatus(original);
  if (!status) return unreachable(original, target);
  if (status.code === 401) {
    return new ClusterReadError(
      `${doing} on ${target}: Unauthorized: the API server did not accept the kubeconfig's credentials (expired token? run the command your kubeconfig's exec plugin runs, e.g. aws eks get-token, to check)`,
      { cause: error },
    );
  }
  if (status.code === 403) {
    return new ClusterReadError(
      `${doing} on ${target}: Forbidden: this identity may not ${verb} ${resource}; podlift reads only, and needs get on /version and list on ${CLUSTER_READS.map((r) => kubeResourceName(r.resource)).join(', ')} (server said: ${status.message ?? 'forbidden'})`,
      { cause: error },
    );
  }
  return new ClusterReadError(
    `${doing} on ${target}: ${status.reason ?? `HTTP ${status.code}`}: ${status.message ?? ''}`.trimEnd(),
    { cause: error },
  );
}

function unreachable(error: unknown, target: string): ClusterReadError {
  const detail = error instanceof Error ? error.message : String(error);
  return new ClusterReadError(
    `cannot reach the API server of ${target}: ${detail}; check the context (kubectl config current-context) and that the endpoint is reachable from here`,
    { cause: error },
  );
}
