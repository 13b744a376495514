import { CoreV1Api, CustomObjectsApi, VersionApi } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeKubeApiServer,
  RbacPolicy,
  type RequestAttributes,
  ruleAllows,
  startFakeKubeApiServer,
  type UserInfo,
} from '../../../../sim/fakes/kube';
import { rejection } from './api-error';

/**
 * The fake API server's RBAC, from Kubernetes' own rules: pkg/apis/rbac/v1/evaluation_helpers.go
 * (`RuleAllows` and its helpers, evaluation_helpers_test.go), plugin/pkg/auth/authorizer/rbac
 * (`RBACAuthorizer.Authorize`, `appliesTo`, rbac_test.go's `TestAuthorizer` cases) and the 403
 * Status apiserver writes (responsewriters/errors.go `forbiddenMessage`, apimachinery
 * `errors.NewForbidden`).
 */

const resource = (
  verb: string,
  res: string,
  extra: Partial<Extract<RequestAttributes, { resourceRequest: true }>> = {},
): RequestAttributes => ({
  resourceRequest: true,
  verb,
  apiGroup: '',
  resource: res,
  subresource: '',
  namespace: '',
  name: '',
  ...extra,
});

describe('ruleAllows', () => {
  it.each([
    [
      'a verb the rule lists',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      resource('get', 'pods'),
      true,
    ],
    [
      'another verb',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      resource('list', 'pods'),
      false,
    ],
    [
      'any verb with *',
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      resource('deletecollection', 'pods'),
      true,
    ],
    [
      'another group',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] },
      resource('get', 'pods'),
      false,
    ],
    [
      'any group with *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] },
      resource('get', 'pods', { apiGroup: 'x' }),
      true,
    ],
    [
      'a subresource only by its own name',
      { verbs: ['create'], apiGroups: [''], resources: ['pods'] },
      resource('create', 'pods', { subresource: 'eviction', name: 'p' }),
      false,
    ],
    [
      'pods/eviction',
      { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
      resource('create', 'pods', { subresource: 'eviction', name: 'p' }),
      true,
    ],
    [
      '*/status for any resource',
      { verbs: ['update'], apiGroups: ['karpenter.sh'], resources: ['*/status'] },
      resource('update', 'nodeclaims', { apiGroup: 'karpenter.sh', subresource: 'status', name: 'c' }),
      true,
    ],
    [
      '*/status not for the main resource',
      { verbs: ['update'], apiGroups: ['karpenter.sh'], resources: ['*/status'] },
      resource('update', 'nodeclaims', { apiGroup: 'karpenter.sh', name: 'c' }),
      false,
    ],
    [
      'a status rule not for the main resource',
      { verbs: ['update'], apiGroups: ['karpenter.sh'], resources: ['nodeclaims/status'] },
      resource('update', 'nodeclaims', { apiGroup: 'karpenter.sh', name: 'c' }),
      false,
    ],
    [
      'any resource with *',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      resource('get', 'nodes', { subresource: 'status' }),
      true,
    ],
    [
      'a named object',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resource('get', 'pods', { name: 'a' }),
      true,
    ],
    [
      'another name',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resource('get', 'pods', { name: 'b' }),
      false,
    ],
    [
      'a create (no name) under resourceNames',
      { verbs: ['create'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resource('create', 'pods'),
      false,
    ],
    [
      'a non-resource URL by prefix',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      { resourceRequest: false, verb: 'get', path: '/apis/karpenter.sh/v1' },
      true,
    ],
    [
      'a non-resource URL exactly',
      { verbs: ['get'], nonResourceURLs: ['/version'] },
      { resourceRequest: false, verb: 'get', path: '/versions' },
      false,
    ],
    [
      'a non-resource request by a resource rule',
      { verbs: ['get'], apiGroups: ['*'], resources: ['*'] },
      { resourceRequest: false, verb: 'get', path: '/api' },
      false,
    ],
  ] as const)('matches %s: %j', (_what, rule, attributes, allowed) => {
    expect(ruleAllows(attributes as RequestAttributes, rule)).toBe(allowed);
  });
});

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const sa: UserInfo = {
  name: 'system:serviceaccount:ns1:robot',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
};

describe('RbacPolicy', () => {
  const policy = RbacPolicy.fromYaml([
    `
kind: ClusterRole
metadata: { name: reader }
rules: [{ apiGroups: [""], resources: [pods], verbs: [get, list] }]
---
kind: Role
metadata: { name: writer, namespace: ns1 }
rules: [{ apiGroups: [""], resources: [pods], verbs: [delete] }]
---
kind: ClusterRoleBinding
metadata: { name: readers }
roleRef: { kind: ClusterRole, name: reader }
subjects: [{ kind: Group, name: readers }]
---
kind: RoleBinding
metadata: { name: writers, namespace: ns1 }
roleRef: { kind: Role, name: writer }
subjects: [{ kind: User, name: alice }, { kind: ServiceAccount, name: robot }]
---
kind: RoleBinding
metadata: { name: cluster-role-in-ns, namespace: ns2 }
roleRef: { kind: ClusterRole, name: reader }
subjects: [{ kind: User, name: alice }]
---
kind: RoleBinding
metadata: { name: dangling, namespace: ns3 }
roleRef: { kind: Role, name: missing }
subjects: [{ kind: User, name: alice }]
---
kind: ServiceAccount
metadata: { name: ignored }
`,
  ]);

  it('allows a group member what a ClusterRoleBinding grants, anywhere', () => {
    const reader = { name: 'bob', groups: ['readers'] };
    expect(policy.authorize(reader, resource('list', 'pods')).allowed).toBe(true);
    expect(policy.authorize(reader, resource('get', 'pods', { namespace: 'x', name: 'p' })).allowed).toBe(
      true,
    );
    expect(
      policy.authorize(reader, resource('delete', 'pods', { namespace: 'ns1', name: 'p' })).allowed,
    ).toBe(false);
  });

  it("allows a RoleBinding's users only in its namespace", () => {
    expect(policy.authorize(alice, resource('delete', 'pods', { namespace: 'ns1', name: 'p' })).allowed).toBe(
      true,
    );
    expect(policy.authorize(alice, resource('delete', 'pods', { namespace: 'ns9', name: 'p' })).allowed).toBe(
      false,
    );
    expect(policy.authorize(alice, resource('delete', 'pods', { name: 'p' })).allowed).toBe(false);
  });

  it('grants a ClusterRole bound by a RoleBinding in that namespace only', () => {
    expect(policy.authorize(alice, resource('list', 'pods', { namespace: 'ns2' })).allowed).toBe(true);
    expect(policy.authorize(alice, resource('list', 'pods')).allowed).toBe(false);
  });

  it("matches a ServiceAccount subject without namespace in the RoleBinding's own namespace", () => {
    expect(policy.authorize(sa, resource('delete', 'pods', { namespace: 'ns1', name: 'p' })).allowed).toBe(
      true,
    );
    const other = { ...sa, name: 'system:serviceaccount:ns2:robot' };
    expect(policy.authorize(other, resource('delete', 'pods', { namespace: 'ns1', name: 'p' })).allowed).toBe(
      false,
    );
  });

  it('names a missing role in the reason, and still denies', () => {
    expect(policy.authorize(alice, resource('get', 'pods', { namespace: 'ns3', name: 'p' }))).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found',
    });
  });

  it('lets system:masters do anything and every authenticated user read discovery', () => {
    expect(
      policy.authorize({ name: 'admin', groups: ['system:masters'] }, resource('delete', 'nodes')).allowed,
    ).toBe(true);
    expect(policy.authorize(alice, { resourceRequest: false, verb: 'get', path: '/apis' }).allowed).toBe(
      true,
    );
    expect(
      policy.authorize({ name: 'x', groups: [] }, { resourceRequest: false, verb: 'get', path: '/apis' })
        .allowed,
    ).toBe(false);
  });

  it('lists the rules bound to a user, with their namespace', () => {
    expect(policy.rulesFor({ name: 'bob', groups: ['readers'] })).toEqual([
      { namespace: '', rule: { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] } },
    ]);
  });

  it('refuses a ClusterRoleBinding to a Role, naming it', () => {
    expect(() =>
      RbacPolicy.fromYaml([
        'kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: Role, name: r}\nsubjects: []',
      ]),
    ).toThrow('ClusterRoleBinding b: a ClusterRoleBinding may only reference a ClusterRole, not Role');
  });
});

