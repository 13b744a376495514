/**
 * What each verb does to the store for a resource route, and the response body the real server
 * would send (lists shaped `{kind: PodList, metadata: {resourceVersion, continue}, items}`).
 */
import { evictPod } from './eviction';
import type { KubeObject } from './kube-object';
import { isJsonObject } from './kube-object';
import { patchContentTypes } from './patch';
import { apiVersionOf } from './resources';
import type { KubeVerb, ResourceRoute } from './routes';
import type { FakeServerVersion } from './server-version';
import { badRequest, failureStatus, KubeApiError, notFound } from './status';
import type { DeletePreconditions, KubeStore } from './store';

/** A decoded non-watch request to a resource path. */
export interface ResourceRequest {
  readonly verb: Exclude<KubeVerb, 'watch'>;
  readonly route: ResourceRoute;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly contentType: string;
  /** The Kubernetes version the server claims (what an Eviction body may be depends on it). */
  readonly version: FakeServerVersion;
}

/** HTTP status and JSON body to answer. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/** Carries out `request` against `store`; refusals are thrown as {@link KubeApiError}. */
export function handleResourceRequest(store: KubeStore, request: ResourceRequest): ApiResponse {
  const { verb, route, query, body } = request;
  const { resource, namespace, name, subresource } = route;
  if (subresource !== undefined) {
    const known =
      (subresource === 'status' && resource.statusSubresource) ||
      (subresource === 'eviction' && resource.group === '' && resource.plural === 'pods') ||
      (subresource === 'token' && resource.group === '' && resource.plural === 'serviceaccounts');
    if (!known) throw notFound(resource, `${name}/${subresource}`);
    if ((subresource === 'eviction' || subresource === 'token') && verb !== 'create')
      throw methodNotAllowed(verb);
    if (subresource === 'status' && verb !== 'get' && verb !== 'update' && verb !== 'patch')
      throw methodNotAllowed(verb);
  }
  const status = subresource === 'status' ? ('status' as const) : undefined;
  switch (verb) {
    case 'list':
      return { status: 200, body: listBody(store, route, query, request.version) };
    case 'get':
      return { status: 200, body: store.get(resource, name ?? '', namespace) };
    case 'create':
      if (subresource === 'token') {
        return { status: 201, body: tokenRequest(store, namespace ?? 'default', name ?? '', body) };
      }
      if (subresource === 'eviction') {
        return {
          status: 201,
          body: evictPod(store, namespace ?? 'default', name ?? '', body, request.version),
        };
      }
      if (resource.namespaced && namespace === undefined) throw methodNotAllowed(verb);
      return { status: 201, body: store.create(resource, objectBody(body), { namespace }) };
    case 'update': {
      const object = objectBody(body);
      if (object.metadata.name !== undefined && object.metadata.name !== name) {
        throw badRequest(
          `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
        );
      }
      return {
        status: 200,
        body: store.update(
          resource,
          { ...object, metadata: { ...object.metadata, name } },
          { namespace, subresource: status },
        ),
      };
    }
    case 'patch':
      if (isApply(request.contentType)) {
        if (status) throw methodNotAllowed(verb);
        const applied = store.apply(resource, name ?? '', body, {
          namespace,
          fieldManager: query.get('fieldManager') ?? undefined,
          force: query.get('force') === 'true',
        });
        return { status: applied.created ? 201 : 200, body: applied.object };
      }
      return {
        status: 200,
        body: store.patch(resource, name ?? '', body, request.contentType, {
          namespace,
          subresource: status,
        }),
      };
    case 'delete': {
      // The apiserver decodes DeleteOptions from the body when there is one, else from the query.
      const options = isJsonObject(body) ? body : deleteOptionsFromQuery(query);
      const preconditions = (isJsonObject(options.preconditions) ? options.preconditions : undefined) as
        | DeletePreconditions
        | undefined;
      const grace = options.gracePeriodSeconds;
      if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace)))
        throw badRequest(`gracePeriodSeconds must be an integer, got ${JSON.stringify(grace)}`);
      return {
        status: 200,
        body: store.delete(resource, name ?? '', {
          namespace,
          preconditions,
          ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
        }),
      };
    }
    case 'deletecollection':
      throw methodNotAllowed(verb);
  }
}

function listBody(
  store: KubeStore,
  route: ResourceRoute,
  query: URLSearchParams,
  version: FakeServerVersion,
): unknown {
  const { resource } = route;
  const limit = query.get('limit');
  if (limit !== null && !/^\d+$/.test(limit)) throw badRequest(`invalid limit: ${JSON.stringify(limit)}`);
  const resourceVersion = query.get('resourceVersion');
  const cont = query.get('continue');
  // apiserver's storage validation: a continue token carries its own resourceVersion.
  if (cont && resourceVersion)
    throw badRequest('specifying resource version is not allowed when using continue');
  // resourceVersion=0 is served from the watch cache. Before 1.34 the cache answers the whole
  // list and ignores limit (cacher.go shouldDelegateList); from 1.34 it pages from a cache
  // snapshot (KEP-4988 ListFromCacheSnapshot, beta and on by default).
  const wholeFromCache = resourceVersion === '0' && version.major === 1 && version.minor < 34;
  const page = store.list(resource, {
    namespace: route.namespace,
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
    limit: limit === null || wholeFromCache ? undefined : Number(limit),
    continue: cont ?? undefined,
  });
  const metadata: Record<string, unknown> = { resourceVersion: page.resourceVersion };
  if (page.continue !== undefined) metadata.continue = page.continue;
  if (page.remainingItemCount !== undefined) metadata.remainingItemCount = page.remainingItemCount;
  return {
    kind: `${resource.kind}List`,
    apiVersion: apiVersionOf(resource),
    metadata,
    // Built-in lists carry apiVersion/kind once, on the list; custom resource items keep theirs.
    items: resource.custom ? page.items : page.items.map(({ apiVersion: _v, kind: _k, ...item }) => item),
  };
}

/**
 * `POST …/serviceaccounts/{name}/token` (TokenRequest, authentication.k8s.io/v1): a token for an
 * existing ServiceAccount (404 otherwise), valid `spec.expirationSeconds` (default 3600, at
 * least 600, as the real server's validation; it may also cap it, kube-apiserver
 * `--service-account-max-token-expiration`, which the fake does not). The token is opaque
 * (`sim-sa-token.<ns>.<name>.<n>`), not a signed JWT.
 */
function tokenRequest(store: KubeStore, namespace: string, name: string, body: unknown): unknown {
  store.get('serviceaccounts', name, namespace);
  const spec = isJsonObject(body) && isJsonObject(body.spec) ? body.spec : {};
  const seconds = spec.expirationSeconds ?? 3600;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 600) {
    throw badRequest(
      `spec.expirationSeconds: Invalid value: ${JSON.stringify(seconds)}: may not specify a duration less than 10 minutes`,
    );
  }
  tokenCount += 1;
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace },
    spec: { ...spec, expirationSeconds: seconds },
    status: {
      token: `sim-sa-token.${namespace}.${name}.${tokenCount}`,
      expirationTimestamp: new Date(store.clock.now() + seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  };
}

let tokenCount = 0;

function isApply(contentType: string): boolean {
  return contentType.split(';')[0].trim().toLowerCase() === patchContentTypes.apply;
}

function deleteOptionsFromQuery(query: URLSearchParams): Record<string, unknown> {
  const grace = query.get('gracePeriodSeconds');
  if (grace === null) return {};
  if (!/^-?\d+$/.test(grace)) throw badRequest(`invalid gracePeriodSeconds: ${JSON.stringify(grace)}`);
  return { gracePeriodSeconds: Number(grace) };
}

function objectBody(body: unknown): KubeObject {
  if (!isJsonObject(body)) throw badRequest('the request body must be a JSON object');
  const metadata = body.metadata ?? {};
  if (!isJsonObject(metadata)) throw badRequest('metadata must be a JSON object');
  return { ...body, metadata };
}

function methodNotAllowed(verb: string): KubeApiError {
  return new KubeApiError(
    failureStatus(
      405,
      `the server does not allow this method on the requested resource (${verb})`,
      'MethodNotAllowed',
    ),
  );
}
