/**
 * Least privilege, measured: what each of podlift's Kubernetes identities did in a simulated
 * cluster (the fake API server's request log, which names the authenticated user) against what
 * manifests/ grants it. A grant no request used is a right the code does not need.
 */
import type { PolicyRule, RecordedRequest, UserInfo } from '../../../sim/fakes/kube';
import { defaultResources } from '../../../sim/fakes/kube';
import { ResourceRegistry } from '../../../sim/fakes/kube/resources';
import { routeFor } from '../../../sim/fakes/kube/routes';
import { functionIdentity, manifestsRbacPolicy, WATCHER_IDENTITY } from '../../../sim/world/kube-identities';

/** One authorized request, reduced to what RBAC looks at. */
export interface Use {
  readonly user: string;
  readonly verb: string;
  readonly group: string;
  /** `pods`, `pods/eviction`, `nodeclaims/status`. */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** One verb on one resource (and name) a rule grants: `create core/pods/eviction`. */
export interface Grant {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  /** Empty for a ClusterRole bound cluster-wide. */
  readonly namespace: string;
  readonly resourceNames?: readonly string[];
}

const registry = new ResourceRegistry(defaultResources);

/** The resource requests in `log`, by whom; requests the server did not authenticate are left out. */
export function usesIn(log: readonly RecordedRequest[]): Use[] {
  const uses: Use[] = [];
  for (const request of log) {
    const route = routeFor(registry, request.path);
    if (!request.user || !request.verb || route?.kind !== 'resource') continue;
    let name = route.name ?? '';
    const selector = /^metadata\.name==?(.*)$/.exec(request.query.fieldSelector ?? '');
    if (name === '' && selector) name = selector[1];
    uses.push({
      user: request.user,
      verb: request.verb,
      group: route.resource.group,
      resource: route.subresource ? `${route.resource.plural}/${route.subresource}` : route.resource.plural,
      namespace: route.namespace ?? '',
      name,
    });
  }
  return uses;
}

/** A podlift identity as RBAC sees it: the subjects its bindings name, and the users in it. */
export interface AuditedIdentity {
  readonly label: string;
  /** A user holding exactly this identity's groups, to enumerate its rules. */
  readonly user: UserInfo;
  /** Every user name that acts as this identity (the three launching functions share one). */
  readonly members: readonly string[];
}

/** The launching functions (one IAM role, one group), termination and the watcher. */
export function auditedIdentities(): readonly AuditedIdentity[] {
  const launching = (['provisioner', 'interruption', 'disruption'] as const).map(functionIdentity);
  const termination = functionIdentity('termination');
  return [
    { label: 'podlift:functions', user: launching[0].user, members: launching.map((i) => i.user.name) },
    { label: 'podlift:termination', user: termination.user, members: [termination.user.name] },
    { label: 'watcher', user: WATCHER_IDENTITY.user, members: [WATCHER_IDENTITY.user.name] },
  ];
}

/** Every verb-on-resource `identity`'s bound rules grant (discovery, granted to everyone, left out). */
export function grantsOf(identity: AuditedIdentity): Grant[] {
  return manifestsRbacPolicy()
    .rulesFor(identity.user)
    .filter(({ rule }) => rule.nonResourceURLs === undefined)
    .flatMap(({ namespace, rule }) => expand(rule, namespace));
}

function expand(rule: PolicyRule, namespace: string): Grant[] {
  return (rule.apiGroups ?? []).flatMap((group) =>
    (rule.resources ?? []).flatMap((resource) =>
      rule.verbs.map((verb) => ({
        verb,
        group,
        resource,
        namespace,
        ...(rule.resourceNames && rule.resourceNames.length > 0 ? { resourceNames: rule.resourceNames } : {}),
      })),
    ),
  );
}

/** Whether `use` exercises `grant`. */
export function exercises(use: Use, grant: Grant): boolean {
  return (
    use.verb === grant.verb &&
    use.group === grant.group &&
    use.resource === grant.resource &&
    (grant.namespace === '' || use.namespace === grant.namespace) &&
    (grant.resourceNames === undefined || grant.resourceNames.includes(use.name))
  );
}

/** `list core/persistentvolumeclaims`, `get coordination.k8s.io/leases[podlift] in podlift`. */
export function describeGrant(grant: Grant): string {
  const names = grant.resourceNames ? `[${grant.resourceNames.join(',')}]` : '';
  const scope = grant.namespace === '' ? '' : ` in ${grant.namespace}`;
  return `${grant.verb} ${grant.group === '' ? 'core' : grant.group}/${grant.resource}${names}${scope}`;
}

/**
 * The grants of `identity` no use by one of its members exercised, less `allowed` (grants used
 * by code paths the simulated cluster cannot play, each with its reason at the call site).
 */
export function unusedGrants(
  identity: AuditedIdentity,
  uses: readonly Use[],
  allowed: readonly string[] = [],
): string[] {
  const mine = uses.filter((u) => identity.members.includes(u.user));
  return grantsOf(identity)
    .filter((grant) => !mine.some((use) => exercises(use, grant)))
    .map(describeGrant)
    .filter((grant) => !allowed.includes(grant));
}
