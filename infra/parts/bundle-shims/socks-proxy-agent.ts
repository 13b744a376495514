import { leftOut } from './left-out';

/**
 * Stands in for socks-proxy-agent: client-node's config.js `createAgent` only makes one for a
 * kubeconfig cluster with a `socks5://` proxy-url, and the functions build their kubeconfig
 * without one (shared/kube/kubeconfig-source.ts). Leaves out socks, ip-address, smart-buffer,
 * agent-base and debug (~90 KB).
 */
export class SocksProxyAgent {
  constructor() {
    leftOut('socks-proxy-agent', 'a socks5:// proxy-url in the kubeconfig');
  }
}
