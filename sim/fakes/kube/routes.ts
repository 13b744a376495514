/**
 * URL paths to what they address (`/api/v1/namespaces/{ns}/pods/{name}/eviction` → pods,
 * namespace, name, subresource), the Kubernetes verb of a request, and the discovery documents.
 */
import type { ResourceRegistry, ResourceType } from './resources';
import { apiVersionOf } from './resources';

/** The Kubernetes verbs the fake server distinguishes (fault injection and the request log use them). */
export type KubeVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection';

/** A path that addresses resources. */
export interface ResourceRoute {
  readonly resource: ResourceType;
  /** Set for namespaced paths (`/namespaces/{ns}/…`). */
  readonly namespace?: string;
  /** Set for object paths; absent for collections. */
  readonly name?: string;
  /** `status`, `eviction`, … */
  readonly subresource?: string;
}

/** What a path addresses. */
export type Route =
  | { readonly kind: 'discovery'; readonly document: unknown }
  | ({ readonly kind: 'resource' } & ResourceRoute);

/** The route of `pathname`, or undefined when nothing is served there (404). */
export function routeFor(registry: ResourceRegistry, pathname: string): Route | undefined {
  const segments = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length === 1) return { kind: 'discovery', document: apiVersions() };
    if (segments[1] !== 'v1') return undefined;
    [group, version, rest] = ['', 'v1', segments.slice(2)];
  } else if (segments[0] === 'apis') {
    if (segments.length === 1) return { kind: 'discovery', document: apiGroupList(registry) };
    if (segments.length < 3) return undefined;
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else return undefined;
  if (rest.length === 0) {
    const served = registry.all.filter((r) => r.group === group && r.version === version);
    return served.length > 0
      ? { kind: 'discovery', document: apiResourceList(group, version, served) }
      : undefined;
  }
  const namespacedResource =
    rest[0] === 'namespaces' && rest.length >= 3 ? registry.atPath(group, version, rest[2]) : undefined;
  if (namespacedResource?.namespaced) {
    if (rest.length > 5) return undefined;
    const [, namespace, , name, subresource] = rest;
    return { kind: 'resource', resource: namespacedResource, namespace, name, subresource };
  }
  const resource = registry.atPath(group, version, rest[0]);
  if (!resource || rest.length > 3) return undefined;
  const [, name, subresource] = rest;
  if (resource.namespaced && name !== undefined) return undefined;
  return { kind: 'resource', resource, name, subresource };
}

/**
 * How the real server answers a path nothing serves. A path under a built-in group's web
 * service (`/api/…`, `/apis/policy/…`, even for a version or resource it lacks) is claimed by
 * go-restful, whose unmatched route becomes a JSON Status 404 with empty details (apiserver
 * `director.ServeHTTP` and `serviceErrorHandler` → `apierrors.NewGenericServerResponse`). Any
 * other path (a custom resource whose CRD is not installed, an unknown group) falls through
 * the CRD handler to the last delegate, `notfoundhandler.Handler`, which answers Go's plain-text
 * `http.NotFound`: `404 page not found`.
 */
export function unservedPathAnswer(registry: ResourceRegistry, pathname: string): 'status' | 'text' {
  const [root, group] = pathname.split('/').filter((s) => s !== '');
  if (root === 'api') return 'status';
  return root === 'apis' && group !== undefined && registry.builtinGroups().has(decodeURIComponent(group))
    ? 'status'
    : 'text';
}

/** The verb of a request to `route`, or undefined when the method is not allowed there. */
export function verbFor(method: string, route: ResourceRoute, query: URLSearchParams): KubeVerb | undefined {
  const isObject = route.name !== undefined;
  switch (method) {
    case 'GET': {
      if (isObject) return 'get';
      const watch = query.get('watch');
      return watch === 'true' || watch === '1' ? 'watch' : 'list';
    }
    case 'POST':
      return isObject
        ? route.subresource === 'eviction' || route.subresource === 'token'
          ? 'create'
          : undefined
        : 'create';
    case 'PUT':
      return isObject ? 'update' : undefined;
    case 'PATCH':
      return isObject ? 'patch' : undefined;
    case 'DELETE':
      return isObject ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

function apiVersions(): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

function apiGroupList(registry: ResourceRegistry): unknown {
  const groups = new Map<string, Set<string>>();
  for (const r of registry.all) {
    if (r.group !== '') groups.set(r.group, (groups.get(r.group) ?? new Set()).add(r.version));
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, versions]) => {
      const list = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
      return { name, versions: list, preferredVersion: list[0] };
    }),
  };
}

const objectVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

function apiResourceList(group: string, version: string, served: readonly ResourceType[]): unknown {
  const resources: unknown[] = [];
  for (const r of served) {
    resources.push({
      name: r.plural,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: objectVerbs,
    });
    if (r.statusSubresource) {
      resources.push({
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (r.group === '' && r.plural === 'pods') {
      resources.push({
        name: 'pods/eviction',
        singularName: '',
        namespaced: true,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version } as ResourceType),
    resources,
  };
}
