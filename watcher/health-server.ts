import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-metrics';

/** What the server reports on. */
export interface HealthSource {
  /** Every resource's view is current. */
  readonly ready: boolean;
  /** Per resource, whether it is ready and a line saying why, for the /readyz body. */
  readiness(): Readonly<Record<string, { readonly ready: boolean; readonly detail: string }>>;
  readonly metrics: { render(): string };
}

/** Options of {@link startHealthServer}. */
export interface HealthServerOptions {
  readonly port: number;
  /**
   * Address to listen on.
   * @default every interface, IPv6 and IPv4 where available
   */
  readonly host?: string;
}

/** A listening health server. */
export interface HealthServer {
  /** The port it listens on (the real one when asked for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The probes and metrics endpoint: `/healthz` (the process is alive), `/readyz` (every
 * resource listed and recently heard from; 503 otherwise, one line per resource saying why)
 * and `/metrics` (Prometheus text format).
 */
export async function startHealthServer(
  source: HealthSource,
  options: HealthServerOptions,
): Promise<HealthServer> {
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    switch (path) {
      case '/healthz':
        return send(response, 200, 'text/plain; charset=utf-8', 'ok\n');
      case '/readyz': {
        const lines = Object.entries(source.readiness()).map(
          ([resource, { detail }]) => `${resource}: ${detail}`,
        );
        return send(response, source.ready ? 200 : 503, 'text/plain; charset=utf-8', `${lines.join('\n')}\n`);
      }
      case '/metrics':
        return send(response, 200, PROMETHEUS_CONTENT_TYPE, source.metrics.render());
      default:
        return send(response, 404, 'text/plain; charset=utf-8', 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    if (options.host === undefined) server.listen(options.port, listening);
    else server.listen(options.port, options.host, listening);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}
