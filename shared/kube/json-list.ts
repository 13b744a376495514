import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { ApiException, type KubeConfig } from '@kubernetes/client-node';
import type { ListPage } from './list-pages';

/**
 * Lists read as plain JSON, for the collections a control loop reads in bulk (pods, nodes).
 *
 * client-node's typed list calls turn every item into model class instances (its
 * ObjectSerializer walks each field with type metadata and makes `Date`s of timestamps), and
 * the core parsers want the wire JSON back, so each pod was decoded three times. Measured with
 * `npm run bench:state` on 1,000 nodes / 10,000 pods, the serializer and the JSON round trip
 * back were 40 % of an invocation's CPU. This request goes out with the same credentials,
 * TLS settings and proxy agent as client-node's own (`KubeConfig.applyToHTTPSOptions`), and a
 * failure answers the same `ApiException` (code and Status body), so `kubeError`,
 * `isApiExpired` and the pager treat it exactly as before.
 */

/** Query parameters of a list request; undefined ones are left out. */
export type ListQuery = Readonly<Record<string, string | number | undefined>>;

/**
 * One page of `path` (e.g. `/api/v1/pods`) as the API server's JSON: `{ items, metadata }`.
 * Items are plain objects with the field names and values of the wire (timestamps as strings).
 */
export async function listJsonPage<T>(
  config: KubeConfig,
  path: string,
  query: ListQuery,
): Promise<ListPage<T>> {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error(`listing ${path}: the kubeconfig has no current cluster`);
  const url = new URL(path, cluster.server.endsWith('/') ? cluster.server : `${cluster.server}/`);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const options: RequestOptions = { headers: {} };
  await config.applyToHTTPSOptions(options);
  const { status, headers, body } = await get(url, {
    ...options,
    headers: { ...options.headers, Accept: 'application/json' },
  });
  if (status < 200 || status >= 300) {
    throw new ApiException(
      status,
      `HTTP-Code: ${status}\nMessage: listing ${path}`,
      body,
      flatHeaders(headers),
    );
  }
  return JSON.parse(body) as ListPage<T>;
}

/** GET `url` and read the whole body as text. */
function get(
  url: URL,
  options: RequestOptions,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...options, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}
