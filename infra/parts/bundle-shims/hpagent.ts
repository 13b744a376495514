import { leftOut } from './left-out';

/**
 * Stands in for hpagent: client-node's config.js `createAgent` only makes these for a
 * kubeconfig cluster with an http(s):// proxy-url, which the functions' kubeconfig never has.
 */
export class HttpProxyAgent {
  constructor() {
    leftOut('hpagent', 'an http:// proxy-url in the kubeconfig');
  }
}

/** See {@link HttpProxyAgent}. */
export class HttpsProxyAgent {
  constructor() {
    leftOut('hpagent', 'an https:// proxy-url in the kubeconfig');
  }
}