describe('the fake API server with RBAC', () => {
  let server: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = () =>
    startFakeKubeApiServer({
      authorization: {
        users: new Map([
          ['reader-token', { name: 'bob', groups: ['readers', 'system:authenticated'] }],
          ['evictor-token', { name: 'eve', groups: ['evictors', 'system:authenticated'] }],
        ]),
        policy: RbacPolicy.fromYaml([
          `
kind: ClusterRole
metadata: { name: reader }
rules:
  - { apiGroups: [""], resources: [pods, nodes], verbs: [get, list] }
  - { apiGroups: [karpenter.sh], resources: [nodeclaims], verbs: [list], resourceNames: [only] }
---
kind: ClusterRoleBinding
metadata: { name: readers }
roleRef: { kind: ClusterRole, name: reader }
subjects: [{ kind: Group, name: readers }]
---
kind: ClusterRole
metadata: { name: evictor }
rules: [{ apiGroups: [""], resources: [pods/eviction], verbs: [create] }]
---
kind: ClusterRoleBinding
metadata: { name: evictors }
roleRef: { kind: ClusterRole, name: evictor }
subjects: [{ kind: Group, name: evictors }]
`,
        ]),
      },
    });

  it('serves what the policy grants and records who asked', async () => {
    server = await start();
    server.store.seed('pods', { metadata: { name: 'web', namespace: 'default' } });
    const core = server.kubeConfig('reader-token').makeApiClient(CoreV1Api);
    const list = await core.listNamespacedPod({ namespace: 'default' });
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(server.requests.at(-1)).toMatchObject({ verb: 'list', user: 'bob', status: 200 });
    expect((await server.kubeConfig('reader-token').makeApiClient(VersionApi).getCode()).gitVersion).toMatch(
      /^v1\./,
    );
  });

  it('answers 403 with the real Status for a namespaced object', async () => {
    server = await start();
    server.store.seed('pods', { metadata: { name: 'web', namespace: 'default' } });
    const core = server.kubeConfig('reader-token').makeApiClient(CoreV1Api);
    expect(await rejection(core.deleteNamespacedPod({ name: 'web', namespace: 'default' }))).toEqual({
      code: 403,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'pods "web" is forbidden: User "bob" cannot delete resource "pods" in API group "" in the namespace "default"',
        reason: 'Forbidden',
        details: { name: 'web', kind: 'pods' },
        code: 403,
      },
    });
    expect(server.store.get('pods', 'web', 'default')).toBeDefined();
  });

  it('names the subresource, and the cluster scope for a cluster-scoped collection', async () => {
    server = await start();
    const core = server.kubeConfig('reader-token').makeApiClient(CoreV1Api);
    const eviction = await rejection(
      core.createNamespacedPodEviction({
        name: 'web',
        namespace: 'default',
        body: { metadata: { name: 'web' } },
      }),
    );
    expect(eviction.status.message).toBe(
      'pods "web" is forbidden: User "bob" cannot create resource "pods/eviction" in API group "" in the namespace "default"',
    );
    const evictor = server.kubeConfig('evictor-token').makeApiClient(CoreV1Api);
    const list = await rejection(evictor.listNode());
    expect(list.status).toMatchObject({
      message:
        'nodes is forbidden: User "eve" cannot list resource "nodes" in API group "" at the cluster scope',
      details: { kind: 'nodes' },
    });
    // Granted pods/eviction, not pods: the eviction goes through (404: the pod does not exist).
    const allowed = await rejection(
      evictor.createNamespacedPodEviction({
        name: 'web',
        namespace: 'default',
        body: { metadata: { name: 'web' } },
      }),
    );
    expect(allowed.code).toBe(404);
  });

  it('authorizes a list by its metadata.name field selector against resourceNames', async () => {
    server = await start();
    const custom = server.kubeConfig('reader-token').makeApiClient(CustomObjectsApi);
    const at = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' };
    await expect(
      custom.listClusterCustomObject({ ...at, fieldSelector: 'metadata.name=only' }),
    ).resolves.toBeDefined();
    const other = await rejection(
      custom.listClusterCustomObject({ ...at, fieldSelector: 'metadata.name=other' }),
    );
    expect(other.status).toMatchObject({
      message:
        'nodeclaims.karpenter.sh "other" is forbidden: User "bob" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
      details: { name: 'other', group: 'karpenter.sh', kind: 'nodeclaims' },
    });
    expect((await rejection(custom.listClusterCustomObject(at))).code).toBe(403);
  });

  it('answers 401 to an unknown token and to none', async () => {
    server = await start();
    const unknown = await rejection(server.kubeConfig('stolen').makeApiClient(CoreV1Api).listNode());
    expect(unknown.code).toBe(401);
    const response = await fetch(`${server.url}/api/v1/nodes`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
