import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Where the cluster adapter gets a ready KubeConfig (endpoint, CA, bearer token). For EKS the
 * token is a presigned STS URL valid for 15 minutes, so the source hands out a fresh config
 * before the token expires; tests hand out the fake API server's config.
 *
 * This is shared/kube's own seam, not a core port: it hands out @kubernetes/client-node's
 * `KubeConfig`, a type core must not know. Core's port for a cluster's credentials is
 * `ClusterAccess` (core/ports/cluster-access.ts); `BearerTokenKubeConfigSource` turns one into
 * this.
 */
export interface KubeConfigSource {
  get(): Promise<KubeConfig>;
}

/** A source that always returns the same config (tests, static service-account tokens). */
export function staticKubeConfig(kubeConfig: KubeConfig): KubeConfigSource {
  return { get: async () => kubeConfig };
}
