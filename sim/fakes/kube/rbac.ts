/**
 * Role-based access control as the real API server evaluates it, over ClusterRoles, Roles and
 * their bindings parsed from YAML (podlift's `manifests/`), plus the bootstrap policy every
 * cluster has (discovery for authenticated users) and the `system:masters` superuser group.
 *
 * Followed: kubernetes `plugin/pkg/auth/authorizer/rbac/rbac.go` (`RBACAuthorizer.Authorize`,
 * `appliesTo`), `pkg/registry/rbac/validation/rule.go` (`VisitRulesFor`: cluster bindings
 * first, then the request namespace's RoleBindings; a binding whose role is missing is skipped
 * and reported), `pkg/apis/rbac/v1/evaluation_helpers.go` (`RuleAllows`, `VerbMatches`,
 * `APIGroupMatches`, `ResourceMatches` with `*` and `*​/subresource`, `ResourceNameMatches`,
 * `NonResourceURLMatches`) and `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`
 * (`system:discovery`, `system:public-info-viewer`).
 */
import { parseAllDocuments } from 'yaml';

/** Who a request comes from, as the authenticator resolved its credentials. */
export interface UserInfo {
  /** `system:serviceaccount:podlift:podlift-watcher`, an STS assumed-role ARN, … */
  readonly name: string;
  readonly groups: readonly string[];
}

/** What a request asks to do (apiserver `authorizer.Attributes`). */
export type RequestAttributes =
  | {
      readonly resourceRequest: true;
      readonly verb: string;
      readonly apiGroup: string;
      readonly resource: string;
      /** `status`, `eviction`; empty for the main resource. */
      readonly subresource: string;
      /** Empty for cluster-scoped requests. */
      readonly namespace: string;
      /** Empty for collections (a create has no name, except on a subresource such as eviction). */
      readonly name: string;
    }
  | { readonly resourceRequest: false; readonly verb: string; readonly path: string };

/** One `rules` entry of a (Cluster)Role. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

interface Binding {
  readonly name: string;
  /** Set for RoleBindings. */
  readonly namespace?: string;
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects: readonly Subject[];
}

/** The outcome of {@link RbacPolicy.authorize}. */
export interface Decision {
  readonly allowed: boolean;
  /** `RBAC: clusterrole.rbac.authorization.k8s.io "x" not found` when a binding's role is missing. */
  readonly reason: string;
}

/** The group whose members the real server never asks RBAC about (`user.SystemPrivilegedGroup`). */
export const SYSTEM_MASTERS = 'system:masters';

/** Every request with a valid credential carries this group (`user.AllAuthenticated`). */
export const SYSTEM_AUTHENTICATED = 'system:authenticated';

const bootstrapDocuments: readonly Record<string, unknown>[] = [
  {
    kind: 'ClusterRole',
    metadata: { name: 'system:discovery' },
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/openapi',
          '/openapi/*',
          '/version',
          '/version/',
        ],
      },
    ],
  },
  {
    kind: 'ClusterRoleBinding',
    metadata: { name: 'system:discovery' },
    roleRef: { kind: 'ClusterRole', name: 'system:discovery' },
    subjects: [{ kind: 'Group', name: SYSTEM_AUTHENTICATED }],
  },
];

/** ClusterRoles, Roles and bindings, and the decisions RBAC makes from them. */
export class RbacPolicy {
  private readonly clusterRoles = new Map<string, readonly PolicyRule[]>();
  /** By `namespace/name`. */
  private readonly roles = new Map<string, readonly PolicyRule[]>();
  private readonly clusterBindings: Binding[] = [];
  private readonly roleBindings: Binding[] = [];

  /**
   * A policy of the RBAC objects in `documents` (other kinds are ignored) and the bootstrap
   * discovery role. Throws for an RBAC object it cannot read, naming it.
   */
  constructor(documents: readonly unknown[]) {
    for (const document of [...bootstrapDocuments, ...documents]) this.add(document);
  }

