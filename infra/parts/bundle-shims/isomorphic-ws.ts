import { leftOut } from './left-out';

/**
 * Stands in for isomorphic-ws (and so ws, 48 KB): client-node's web-socket-handler.js opens
 * WebSockets for exec, attach, port-forward and cp only, which the functions never use.
 */
class WebSocket {
  /** The readyState constant web-socket-handler.js compares with. */
  static readonly OPEN = 1;
  constructor() {
    leftOut('isomorphic-ws', 'exec, attach, port-forward and cp');
  }
}

// biome-ignore lint/style/noDefaultExport: web-socket-handler.js imports the package's default: `import WebSocket from 'isomorphic-ws'`.
export default WebSocket;
