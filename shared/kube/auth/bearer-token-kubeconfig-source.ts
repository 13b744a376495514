import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterAccess } from '../../core/ports/cluster-access';
import type { KubeConfigSource } from '../kubeconfig-source';
import { type BearerTokenKubeConfigOptions, bearerTokenKubeConfig } from './bearer-token-kubeconfig';

/**
 * The {@link KubeConfigSource} for clusters reached with a bearer token: EKS
 * (`new BearerTokenKubeConfigSource(new EksClusterAccess(…))`, an IAM token refreshed every 14
 * minutes) and kOps (`new KopsClusterAccess(…)`, a service-account token from SSM).
 *
 * `get()` returns the same KubeConfig object while the token, endpoint and CA are unchanged, so
 * API clients made from it can be kept; when the access hands out a new token (or the cluster
 * moved), it builds a new one.
 */
export class BearerTokenKubeConfigSource implements KubeConfigSource {
  private last: { readonly key: string; readonly kubeConfig: KubeConfig } | undefined;

  constructor(
    private readonly access: ClusterAccess,
    private readonly options: BearerTokenKubeConfigOptions = {},
  ) {}

  async get(): Promise<KubeConfig> {
    const [info, token] = await Promise.all([this.access.clusterInfo(), this.access.bearerToken()]);
    const key = JSON.stringify([info.name, info.endpoint, info.certificateAuthority, token.token]);
    if (this.last?.key !== key) {
      this.last = { key, kubeConfig: bearerTokenKubeConfig(info, token.token, this.options) };
    }
    return this.last.kubeConfig;
  }
}
