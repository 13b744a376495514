import { leftOut } from './left-out';

/**
 * Stands in for jsonpath-plus: client-node's azure_auth.js and gcp_auth.js query a kubeconfig
 * user's `auth-provider` config with it, for the azure and gcp providers only.
 */
export function JSONPath(): never {
  return leftOut('jsonpath-plus', 'a kubeconfig user with auth-provider azure or gcp');
}
