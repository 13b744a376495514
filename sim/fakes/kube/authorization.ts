/**
 * Authentication and authorization of the fake API server's requests: a bearer token names a
 * user (as EKS's IAM authenticator or a service-account token would), the request becomes
 * apiserver's authorization attributes, and {@link RbacPolicy} decides. A refusal is the real
 * server's 401 or 403 Status.
 */
import type { PolicyRule, RequestAttributes, UserInfo } from './rbac';
import { forbiddenMessage, type RbacPolicy, ruleAllows } from './rbac';
import type { KubeVerb, Route } from './routes';
import type { StatusBody, StatusDetails } from './status';
import { failureStatus, statusForCode } from './status';

/** Options of the fake server's RBAC: who each token is, and the policy that binds them. */
export interface FakeKubeAuthorization {
  /** Bearer token → the user it authenticates as; any other token (or none) gets 401. */
  readonly users: ReadonlyMap<string, UserInfo>;
  readonly policy: RbacPolicy;
  /**
   * User name → rules granted outside RBAC, as EKS access policies are: an access entry's
   * associated policy (e.g. AmazonEKSClusterAdminPolicy, cluster-admin's rules) is evaluated by
   * EKS's authorizer webhook, which allows what RBAC did not. @default none
   */
  readonly accessPolicies?: ReadonlyMap<string, readonly PolicyRule[]>;
}

/** What the server learns about a request before serving it. */
export type AccessDecision =
  | { readonly allowed: true; readonly user: UserInfo }
  | { readonly allowed: false; readonly user?: UserInfo; readonly status: StatusBody };

/** What a request addresses, as the server routed it. */
export interface AddressedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Undefined for an unserved path. */
  readonly route: Route | undefined;
  /** Undefined when the method is not allowed on the route. */
  readonly verb: KubeVerb | undefined;
}

/**
 * Authenticates `token` and authorizes `request` with `auth`. Paths nothing serves and methods
 * a route does not allow are let through to their 404/405 (the real server would authorize
 * their attributes first; podlift never sends them).
 */
export function decideAccess(
  auth: FakeKubeAuthorization,
  token: string | undefined,
  request: AddressedRequest,
): AccessDecision {
  const user = token === undefined ? undefined : auth.users.get(token);
  if (!user) return { allowed: false, status: statusForCode(401) };
  const attributes = requestAttributes(request);
  if (!attributes) return { allowed: true, user };
  const decision = auth.policy.authorize(user, attributes);
  if (decision.allowed) return { allowed: true, user };
  if (auth.accessPolicies?.get(user.name)?.some((rule) => ruleAllows(attributes, rule))) {
    return { allowed: true, user };
  }
  return { allowed: false, user, status: forbiddenStatus(user, attributes, decision.reason) };
}

/**
 * apiserver `RequestInfoFactory.NewRequestInfo`: the verb, group, resource, subresource,
 * namespace and name of a request. A list or watch with a `metadata.name=` field selector is
 * authorized as that one name, as requestinfo.go does.
 */
export function requestAttributes(request: AddressedRequest): RequestAttributes | undefined {
  const { route, verb } = request;
  if (!route) return request.path === '/version' ? nonResource(request) : undefined;
  if (route.kind === 'discovery') return nonResource(request);
  if (!verb) return undefined;
  let name = route.name ?? '';
  if ((verb === 'list' || verb === 'watch') && name === '') {
    const selected = (request.query.get('fieldSelector') ?? '')
      .split(',')
      .map((term) => /^metadata\.name(?:=|==)(.*)$/.exec(term.trim()))
      .find((m) => m !== null);
    if (selected) name = selected[1];
  }
  return {
    resourceRequest: true,
    verb,
    apiGroup: route.resource.group,
    resource: route.resource.plural,
    subresource: route.subresource ?? '',
    namespace: route.namespace ?? '',
    name,
  };
}

/** The 403 Status: reason Forbidden, details naming the group, resource and object. */
export function forbiddenStatus(user: UserInfo, attributes: RequestAttributes, reason: string): StatusBody {
  const details: StatusDetails = {};
  if (attributes.resourceRequest) {
    if (attributes.name !== '') details.name = attributes.name;
    if (attributes.apiGroup !== '') details.group = attributes.apiGroup;
    details.kind = attributes.resource;
  }
  return failureStatus(403, forbiddenMessage(user, attributes, reason), 'Forbidden', details);
}

function nonResource(request: AddressedRequest): RequestAttributes {
  return { resourceRequest: false, verb: request.method.toLowerCase(), path: request.path };
}
