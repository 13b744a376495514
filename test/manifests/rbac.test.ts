import { describe, expect, it } from 'vitest';
import { CRD_NAMES, crd } from './crd-schema';
import { type KubeObject, manifestDocuments, manifestObject } from './manifests';

/**
 * The watcher may only read; the launching functions and termination each get exactly what
 * their operations need (listed here explicitly, so a new right is a reviewed change to this
 * table, not a snapshot update; test/manifests/least-privilege.test.ts checks each is used).
 */

interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

interface RoleObject extends KubeObject {
  readonly rules: readonly PolicyRule[];
}

interface BindingObject extends KubeObject {
  readonly roleRef: {
    readonly apiGroup: string;
    readonly kind: 'Role' | 'ClusterRole';
    readonly name: string;
  };
  readonly subjects: readonly {
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly apiGroup?: string;
  }[];
}

/**
 * A role's rights as `group/resource[names]` → sorted verbs, the core group spelled `core`.
 * Rules naming the same thing add up, as RBAC does.
 */
function rights(role: RoleObject): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const rule of role.rules) {
    const names = rule.resourceNames ? `[${rule.resourceNames.join(',')}]` : '';
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group === '' ? 'core' : group}/${resource}${names}`;
        out[key] ??= new Set();
        for (const verb of rule.verbs) out[key].add(verb);
      }
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

const sorted = (table: Record<string, readonly string[]>) =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k, [...v].sort()]));

/** What the launching functions may do cluster-wide (see the comment in functions-rbac.yaml). */
const FUNCTIONS_CLUSTER_RIGHTS = sorted({
  'core/pods': ['get', 'list', 'patch'],
  'core/pods/eviction': ['create'],
  'core/nodes': ['get', 'list', 'patch'],
  'core/persistentvolumes': ['list'],
  'core/persistentvolumeclaims': ['list'],
  'core/events': ['create', 'list', 'patch'],
  'apps/daemonsets': ['list'],
  'policy/poddisruptionbudgets': ['list'],
  'karpenter.sh/nodepools': ['get', 'list'],
  'karpenter.sh/nodepools/status': ['update'],
  'karpenter.sh/nodeclaims': ['get', 'list', 'create', 'patch', 'delete'],
  'karpenter.sh/nodeclaims/status': ['update'],
  'karpenter.k8s.aws/ec2nodeclasses': ['list'],
  'karpenter.k8s.aws/ec2nodeclasses/status': ['patch'],
});

/** What the launching functions may do in the podlift namespace: their one Lease. */
const FUNCTIONS_LEASE_RIGHTS = sorted({
  'coordination.k8s.io/leases': ['create'],
  'coordination.k8s.io/leases[podlift]': ['get', 'update'],
});

/** What termination may do cluster-wide (see the comment in termination-rbac.yaml). */
const TERMINATION_CLUSTER_RIGHTS = sorted({
  'core/pods': ['get', 'list', 'delete'],
  'core/pods/eviction': ['create'],
  'core/nodes': ['get', 'list', 'patch', 'delete'],
  'core/persistentvolumeclaims': ['list'],
  'core/events': ['create', 'list', 'patch'],
  'storage.k8s.io/volumeattachments': ['list'],
  'apps/daemonsets': ['list'],
  'policy/poddisruptionbudgets': ['list'],
  'karpenter.sh/nodepools': ['list'],
  'karpenter.sh/nodeclaims': ['get', 'list', 'patch', 'delete'],
  'karpenter.sh/nodeclaims/status': ['update'],
  'karpenter.k8s.aws/ec2nodeclasses': ['list'],
});

/** Termination reads the Lease (unavailable offerings), never takes it. */
const TERMINATION_LEASE_RIGHTS = sorted({ 'coordination.k8s.io/leases[podlift]': ['get'] });

const WATCHER_RIGHTS = sorted({
  'core/pods': ['list', 'watch'],
  'core/nodes': ['list', 'watch'],
  'karpenter.sh/nodepools': ['list', 'watch'],
  'karpenter.sh/nodeclaims': ['list', 'watch'],
  'karpenter.k8s.aws/ec2nodeclasses': ['list', 'watch'],
});

const GROUPS = { functions: 'podlift:functions', termination: 'podlift:termination' } as const;

describe('the watcher ClusterRole', () => {
  const role = manifestObject<RoleObject>('ClusterRole', 'podlift-watcher');

  it('only reads pods, nodes, NodePools, NodeClaims and EC2NodeClasses', () => {
    expect(rights(role)).toEqual(WATCHER_RIGHTS);
  });

  it('has no verb but list and watch', () => {
    const verbs = new Set(role.rules.flatMap((r) => r.verbs));
    expect([...verbs].sort()).toEqual(['list', 'watch']);
  });

  it('is bound to the watcher ServiceAccount only', () => {
    const binding = manifestObject<BindingObject>('ClusterRoleBinding', 'podlift-watcher');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'podlift-watcher',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'podlift-watcher', namespace: 'podlift' },
    ]);
    expect(manifestObject('ServiceAccount', 'podlift-watcher', 'podlift')).toBeDefined();
  });
});

describe.each([
  { who: 'functions', cluster: FUNCTIONS_CLUSTER_RIGHTS, lease: FUNCTIONS_LEASE_RIGHTS },
  { who: 'termination', cluster: TERMINATION_CLUSTER_RIGHTS, lease: TERMINATION_LEASE_RIGHTS },
] as const)('the $who roles', ({ who, cluster, lease }) => {
  const name = `podlift-${who}`;
  it('grant exactly the documented cluster-wide rights', () => {
    expect(rights(manifestObject<RoleObject>('ClusterRole', name))).toEqual(cluster);
  });

  it('grant the Lease rights in the podlift namespace only, naming the one Lease but for create', () => {
    const role = manifestObject<RoleObject>('Role', `${name}-lease`, 'podlift');
    expect(rights(role)).toEqual(lease);
  });

  it(`are bound to the group ${GROUPS[who]}, which the EKS access entry maps its Lambda role to`, () => {
    const group = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: GROUPS[who] }];
    const clusterBinding = manifestObject<BindingObject>('ClusterRoleBinding', name);
    expect(clusterBinding.roleRef).toMatchObject({ kind: 'ClusterRole', name });
    expect(clusterBinding.subjects).toEqual(group);
    const leaseBinding = manifestObject<BindingObject>('RoleBinding', `${name}-lease`, 'podlift');
    expect(leaseBinding.roleRef).toMatchObject({ kind: 'Role', name: `${name}-lease` });
    expect(leaseBinding.subjects).toEqual(group);
  });

  it('never touch secrets, configmaps or namespaces', () => {
    const granted = [...Object.keys(cluster), ...Object.keys(lease)].map((k) => k.split('/')[1]);
    expect(granted).not.toContain('secrets');
    expect(granted).not.toContain('configmaps');
    expect(granted).not.toContain('namespaces');
  });
});

describe('the launching functions and termination', () => {
  it('split the rights: only termination deletes pods and nodes, only the functions create NodeClaims', () => {
    expect(FUNCTIONS_CLUSTER_RIGHTS['core/nodes']).not.toContain('delete');
    expect(FUNCTIONS_CLUSTER_RIGHTS['core/pods']).not.toContain('delete');
    expect(TERMINATION_CLUSTER_RIGHTS['karpenter.sh/nodeclaims']).not.toContain('create');
    expect(TERMINATION_CLUSTER_RIGHTS['karpenter.sh/nodepools/status']).toBeUndefined();
  });
});

describe('all RBAC in manifests/', () => {
  const roles = manifestDocuments()
    .map((d) => d.object)
    .filter((o): o is RoleObject => o.kind === 'ClusterRole' || o.kind === 'Role');
  const bindings = manifestDocuments()
    .map((d) => d.object)
    .filter((o): o is BindingObject => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');

  it('uses no wildcards, no escalate/bind/impersonate and no non-resource URLs', () => {
    for (const rule of roles.flatMap((r) => r.rules)) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['escalate']));
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['bind']));
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['impersonate']));
      expect(rule.nonResourceURLs).toBeUndefined();
    }
  });

  it('names only resources the CRDs define in the karpenter groups', () => {
    const served = new Set(
      (Object.keys(CRD_NAMES) as (keyof typeof CRD_NAMES)[]).flatMap((kind) => {
        const { group, names } = crd(kind).spec;
        return [`${group}/${names.plural}`, `${group}/${names.plural}/status`];
      }),
    );
    const karpenter = roles
      .flatMap((r) => r.rules)
      .flatMap((rule) => rule.apiGroups.flatMap((g) => rule.resources.map((res) => `${g}/${res}`)))
      .filter((r) => r.startsWith('karpenter.'));
    expect(karpenter.length).toBeGreaterThan(0);
    for (const r of karpenter) expect(served, r).toContain(r);
  });

  it('binds only roles that exist, in the same namespace for a RoleBinding', () => {
    for (const b of bindings) {
      const target = roles.find(
        (r) =>
          r.kind === b.roleRef.kind &&
          r.metadata.name === b.roleRef.name &&
          (b.kind === 'ClusterRoleBinding' || r.metadata.namespace === b.metadata.namespace),
      );
      expect(target, `${b.kind}/${b.metadata.name}`).toBeDefined();
    }
  });
});
