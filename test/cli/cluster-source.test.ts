import { afterEach, describe, expect, it } from 'vitest';
import { loadCluster } from '../../cli/cluster-source';
import { clusterIO } from '../../cli/command-support';
import { run } from '../../cli/run';
import type { FakeKubeApiServer, FakeKubeApiServerOptions } from '../../sim/fakes/kube';
import { defaultResources, RbacPolicy, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { nodeClaimManifest } from '../../sim/world/builders/karpenter-manifests';
import { podDisruptionBudgetManifest } from '../../sim/world/builders/pdb-manifests';
import { FakeIO, list, node, nodeClass, nodePool, pod, workload, yamlStream } from './fixtures';

let server: FakeKubeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake API server holding a small Karpenter cluster: one node with a pod, one pending pod. */
async function cluster(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
  server = await startFakeKubeApiServer(options);
  const { store } = server;
  if (!options.resources || options.resources.some((r) => r.custom)) {
    store.seed('nodepools.karpenter.sh', nodePool());
    store.seed('ec2nodeclasses.karpenter.k8s.aws', nodeClass());
    store.seed('nodeclaims.karpenter.sh', nodeClaimManifest({ name: 'default-abcde' }));
  }
  store.seed('nodes', node('ip-10-0-0-1'));
  store.seed('pods', pod('web-1', { namespace: 'default', nodeName: 'ip-10-0-0-1', phase: 'Running' }));
  store.seed('pods', pod('web-2', { namespace: 'default', phase: 'Pending' }));
  store.seed('pods', pod('done', { namespace: 'default', nodeName: 'ip-10-0-0-1', phase: 'Succeeded' }));
  store.seed(
    'daemonsets.apps',
    workload('DaemonSet', 'agent', {}, { namespace: 'kube-system', cpu: '100m' }),
  );
  if (!options.kubernetesVersion) {
    store.seed(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', minAvailable: 1 }),
    );
  }
  return server;
}

/** A kubeconfig file's text for `server` under context `name`, authenticating with `token`. */
function kubeconfigText(s: FakeKubeApiServer, name: string, token?: string): string {
  const config = JSON.parse(s.kubeConfig(token).exportConfig()) as Record<string, unknown[]>;
  const rename = (items: unknown[]) => items.map((i) => ({ ...(i as object), name }));
  const contexts = (config.contexts as { context: object }[]).map((c) => ({
    name,
    context: { ...c.context, cluster: name, user: name },
  }));
  return JSON.stringify({
    ...config,
    clusters: rename(config.clusters),
    users: rename(config.users),
    contexts,
    'current-context': name,
  });
}

function io(files: Record<string, string>, env: { kubeconfigEnv?: string; homeDir?: string } = {}) {
  return Object.assign(new FakeIO(files), env);
}

describe('loadCluster from a live cluster', () => {
  it('reads the current context of ~/.kube/config into one typed snapshot, read-only', async () => {
    const s = await cluster();
    const fake = io({ '/home/me/.kube/config': kubeconfigText(s, 'prod') }, { homeDir: '/home/me' });
    const loaded = await loadCluster({}, clusterIO(fake));
    const { snapshot } = loaded;
    expect(loaded.live).toBe(true);
    expect(snapshot.source).toBe(`context "prod" (${s.url})`);
    expect(snapshot.nodePools.map((p) => p.name)).toEqual(['default']);
    expect(snapshot.nodeClasses.map((c) => c.name)).toEqual(['default']);
    expect(snapshot.nodeClaims.map((c) => c.name)).toEqual(['default-abcde']);
    expect(snapshot.manifests.nodeClaims).toHaveLength(1);
    expect(snapshot.nodes.map((n) => [n.name, n.pods.map((p) => p.name)])).toEqual([
      ['ip-10-0-0-1', ['web-1']],
    ]);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['web-2']);
    expect(snapshot.daemonSets.map((d) => `${d.namespace}/${d.name}`)).toEqual(['kube-system/agent']);
    expect(snapshot.podDisruptionBudgets.map((b) => [b.name, b.minAvailable])).toEqual([['web', 1]]);
    // Read-only: nothing but GETs, and finished pods filtered by the server.
    expect(s.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(s.requests.find((r) => r.path === '/api/v1/pods')?.query.fieldSelector).toBe(
      'status.phase!=Succeeded,status.phase!=Failed',
    );
  });

  it('merges KUBECONFIG files as kubectl does: the first current-context wins, --context overrides', async () => {
    const s = await cluster();
    const files = {
      '/a': kubeconfigText(s, 'staging'),
      '/b': kubeconfigText(s, 'prod'),
    };
    const env = { kubeconfigEnv: '/missing:/a:/b' };
    expect((await loadCluster({}, clusterIO(io(files, env)))).snapshot.source).toMatch(/^context "staging"/);
    expect((await loadCluster({ context: 'prod' }, clusterIO(io(files, env)))).snapshot.source).toMatch(
      /^context "prod"/,
    );
    await expect(loadCluster({ context: 'dev' }, clusterIO(io(files, env)))).rejects.toThrow(
      '/a, /b: no context "dev" (contexts: staging, prod)',
    );
    await expect(loadCluster({ kubeconfig: '/nope' }, clusterIO(io(files, env)))).rejects.toThrow(
      '--kubeconfig /nope: no such file',
    );
  });

  it('names the verb and resource a read-only identity is refused', async () => {
    const s = await cluster({
      authorization: {
        users: new Map([['viewer', { name: 'viewer', groups: ['viewers', 'system:authenticated'] }]]),
        policy: RbacPolicy.fromYaml([
          `
kind: ClusterRole
metadata: { name: viewer }
rules:
  - { apiGroups: [""], resources: [pods, nodes], verbs: [get, list] }
  - { apiGroups: [karpenter.sh, karpenter.k8s.aws], resources: ["*"], verbs: [list] }
---
kind: ClusterRoleBinding
metadata: { name: viewers }
roleRef: { kind: ClusterRole, name: viewer }
subjects: [{ kind: Group, name: viewers }]
`,
        ]),
      },
    });
    const fake = io({ '/k': kubeconfigText(s, 'prod', 'viewer') });
    const error = await loadCluster({ kubeconfig: '/k' }, clusterIO(fake)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^listing DaemonSets on context "prod" \(http:\/\/127\.0\.0\.1:\d+\): Forbidden: this identity may not list daemonsets\.apps\/v1; podlift reads only/,
    );
    expect((error as Error).message).toContain('User "viewer" cannot list resource "daemonsets"');
  });

  it('says when the API server does not accept the credentials', async () => {
    const s = await cluster({ requireToken: 'the-real-token' });
    const fake = io({ '/k': kubeconfigText(s, 'prod', 'an-expired-token') });
    await expect(loadCluster({ kubeconfig: '/k' }, clusterIO(fake))).rejects.toThrow(
      /^reading the Kubernetes version on context "prod" \(http:\/\/127\.0\.0\.1:\d+\): Unauthorized: the API server did not accept the kubeconfig's credentials/,
    );
  });

  it('says when the API server cannot be reached', async () => {
    const s = await cluster();
    const text = kubeconfigText(s, 'prod');
    await s.close();
    server = undefined;
    await expect(loadCluster({ kubeconfig: '/k' }, clusterIO(io({ '/k': text })))).rejects.toThrow(
      /^cannot reach the API server of context "prod" \(http:\/\/127\.0\.0\.1:\d+\): .*ECONNREFUSED/,
    );
  });

  it('refuses a Kubernetes older than podlift supports', async () => {
    const s = await cluster({ kubernetesVersion: 'v1.20.15-eks-1bc4a5c' });
    await expect(
      loadCluster({ kubeconfig: '/k' }, clusterIO(io({ '/k': kubeconfigText(s, 'old') }))),
    ).rejects.toThrow('the API server runs v1.20.15-eks-1bc4a5c; podlift needs Kubernetes 1.25 or newer');
  });

  it('reads a cluster without Karpenter as having no NodePools, and says so', async () => {
    const s = await cluster({ resources: defaultResources.filter((r) => !r.custom) });
    const loaded = await loadCluster({ kubeconfig: '/k' }, clusterIO(io({ '/k': kubeconfigText(s, 'ca') })));
    expect(loaded.missingCrds).toEqual([
      'nodepools.karpenter.sh',
      'ec2nodeclasses.karpenter.k8s.aws',
      'nodeclaims.karpenter.sh',
    ]);
    expect(loaded.snapshot.nodePools).toEqual([]);
    expect(loaded.snapshot.nodes).toHaveLength(1);
    expect(loaded.snapshot.warnings.at(-1)).toMatch(/Karpenter's CRDs are not installed/);
  });
});

describe('loadCluster from a dump', () => {
  const objects = [
    nodePool(),
    nodeClass(),
    node('ip-10-0-0-1'),
    workload('Deployment', 'web', { replicas: 2 }),
    pod('web-1', { nodeName: 'ip-10-0-0-1', phase: 'Running' }),
    pod('web-2', { phase: 'Pending' }),
    pod('gone-1', { nodeName: 'ip-10-0-0-9', phase: 'Running' }),
    podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: '25%' }),
    nodeClaimManifest({ name: 'default-abcde' }),
  ];

  it('reads a v1 List, multi-document YAML or stdin alike, without expanding workloads whose pods exist', async () => {
    for (const [file, text] of [
      ['list.yaml', yamlStream(list(...objects))],
      ['-', yamlStream(...objects)],
    ]) {
      const fake = new FakeIO({ 'list.yaml': text }, text);
      const { snapshot, live } = await loadCluster({ file }, clusterIO(fake));
      expect(live).toBe(false);
      expect(snapshot.source).toBe(file === '-' ? '<stdin>' : file);
      expect(snapshot.pods.map((p) => p.name)).toEqual(['web-2']);
      expect(snapshot.nodes[0].pods.map((p) => p.name)).toEqual(['web-1']);
      expect(snapshot.podDisruptionBudgets[0].maxUnavailable).toBe('25%');
      expect(snapshot.nodeClaims.map((c) => c.name)).toEqual(['default-abcde']);
      const at = file === '-' ? ['<stdin> document 6', ''] : ['list.yaml document 0', ' (List item 6)'];
      expect(snapshot.warnings).toEqual([
        `${at[0]}: ignoring 1 pod(s) bound to Node ip-10-0-0-9, which is not in the input (deleted while it was read?), e.g. Pod/gone-1${at[1]}`,
        `${snapshot.source}: not expanding workloads of a cluster's state (Deployment: 1): their pods are read as Pods`,
      ]);
    }
  });

  it('skips a PodDisruptionBudget that does not parse, naming it, and reads the rest', async () => {
    const bad = { ...podDisruptionBudgetManifest({ name: 'odd', app: 'x' }), spec: { minAvailable: 'lots' } };
    const text = yamlStream(bad, node('n1'));
    const { snapshot } = await loadCluster({ file: 'd.yaml' }, clusterIO(new FakeIO({ 'd.yaml': text })));
    expect(snapshot.podDisruptionBudgets).toEqual([]);
    expect(snapshot.nodes).toHaveLength(1);
    expect(snapshot.warnings.join('\n')).toMatch(
      /skipping an object that does not parse: d\.yaml, document 0, PodDisruptionBudget\/default\/odd: spec\.minAvailable/,
    );
  });
});

