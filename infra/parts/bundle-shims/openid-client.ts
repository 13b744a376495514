import { leftOut } from './left-out';

/**
 * Stands in for openid-client: client-node's oidc_auth.js calls it only to refresh the token of
 * a kubeconfig user with `auth-provider: oidc`; the functions authenticate with an EKS bearer
 * token (shared/aws/eks). Leaves out openid-client and oauth4webapi (~21 KB).
 */
export function refreshTokenGrant(): never {
  return leftOut('openid-client', 'a kubeconfig user with auth-provider oidc');
}
