import { CloudError } from '../core/model/errors';
import type { KubeResource } from './kube-resources';
import { kubeResourceName } from './kube-resources';
import { MINIMUM_KUBERNETES_VERSION } from './minimum-kubernetes-version';

/**
 * The API server does not serve a collection podlift needs: it answered a 404 that names no
 * object (Go's plain-text `404 page not found`, or a Status without details) where a list or
 * request of that collection was made. Either podlift's CRDs are not installed or the cluster
 * is older than podlift supports. Retrying does not help until someone acts.
 */
export class ResourceNotServedError extends CloudError {
  constructor(
    readonly resource: KubeResource,
    /** What was being done: `listing NodePools`. */
    doing: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${doing}: the API server does not serve ${kubeResourceName(resource)}: ${likelyCause(resource)}`,
      'NotFound',
      false,
      options,
    );
    this.name = 'ResourceNotServedError';
  }
}

/** Whether `e` is a {@link ResourceNotServedError}. */
export function isResourceNotServedError(e: unknown): e is ResourceNotServedError {
  return e instanceof ResourceNotServedError;
}

function likelyCause(resource: KubeResource): string {
  if (resource.crd) {
    return `its CustomResourceDefinition ${resource.plural}.${resource.group} is not installed (kubectl apply -k manifests/)`;
  }
  const since = resource.servedSince ? `it is served from Kubernetes ${resource.servedSince}; ` : '';
  return `${since}the cluster may be older than podlift supports (Kubernetes ${MINIMUM_KUBERNETES_VERSION} or newer)`;
}
