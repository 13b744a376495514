import { CoreV1Api, type KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { formatRef, type ManifestObject, type ObjectRef, refOf } from '../core/install/install-objects';
import type { ClusterManifestsPort } from '../core/ports/cluster-manifests';
import { isApiNotFound, kubeError } from './api-errors';
import type { KubeConfigSource } from './kubeconfig-source';

/** The field manager podlift's installer applies as (`kubectl get … --show-managed-fields`). */
export const PODLIFT_FIELD_MANAGER = 'podlift';

/**
 * {@link ClusterManifestsPort} over client-node's KubernetesObjectApi, which finds each kind's
 * resource path through the API server's discovery: `apply` is
 * `PATCH …?fieldManager=podlift&force=true` with `application/apply-patch+yaml` (server-side
 * apply; `force` because podlift owns these objects, even fields a `kubectl apply -k` set
 * before), `delete` is `DELETE` with background propagation.
 */
export class KubeClusterManifests implements ClusterManifestsPort {
  private readonly clients = new WeakMap<KubeConfig, KubernetesObjectApi>();

  constructor(private readonly source: KubeConfigSource) {}

  async apply(object: ManifestObject): Promise<void> {
    const api = await this.api();
    try {
      await api.patch(
        object as never,
        undefined,
        undefined,
        PODLIFT_FIELD_MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    } catch (error) {
      throw kubeError(error, `applying ${formatRef(refOf(object))}`, object.kind);
    }
  }

  async delete(ref: ObjectRef): Promise<'deleted' | 'absent'> {
    const api = await this.api();
    try {
      await api.delete(header(ref), undefined, undefined, undefined, undefined, 'Background');
      return 'deleted';
    } catch (error) {
      if (isApiNotFound(error)) return 'absent';
      throw kubeError(error, `deleting ${formatRef(ref)}`, ref.kind);
    }
  }

  async read(ref: ObjectRef): Promise<Readonly<Record<string, unknown>> | undefined> {
    const api = await this.api();
    try {
      return (await api.read(header(ref))) as unknown as Record<string, unknown>;
    } catch (error) {
      if (isApiNotFound(error)) return undefined;
      throw kubeError(error, `reading ${formatRef(ref)}`, ref.kind);
    }
  }

  private async api(): Promise<KubernetesObjectApi> {
    const config = await this.source.get();
    let api = this.clients.get(config);
    if (!api) {
      api = KubernetesObjectApi.makeApiClient(config);
      this.clients.set(config, api);
    }
    return api;
  }
}

function header(ref: ObjectRef): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
} {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace },
  };
}

/**
 * A token for ServiceAccount `namespace/name` (`POST …/serviceaccounts/{name}/token`,
 * TokenRequest) valid for `expirationSeconds`, which the API server may shorten
 * (`--service-account-max-token-expiration`).
 */
export async function serviceAccountToken(
  source: KubeConfigSource,
  namespace: string,
  name: string,
  expirationSeconds: number,
): Promise<{ readonly token: string; readonly expiresAt: string | undefined }> {
  const core = (await source.get()).makeApiClient(CoreV1Api);
  try {
    const answer = await core.createNamespacedServiceAccountToken({
      namespace,
      name,
      body: { spec: { audiences: [], expirationSeconds } },
    });
    const token = answer.status?.token;
    if (!token) throw new Error('the TokenRequest answer holds no token');
    return { token, expiresAt: answer.status?.expirationTimestamp?.toISOString() };
  } catch (error) {
    throw kubeError(
      error,
      `creating a token for ServiceAccount ${namespace}/${name}`,
      'serviceaccounts/token',
    );
  }
}
