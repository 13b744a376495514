import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { ValidationError } from '../../core/model/errors';

/** Options of {@link bearerTokenKubeConfig}: how the KubeConfig reaches the API server. */
export interface BearerTokenKubeConfigOptions {
  /**
   * Test-only: accept an `http://` endpoint and skip TLS verification, for the fake API server
   * on 127.0.0.1 (client-node refuses plain HTTP otherwise). Never set it in a Lambda: without
   * it the config is https-only and trusts exactly the cluster's CA.
   * @default false
   */
  readonly insecureSkipTlsVerify?: boolean;
}

/**
 * A client-node KubeConfig built by hand (no file, no exec plugin): the cluster's https
 * endpoint and CA, and `token` as the user's bearer token.
 * @throws ValidationError when the endpoint is not https or the CA is missing (unless
 * `insecureSkipTlsVerify`).
 */
export function bearerTokenKubeConfig(
  info: ClusterInfo,
  token: string,
  options: BearerTokenKubeConfigOptions = {},
): KubeConfig {
  const insecure = options.insecureSkipTlsVerify === true;
  if (!insecure) assertSecure(info);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      insecure
        ? { name: info.name, server: info.endpoint, skipTLSVerify: true }
        : { name: info.name, server: info.endpoint, caData: info.certificateAuthority, skipTLSVerify: false },
    ],
    users: [{ name: 'podlift', token }],
    contexts: [{ name: 'podlift', cluster: info.name, user: 'podlift' }],
    currentContext: 'podlift',
  });
  return kubeConfig;
}

function assertSecure(info: ClusterInfo): void {
  const location = { source: `cluster ${info.name}` };
  if (!/^https:\/\/[^/]/.test(info.endpoint)) {
    throw new ValidationError(
      [{ field: 'endpoint', value: info.endpoint, message: 'must be an https:// URL' }],
      location,
    );
  }
  if (info.certificateAuthority.trim() === '') {
    throw new ValidationError(
      [
        {
          field: 'certificateAuthority',
          value: info.certificateAuthority,
          message: 'must be the base64 CA PEM',
        },
      ],
      location,
    );
  }
}