  /** A policy of every RBAC object in the YAML `texts` (multi-document streams). */
  static fromYaml(texts: readonly string[]): RbacPolicy {
    return new RbacPolicy(
      texts
        .flatMap((text) => parseAllDocuments(text).map((d) => d.toJS() as unknown))
        .filter((d) => d != null),
    );
  }

  /** Whether RBAC allows `user` to do `attributes`. */
  authorize(user: UserInfo, attributes: RequestAttributes): Decision {
    if (user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    const namespace = attributes.resourceRequest ? attributes.namespace : '';
    const bindings = [
      ...this.clusterBindings,
      ...(namespace === '' ? [] : this.roleBindings.filter((b) => b.namespace === namespace)),
    ];
    for (const binding of bindings) {
      if (!binding.subjects.some((s) => appliesTo(s, user, binding.namespace))) continue;
      const rules = this.rulesOf(binding);
      if (!rules) {
        errors.push(missingRole(binding));
        continue;
      }
      if (rules.some((rule) => ruleAllows(attributes, rule))) return { allowed: true, reason: '' };
    }
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  /**
   * Every rule bound to `user` (cluster-wide, and per namespace for RoleBindings), as
   * `kubectl auth can-i --list` would enumerate them; for least-privilege reviews.
   */
  rulesFor(user: UserInfo): { readonly namespace: string; readonly rule: PolicyRule }[] {
    const found: { namespace: string; rule: PolicyRule }[] = [];
    for (const binding of [...this.clusterBindings, ...this.roleBindings]) {
      if (!binding.subjects.some((s) => appliesTo(s, user, binding.namespace))) continue;
      for (const rule of this.rulesOf(binding) ?? [])
        found.push({ namespace: binding.namespace ?? '', rule });
    }
    return found;
  }

  private rulesOf(binding: Binding): readonly PolicyRule[] | undefined {
    return binding.roleRef.kind === 'ClusterRole'
      ? this.clusterRoles.get(binding.roleRef.name)
      : this.roles.get(`${binding.namespace}/${binding.roleRef.name}`);
  }

  private add(document: unknown): void {
    if (!isObject(document)) return;
    const kind = document.kind;
    if (kind !== 'ClusterRole' && kind !== 'Role' && kind !== 'ClusterRoleBinding' && kind !== 'RoleBinding')
      return;
    const metadata = isObject(document.metadata) ? document.metadata : {};
    const name = String(metadata.name ?? '');
    const namespace =
      kind === 'Role' || kind === 'RoleBinding' ? String(metadata.namespace ?? 'default') : undefined;
    const what = `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
    if (name === '') throw new Error(`RBAC object without metadata.name: ${JSON.stringify(document)}`);
    if (kind === 'ClusterRole' || kind === 'Role') {
      const rules = Array.isArray(document.rules) ? document.rules.map((r) => policyRule(r, what)) : [];
      if (kind === 'ClusterRole') this.clusterRoles.set(name, rules);
      else this.roles.set(`${namespace}/${name}`, rules);
      return;
    }
    const roleRef = document.roleRef;
    if (!isObject(roleRef) || typeof roleRef.kind !== 'string' || typeof roleRef.name !== 'string')
      throw new Error(`${what}: roleRef needs kind and name`);
    if (kind === 'ClusterRoleBinding' && roleRef.kind !== 'ClusterRole')
      throw new Error(`${what}: a ClusterRoleBinding may only reference a ClusterRole, not ${roleRef.kind}`);
    const subjects = (Array.isArray(document.subjects) ? document.subjects : []).map((s): Subject => {
      if (!isObject(s) || typeof s.kind !== 'string' || typeof s.name !== 'string')
        throw new Error(`${what}: a subject needs kind and name`);
      return typeof s.namespace === 'string'
        ? { kind: s.kind, name: s.name, namespace: s.namespace }
        : { kind: s.kind, name: s.name };
    });
    const binding: Binding = {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      roleRef: { kind: roleRef.kind, name: roleRef.name },
      subjects,
    };
    (kind === 'ClusterRoleBinding' ? this.clusterBindings : this.roleBindings).push(binding);
  }
}

/** rbac.go `appliesTo`: a binding subject names this user, one of its groups, or its service account. */
function appliesTo(subject: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A RoleBinding's subject without a namespace means the binding's own (ServiceAccount's
      // namespace defaulting in rbac/v1); a ClusterRoleBinding's must name one.
      const namespace = subject.namespace ?? bindingNamespace;
      return namespace !== undefined && user.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** evaluation_helpers.go `RuleAllows`. */
export function ruleAllows(attributes: RequestAttributes, rule: PolicyRule): boolean {
  if (!matchesOrStar(rule.verbs, attributes.verb)) return false;
  if (!attributes.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some((url) =>
      url.endsWith('*') ? attributes.path.startsWith(url.slice(0, -1)) : url === attributes.path,
    );
  }
  const resource =
    attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    matchesOrStar(rule.apiGroups ?? [], attributes.apiGroup) &&
    (rule.resources ?? []).some(
      (r) =>
        r === '*' || r === resource || (attributes.subresource !== '' && r === `*/${attributes.subresource}`),
    ) &&
    (rule.resourceNames === undefined ||
      rule.resourceNames.length === 0 ||
      rule.resourceNames.includes(attributes.name))
  );
}

/**
 * The 403 message the real server sends (apiserver `responsewriters.forbiddenMessage` inside
 * apimachinery `errors.NewForbidden`): `pods "web-1" is forbidden: User "…" cannot delete
 * resource "pods" in API group "" in the namespace "default"`, `… at the cluster scope` without
 * a namespace, `forbidden: User "…" cannot get path "/version"` for a non-resource URL, and the
 * authorizer's reason after a colon when it gave one.
 */
export function forbiddenMessage(user: UserInfo, attributes: RequestAttributes, reason: string): string {
  let why: string;
  if (!attributes.resourceRequest) {
    why = `User ${quote(user.name)} cannot ${attributes.verb} path ${quote(attributes.path)}`;
  } else {
    const resource =
      attributes.subresource === ''
        ? attributes.resource
        : `${attributes.resource}/${attributes.subresource}`;
    const scope =
      attributes.namespace === ''
        ? 'at the cluster scope'
        : `in the namespace ${quote(attributes.namespace)}`;
    why = `User ${quote(user.name)} cannot ${attributes.verb} resource ${quote(resource)} in API group ${quote(attributes.apiGroup)} ${scope}`;
  }
  if (reason !== '') why = `${why}: ${reason}`;
  if (!attributes.resourceRequest) return `forbidden: ${why}`;
  const qualified =
    attributes.apiGroup === '' ? attributes.resource : `${attributes.resource}.${attributes.apiGroup}`;
  return attributes.name === ''
    ? `${qualified} is forbidden: ${why}`
    : `${qualified} ${quote(attributes.name)} is forbidden: ${why}`;
}

function matchesOrStar(allowed: readonly string[], value: string): boolean {
  return allowed.some((a) => a === '*' || a === value);
}

function missingRole(binding: Binding): string {
  return binding.roleRef.kind === 'ClusterRole'
    ? `clusterrole.rbac.authorization.k8s.io ${quote(binding.roleRef.name)} not found`
    : `role.rbac.authorization.k8s.io ${quote(binding.roleRef.name)} not found`;
}

/** utilerrors `aggregate.Error`: one message as is, several in brackets. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

function policyRule(raw: unknown, what: string): PolicyRule {
  if (!isObject(raw) || !isStringList(raw.verbs)) throw new Error(`${what}: every rule needs verbs`);
  const list = (field: string): readonly string[] | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (!isStringList(value)) throw new Error(`${what}: rule ${field} must be a list of strings`);
    return value;
  };
  const rule: PolicyRule = {
    verbs: raw.verbs,
    ...optional('apiGroups', list('apiGroups')),
    ...optional('resources', list('resources')),
    ...optional('resourceNames', list('resourceNames')),
    ...optional('nonResourceURLs', list('nonResourceURLs')),
  };
  return rule;
}

function optional<K extends string>(
  key: K,
  value: readonly string[] | undefined,
): { [P in K]?: readonly string[] } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: readonly string[] };
}

/** Go's `%q` for the plain strings in these messages. */
function quote(value: string): string {
  return JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
