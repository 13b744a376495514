import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudError } from '../../shared/core/model/errors';
import { listAllPages } from '../../shared/kube/list-pages';
import { readPendingPods } from '../../shared/kube/pod-reads';
import { ec2NodeClassManifest, nodeManifest, nodePoolManifest, podManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

const names = (pods: readonly { namespace: string; name: string }[]) =>
  pods.map((p) => `${p.namespace}/${p.name}`).sort();

describe('KubeCluster.pendingPods', () => {
  it('returns only unbound pods a scheduler marked Unschedulable', async () => {
    const { store } = h.server;
    store.seed(
      'pods',
      podManifest({ name: 'wanted', namespace: 'team-a', cpu: '1500m', unschedulable: true }),
    );
    store.seed('pods', podManifest({ name: 'not-yet-tried', unschedulable: false }));
    store.seed('pods', podManifest({ name: 'bound', nodeName: 'n1', phase: 'Running' }));
    store.seed('pods', podManifest({ name: 'preempting', nominatedNodeName: 'n1', unschedulable: true }));
    store.seed('pods', podManifest({ name: 'daemon', ownerKind: 'DaemonSet', unschedulable: true }));
    store.seed('pods', podManifest({ name: 'mirror', ownerKind: 'Node', unschedulable: true }));
    store.seed('pods', {
      ...podManifest({ name: 'deleting', unschedulable: true }),
      metadata: { name: 'deleting', finalizers: ['x/y'] },
    });
    store.delete('pods', 'deleting');
    store.seed('pods', podManifest({ name: 'failed', phase: 'Failed' }));
    store.seed(
      'pods',
      podManifest({ name: 'other-scheduler', schedulerName: 'volcano', unschedulable: true }),
    );

    const pending = await h.cluster.pendingPods();

    expect(names(pending.items)).toEqual(['default/other-scheduler', 'team-a/wanted']);
    expect(pending.items.find((p) => p.name === 'wanted')?.requests).toMatchObject({ cpu: 1500, pods: 1 });
    expect(pending.invalid).toEqual([]);
    const list = h.server.requests.find((r) => r.path === '/api/v1/pods');
    expect(list?.query).toMatchObject({ fieldSelector: 'status.phase=Pending,spec.nodeName=', limit: '500' });
  });

  it('keeps only the configured schedulers when told to', async () => {
    h.server.store.seed('pods', podManifest({ name: 'default-one', unschedulable: true }));
    h.server.store.seed(
      'pods',
      podManifest({ name: 'volcano-one', schedulerName: 'volcano', unschedulable: true }),
    );
    const pending = await readPendingPods(h.api, { schedulerNames: ['default-scheduler'] });
    expect(names(pending.items)).toEqual(['default/default-one']);
  });

  const seedPending = (server: Harness['server'], count: number) => {
    for (let i = 0; i < count; i++)
      server.store.seed(
        'pods',
        podManifest({ name: `p-${String(i).padStart(4, '0')}`, unschedulable: true }),
      );
  };

  it('reads from the watch cache: a pre-1.34 server answers resourceVersion=0 with the whole list', async () => {
    seedPending(h.server, 1001);
    const pending = await h.cluster.pendingPods();
    expect(pending.items).toHaveLength(1001);
    const pages = h.server.requests.filter((r) => r.path === '/api/v1/pods');
    expect(pages).toHaveLength(1);
    expect(pages[0].query).toMatchObject({ resourceVersion: '0', limit: '500' });
  });

  it('reads every page when the server pages its watch cache (1.34+), continuing without a resourceVersion', async () => {
    const paged = await startHarness({ kubernetesVersion: 'v1.34.1' });
    try {
      seedPending(paged.server, 1001);
      const pending = await paged.cluster.pendingPods();
      expect(pending.items).toHaveLength(1001);
      const pages = paged.server.requests.filter((r) => r.path === '/api/v1/pods');
      expect(pages).toHaveLength(3);
      expect(pages[0].query.resourceVersion).toBe('0');
      for (const page of pages.slice(1)) {
        expect(page.query.continue).toBeTruthy();
        expect(page.query.resourceVersion).toBeUndefined();
      }
    } finally {
      await paged.server.close();
    }
  });

  it('turns a failed list into the typed error the loops retry on, with the Status the server sent', async () => {
    h.server.failNext('list', '/api/v1/pods', 503, { message: 'etcd leader changed' });
    const unavailable = await rejectionOf(h.cluster.pendingPods());
    expect(unavailable).toBeInstanceOf(CloudError);
    expect(unavailable).toMatchObject({ code: 'ServiceUnavailable', retryable: true });
    expect(unavailable.message).toContain('etcd leader changed');
    h.server.failNext('list', '/api/v1/nodes', 403, { message: 'nodes is forbidden' });
    const forbidden = await rejectionOf(h.cluster.nodes());
    expect(forbidden).toMatchObject({ code: 'Forbidden', retryable: false });
  });

  it('reports a pod the core parser rejects without dropping the others', async () => {
    h.server.store.seed('pods', podManifest({ name: 'good', unschedulable: true }));
    h.server.store.seed('pods', {
      ...podManifest({ name: 'bad', unschedulable: true }),
      spec: { containers: [] },
    });
    const pending = await h.cluster.pendingPods();
    expect(names(pending.items)).toEqual(['default/good']);
    expect(pending.invalid).toHaveLength(1);
    expect(pending.invalid[0].message).toContain('Pod/default/bad');
    expect(pending.invalid[0].message).toContain('spec.containers');
  });
});

describe('listAllPages', () => {
  it("falls back to one full list when a continue token expires, as client-go's pager does", async () => {
    for (let i = 1; i <= 5; i++) h.server.store.seed('pods', podManifest({ name: `p-${i}` }));
    const core = await h.api.core();
    let pages = 0;
    const pods = await listAllPages((cont, limit) => {
      // etcd compacts the revision the first page was read at.
      if (pages++ === 1) h.server.compactHistory();
      return core.listPodForAllNamespaces({ limit, ...(cont ? { _continue: cont } : {}) });
    }, 2);
    expect(pods.map((p) => p.metadata?.name)).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
    const lists = h.server.requests.filter((r) => r.path === '/api/v1/pods');
    expect(lists.map((r) => r.status)).toEqual([200, 410, 200]);
    expect(lists[2].query).not.toHaveProperty('continue');
    expect(lists[2].query.limit ?? '0').toBe('0');
  });
});

describe('KubeCluster node and pod reads', () => {
  it('reads the pods on one node, without finished ones', async () => {
    const { store } = h.server;
    store.seed('pods', podManifest({ name: 'a', nodeName: 'n1', phase: 'Running' }));
    store.seed('pods', podManifest({ name: 'done', nodeName: 'n1', phase: 'Succeeded' }));
    store.seed('pods', podManifest({ name: 'elsewhere', nodeName: 'n2', phase: 'Running' }));
    const pods = await h.cluster.podsOnNode('n1');
    expect(names(pods.items)).toEqual(['default/a']);
    expect(pods.items[0].nodeName).toBe('n1');
  });

  it('maps nodes to StateNodes carrying their bound pods', async () => {
    const { store } = h.server;
    store.seed('nodes', nodeManifest({ name: 'n1', labels: { 'karpenter.sh/nodepool': 'default' } }));
    store.seed('nodes', {
      ...nodeManifest({ name: 'n2', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
      spec: { unschedulable: true, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
    });
    store.seed('pods', podManifest({ name: 'a', nodeName: 'n1', phase: 'Running', cpu: '1' }));
    store.seed('pods', podManifest({ name: 'b', nodeName: 'n1', phase: 'Running', cpu: '2' }));
    store.seed('pods', podManifest({ name: 'c', nodeName: 'n2', phase: 'Running' }));
    store.seed('pods', podManifest({ name: 'old', nodeName: 'n2', phase: 'Failed' }));

    const nodes = await h.cluster.nodes();

    const n1 = nodes.items.find((n) => n.name === 'n1');
    const n2 = nodes.items.find((n) => n.name === 'n2');
    expect(n1).toMatchObject({ kind: 'node', nodePool: 'default', allocatable: { cpu: 4000, pods: 110 } });
    expect(n1?.pods.map((p) => p.name).sort()).toEqual(['a', 'b']);
    expect(n2).toMatchObject({
      unschedulable: true,
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    expect(n2?.pods.map((p) => p.name)).toEqual(['c']);
  });

  it('turns DaemonSets into the pod their template runs', async () => {
    h.server.store.seed('daemonsets.apps', {
      metadata: { name: 'aws-node', namespace: 'kube-system' },
      spec: {
        template: {
          metadata: { labels: { app: 'aws-node' } },
          spec: { containers: [{ name: 'cni', resources: { requests: { cpu: '25m', memory: '64Mi' } } }] },
        },
      },
    });
    h.server.store.seed('daemonsets.apps', {
      metadata: { name: 'broken', namespace: 'kube-system' },
      spec: {},
    });
    const daemonSets = await h.cluster.daemonSets();
    expect(daemonSets.items).toHaveLength(1);
    expect(daemonSets.items[0]).toMatchObject({
      namespace: 'kube-system',
      name: 'aws-node',
      pod: {
        ownerKind: 'DaemonSet',
        requests: { cpu: 25, memory: 64 * 1024 ** 2 },
        labels: { app: 'aws-node' },
      },
    });
    expect(daemonSets.invalid[0].message).toContain('DaemonSet/kube-system/broken');
  });

  it('reads PodDisruptionBudgets with the disruptions their status allows', async () => {
    const { store } = h.server;
    for (const name of ['web-1', 'web-2', 'web-3'])
      store.seed('pods', podManifest({ name, nodeName: 'n1', ready: true, labels: { app: 'web' } }));
    store.create('poddisruptionbudgets.policy', {
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
    });
    const budgets = await h.cluster.podDisruptionBudgets();
    expect(budgets).toEqual([
      {
        namespace: 'default',
        name: 'web',
        selector: { matchLabels: { app: 'web' } },
        maxUnavailable: 1,
        disruptionsAllowed: 1,
        currentHealthy: 3,
        desiredHealthy: 2,
        expectedPods: 3,
      },
    ]);
  });
});

describe('KubeCluster custom resource reads', () => {
  it('parses NodePools and reports an invalid one by name instead of failing the list', async () => {
    const { store } = h.server;
    store.create('nodepools.karpenter.sh', nodePoolManifest({ name: 'default' }));
    store.create('nodepools.karpenter.sh', nodePoolManifest({ name: 'broken', weight: 1000 }));
    const pools = await h.cluster.nodePools();
    expect(pools.items.map((p) => p.name)).toEqual(['default']);
    expect(pools.items[0]).toMatchObject({ limits: { cpu: 100_000 }, weight: 0 });
    expect(pools.invalid).toHaveLength(1);
    expect(pools.invalid[0].message).toContain('NodePool/broken');
    expect(pools.invalid[0].message).toContain('weight');
  });

  it('parses EC2NodeClasses, keeps their stored conditions, and reports invalid ones', async () => {
    const { store } = h.server;
    const condition = {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: '',
      lastTransitionTime: '2026-11-21T09:00:00Z',
    };
    store.seed('ec2nodeclasses.karpenter.k8s.aws', {
      ...ec2NodeClassManifest({ name: 'default' }),
      status: { conditions: [condition] },
    });
    store.create(
      'ec2nodeclasses.karpenter.k8s.aws',
      ec2NodeClassManifest({ name: 'broken', amiSelectorTerms: [] }),
    );
    const classes = await h.cluster.nodeClasses();
    expect(classes.items.map((c) => [c.name, c.amiFamily])).toEqual([['default', 'AL2023']]);
    expect(classes.invalid.map((e) => e.message)).toEqual([expect.stringContaining('EC2NodeClass/broken')]);
    expect(classes.conditions.get('default')).toEqual([condition]);
  });

  it('pages through custom resources too', async () => {
    for (let i = 0; i < 502; i++)
      h.server.store.create('nodepools.karpenter.sh', nodePoolManifest({ name: `pool-${i}` }));
    const pools = await h.cluster.nodePools();
    expect(pools.items).toHaveLength(502);
    expect(h.server.requests.filter((r) => r.path === '/apis/karpenter.sh/v1/nodepools')).toHaveLength(2);
  });
});