describe('podlift plan on a live cluster', () => {
  it('plans the pending pods of the current context, and refuses a dump together with --context', async () => {
    const s = await cluster();
    const fake = io({ '/k': kubeconfigText(s, 'prod') }, { kubeconfigEnv: '/k' });
    expect(await run(['plan', '-o', 'json'], fake)).toBe(0);
    const plan = JSON.parse(fake.out) as { existingNodes: unknown };
    expect(plan.existingNodes).toEqual([{ node: 'ip-10-0-0-1', pods: ['default/web-2'] }]);

    const both = io({});
    expect(await run(['plan', 'x.yaml', '--context', 'prod'], both)).toBe(2);
    expect(both.err).toContain(
      'x.yaml is a dump file; --kubeconfig and --context choose a live cluster instead',
    );
  });

  it('counts NodeClaims launched but not registered as capacity, as the provisioner does', async () => {
    server = await startFakeKubeApiServer();
    const { store } = server;
    store.seed('nodepools.karpenter.sh', nodePool());
    store.seed('ec2nodeclasses.karpenter.k8s.aws', nodeClass());
    store.seed('nodeclaims.karpenter.sh', {
      ...nodeClaimManifest({ name: 'default-inflt' }),
      status: {
        providerID: 'aws:///us-east-1a/i-0inflight',
        allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
        capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      },
    });
    store.seed('pods', pod('web-2', { namespace: 'default', phase: 'Pending' }));
    const fake = io({ '/k': kubeconfigText(server, 'prod') }, { kubeconfigEnv: '/k' });
    expect(await run(['plan', '-o', 'json'], fake)).toBe(0);
    const plan = JSON.parse(fake.out) as { existingNodes: unknown; nodeClaims: unknown[] };
    expect(plan.existingNodes).toEqual([{ node: 'default-inflt', pods: ['default/web-2'] }]);
    expect(plan.nodeClaims).toEqual([]);
  });
});
