import { describe, expect, it } from 'vitest';
import type {
  PodAffinityTermManifest,
  TopologySpreadConstraintManifest,
} from '../../../shared/core/manifests/kube-objects';
import { KubeStore } from '../../../sim/fakes/kube/store';
import { VirtualTime } from '../../../sim/virtual-time';
import { nodeManifest, type PodManifestOptions, podManifest } from '../../../sim/world/builders';
import { KubeSchedulerStandIn } from '../../../sim/world/kube-scheduler';

// Cases follow kubernetes pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go and
// podtopologyspread/filtering_test.go: each places existing pods, then filters a pending one.

// biome-ignore lint/suspicious/noExplicitAny: the test reads untyped JSON
type Json = Record<string, any>;

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/** A world of nodes `name → zone` (no zone label when undefined); the first node is the roomiest. */
function world(zones: Record<string, string | undefined>, extra: Record<string, Json> = {}) {
  const store = new KubeStore();
  Object.entries(zones).forEach(([name, zone], i) => {
    const node = nodeManifest({
      name,
      ready: true,
      allocatable: { cpu: String([1000, 100, 20, 8, 4][i] ?? 2), memory: '64Gi', pods: '110' },
      labels: { [HOSTNAME]: name, ...(zone !== undefined ? { [ZONE]: zone } : {}) },
    });
    store.seed('nodes', { ...node, ...extra[name], spec: { ...node.spec, ...extra[name]?.spec } });
  });
  return { store, scheduler: new KubeSchedulerStandIn(store, new VirtualTime()) };
}

const pod = (store: KubeStore, name: string, options: PodManifestOptions = {}) =>
  store.seed('pods', podManifest({ name, requests: { cpu: '100m' }, ...options }));
const running = (store: KubeStore, name: string, nodeName: string, options: PodManifestOptions = {}) =>
  pod(store, name, { ...options, nodeName, phase: 'Running' });
/** Puts a finalizer on an object and deletes it: it stays, with a deletionTimestamp. */
function terminate(store: KubeStore, resource: 'pods' | 'nodes', name: string): void {
  const object = store.get(resource, name);
  store.update(resource, { ...object, metadata: { ...object.metadata, finalizers: ['test/hold'] } });
  store.delete(resource, name);
  expect(store.get(resource, name).metadata.deletionTimestamp).toBeDefined();
}
const nodeOf = (store: KubeStore, name: string, namespace?: string) =>
  (store.get('pods', name, namespace).spec as Json).nodeName as string | undefined;
const message = (store: KubeStore, name: string) =>
  ((store.get('pods', name).status as Json).conditions as Json[]).find((c) => c.type === 'PodScheduled')
    ?.message;

const term = (
  labels: Record<string, string>,
  topologyKey = HOSTNAME,
  more: PodAffinityTermManifest = {},
) => ({
  labelSelector: { matchLabels: labels },
  topologyKey,
  ...more,
});
const antiAffinity = (...terms: PodAffinityTermManifest[]) => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms },
});
const affinity = (...terms: PodAffinityTermManifest[]) => ({
  podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms },
});

describe('the kube-scheduler stand-in, inter-pod affinity', () => {
  it('keeps a pod off a node running a pod its anti-affinity matches (satisfyPodAntiAffinity)', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'a' });
    running(store, 'fill', 'n1', { labels: { app: 'fill' } });
    pod(store, 'wide', { labels: { app: 'wide' }, affinity: antiAffinity(term({ app: 'fill' })) });
    scheduler.schedule();
    expect(nodeOf(store, 'wide')).toBe('n2');
  });

  it('refuses every node in the topology domain, in kube-scheduler’s words', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'a', n3: undefined });
    running(store, 'fill', 'n1', { labels: { app: 'fill' } });
    pod(store, 'wide', { affinity: antiAffinity(term({ app: 'fill' }, ZONE)) });
    scheduler.schedule();
    // n3 has no zone label: a term whose topology key the node lacks does not refuse it.
    expect(nodeOf(store, 'wide')).toBe('n3');
    store.delete('nodes', 'n3');
    pod(store, 'wide2', { affinity: antiAffinity(term({ app: 'fill' }, ZONE)) });
    scheduler.schedule();
    expect(message(store, 'wide2')).toBe(
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
    );
  });

  it('keeps a pod off a node whose pods’ anti-affinity matches it (satisfyExistingPodsAntiAffinity)', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b' });
    running(store, 'fill', 'n1', { labels: { app: 'fill' }, affinity: antiAffinity(term({ app: 'wide' })) });
    pod(store, 'wide', { labels: { app: 'wide' } });
    scheduler.schedule();
    expect(nodeOf(store, 'wide')).toBe('n2');
    store.delete('nodes', 'n2');
    pod(store, 'wide2', { labels: { app: 'wide' } });
    scheduler.schedule();
    expect(message(store, 'wide2')).toBe(
      "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.",
    );
  });

  it('counts pods bound earlier in the same pass: ten fill pods and a wide one never share a node', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'a' });
    for (let i = 0; i < 10; i++)
      pod(store, `fill-${i}`, { labels: { app: 'fill' }, affinity: antiAffinity(term({ app: 'wide' })) });
    pod(store, 'wide', { labels: { app: 'wide' }, affinity: antiAffinity(term({ app: 'fill' })) });
    scheduler.schedule();
    const fillNodes = new Set(Array.from({ length: 10 }, (_, i) => nodeOf(store, `fill-${i}`)));
    expect(fillNodes).toEqual(new Set(['n1']));
    expect(nodeOf(store, 'wide')).toBe('n2');
  });

  it('counts a pod on a Node being deleted and a terminating pod', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'a', n3: 'b' });
    const n1 = store.get('nodes', 'n1');
    store.update('nodes', { ...n1, metadata: { ...n1.metadata, finalizers: ['karpenter.sh/termination'] } });
    store.delete('nodes', 'n1');
    running(store, 'draining', 'n1', { labels: { app: 'fill' } });
    running(store, 'terminating', 'n3', {
      labels: { app: 'fill' },
      deletionTimestamp: '2026-01-01T00:00:00Z',
    });
    pod(store, 'wide', { affinity: antiAffinity(term({ app: 'fill' }, ZONE)) });
    scheduler.schedule();
    expect(message(store, 'wide')).toBe(
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
    );
  });

  it('places a pod with affinity only in a domain running a matching pod (satisfyPodAffinity)', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b', n3: 'b', n4: undefined });
    running(store, 'cache', 'n3', { labels: { app: 'cache' } });
    pod(store, 'web', { affinity: affinity(term({ app: 'cache' }, ZONE)) });
    pod(store, 'lonely', { affinity: affinity(term({ app: 'queue' }, ZONE)) });
    // A pod counts only if it matches every term: the cache pod has no tier label.
    pod(store, 'both', { affinity: affinity(term({ app: 'cache' }, ZONE), term({ tier: 'db' }, ZONE)) });
    scheduler.schedule();
    expect(message(store, 'both')).toBe(
      "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
    );
    // n2 runs no cache pod but shares its zone with n3; n1 is roomier and refused.
    expect(nodeOf(store, 'web')).toBe('n2');
    expect(message(store, 'lonely')).toBe(
      "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
    );
  });

  it('lets the first pod of a self-affine group go anywhere, and the next ones follow it', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b', n3: undefined });
    const selfAffine = { labels: { app: 'db' }, affinity: affinity(term({ app: 'db' }, ZONE)) };
    pod(store, 'db-0', { ...selfAffine, nodeSelector: { [ZONE]: 'b' } });
    pod(store, 'db-1', selfAffine);
    scheduler.schedule();
    // db-0 matches nothing but itself, so it may go anywhere with a zone; db-1 must follow it to
    // zone b though n1 is roomier.
    expect(nodeOf(store, 'db-0')).toBe('n2');
    expect(nodeOf(store, 'db-1')).toBe('n2');
    // The first of a group still needs a node with every topology key.
    pod(store, 'kv-0', {
      labels: { app: 'kv' },
      affinity: affinity(term({ app: 'kv' }, ZONE)),
      nodeSelector: { [HOSTNAME]: 'n3' },
    });
    scheduler.schedule();
    expect(message(store, 'kv-0')).toBe(
      "0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 2 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it('matches selectors with In, NotIn, Exists and DoesNotExist', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b', n3: 'c', n4: 'd', n5: 'e' });
    running(store, 'p1', 'n1', { labels: { app: 'x', tier: 'front' } });
    running(store, 'p2', 'n2', { labels: { app: 'y' } });
    running(store, 'p3', 'n3', { labels: { app: 'z', tier: 'back' } });
    running(store, 'p4', 'n1', { labels: { tier: 'front' } });
    const expressions = [
      { key: 'app', operator: 'In', values: ['x', 'y', 'z'] },
      { key: 'app', operator: 'NotIn', values: ['z'] },
      { key: 'tier', operator: 'Exists' },
    ];
    pod(store, 'picky', {
      affinity: antiAffinity({ labelSelector: { matchExpressions: expressions }, topologyKey: ZONE }),
    });
    // Only p1 matches all three expressions: zone a is refused, n2 (roomiest left) is chosen.
    pod(store, 'loner', {
      affinity: affinity({
        labelSelector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] },
        topologyKey: ZONE,
      }),
    });
    // NotIn matches pods without the key: p4 (zone a), picky and loner (zone b, no labels).
    pod(store, 'not-xyz', {
      affinity: antiAffinity({
        labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['x', 'y', 'z'] }] },
        topologyKey: ZONE,
      }),
    });
    scheduler.schedule();
    expect(nodeOf(store, 'picky')).toBe('n2');
    expect(nodeOf(store, 'not-xyz')).toBe('n3');
    // p2 and picky (bound first, no tier label) are in zone b: DoesNotExist matches them.
    expect(nodeOf(store, 'loner')).toBe('n2');
  });

  it('matches the pod’s own namespace by default, then `namespaces`, then namespaceSelector', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b', n3: 'c' });
    store.seed('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', labels: { team: 'x' } },
    });
    running(store, 'other', 'n1', { namespace: 'team', labels: { app: 'fill' } });
    pod(store, 'default-ns', { affinity: antiAffinity(term({ app: 'fill' }, ZONE)) });
    pod(store, 'listed', { affinity: antiAffinity(term({ app: 'fill' }, ZONE, { namespaces: ['team'] })) });
    pod(store, 'by-label', {
      affinity: antiAffinity(
        term({ app: 'fill' }, ZONE, { namespaceSelector: { matchLabels: { team: 'x' } } }),
      ),
    });
    pod(store, 'by-name', {
      affinity: antiAffinity(
        term({ app: 'fill' }, ZONE, {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'team' } },
        }),
      ),
    });
    pod(store, 'all', { affinity: antiAffinity(term({ app: 'fill' }, ZONE, { namespaceSelector: {} })) });
    pod(store, 'unmatched', {
      affinity: antiAffinity(
        term({ app: 'fill' }, ZONE, { namespaceSelector: { matchLabels: { team: 'y' } } }),
      ),
    });
    scheduler.schedule();
    expect(nodeOf(store, 'default-ns')).toBe('n1');
    for (const name of ['listed', 'by-label', 'by-name', 'all']) expect(nodeOf(store, name)).not.toBe('n1');
    expect(nodeOf(store, 'unmatched')).toBe('n1');
  });
});

const spread = (
  topologyKey: string,
  labels: Record<string, string>,
  more: TopologySpreadConstraintManifest = {},
): TopologySpreadConstraintManifest => ({
  maxSkew: 1,
  topologyKey,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: labels },
  ...more,
});

describe('the kube-scheduler stand-in, topology spread', () => {
  /** Zones a, b, c with 2, 1 and 0 pods labelled app=web; n1 (zone a) is the roomiest. */
  function skewed(extra: Record<string, Json> = {}) {
    const w = world({ n1: 'a', n2: 'b', n3: 'c' }, extra);
    running(w.store, 'w1', 'n1', { labels: { app: 'web' } });
    running(w.store, 'w2', 'n1', { labels: { app: 'web' } });
    running(w.store, 'w3', 'n2', { labels: { app: 'web' } });
    return w;
  }

  it('refuses a node where the skew would exceed maxSkew, for DoNotSchedule constraints only', () => {
    const { store, scheduler } = skewed();
    pod(store, 'web', { labels: { app: 'web' }, topologySpreadConstraints: [spread(ZONE, { app: 'web' })] });
    pod(store, 'relaxed', {
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' }, { whenUnsatisfiable: 'ScheduleAnyway' })],
    });
    scheduler.schedule();
    expect(nodeOf(store, 'web')).toBe('n3');
    expect(nodeOf(store, 'relaxed')).toBe('n1');
  });

  it('spreads pods bound in the same pass', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b', n3: 'c' });
    for (const name of ['s1', 's2', 's3'])
      pod(store, name, { labels: { app: 'web' }, topologySpreadConstraints: [spread(ZONE, { app: 'web' })] });
    scheduler.schedule();
    expect(new Set(['s1', 's2', 's3'].map((n) => nodeOf(store, n)))).toEqual(new Set(['n1', 'n2', 'n3']));
  });

  it('refuses a node without the topology key and does not count it as a domain', () => {
    const { store, scheduler } = world({ n1: undefined, n2: 'b' });
    running(store, 'w1', 'n2', { labels: { app: 'web' } });
    pod(store, 'web', { labels: { app: 'web' }, topologySpreadConstraints: [spread(ZONE, { app: 'web' })] });
    scheduler.schedule();
    // Zone b is the only domain: 1 + 1 − 1 ≤ 1.
    expect(nodeOf(store, 'web')).toBe('n2');
    store.delete('nodes', 'n2');
    pod(store, 'web2', { labels: { app: 'web' }, topologySpreadConstraints: [spread(ZONE, { app: 'web' })] });
    scheduler.schedule();
    expect(message(store, 'web2')).toBe(
      "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label).",
    );
  });

  it('takes the minimum as 0 while fewer domains than minDomains exist', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b' });
    running(store, 'w1', 'n1', { labels: { app: 'web' } });
    running(store, 'w2', 'n2', { labels: { app: 'web' } });
    pod(store, 'plain', {
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' })],
    });
    scheduler.schedule();
    expect(nodeOf(store, 'plain')).toBe('n1');
    pod(store, 'min3', {
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' }, { minDomains: 3 })],
    });
    scheduler.schedule();
    // Zone a has 2, zone b 1, the minimum is 0: 1 + 1 − 0 > 1 everywhere.
    expect(message(store, 'min3')).toBe(
      "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.",
    );
  });

  it('counts only non-terminating pods of the pod’s namespace that match the selector and matchLabelKeys', () => {
    const { store, scheduler } = world({ n1: 'a', n2: 'b' });
    const v2 = { app: 'web', hash: 'v2' };
    running(store, 'new', 'n1', { labels: v2 });
    running(store, 'gone', 'n2', { labels: v2 });
    terminate(store, 'pods', 'gone');
    running(store, 'elsewhere', 'n2', { namespace: 'other', labels: v2 });
    running(store, 'old', 'n2', { labels: { app: 'web', hash: 'v1' } });
    pod(store, 'web', {
      labels: v2,
      topologySpreadConstraints: [spread(ZONE, { app: 'web' }, { matchLabelKeys: ['hash'] })],
    });
    scheduler.schedule();
    // Only `new` counts: zone a has 1, zone b 0, so the roomier n1 is refused (1 + 1 − 0 > 1).
    expect(nodeOf(store, 'web')).toBe('n2');
  });

  it('leaves out domains the pod’s node affinity excludes (nodeAffinityPolicy Honor by default)', () => {
    const { store, scheduler } = skewed();
    // Zones a (2) and b (1) only; zone c (0) is excluded, so the minimum is 1 and zone b fits.
    const honoured = { labels: { app: 'web' }, nodeSelector: { [ZONE]: 'b' } };
    pod(store, 'honour', { ...honoured, topologySpreadConstraints: [spread(ZONE, { app: 'web' })] });
    pod(store, 'ignore', {
      ...honoured,
      topologySpreadConstraints: [spread(ZONE, { app: 'web' }, { nodeAffinityPolicy: 'Ignore' })],
    });
    scheduler.schedule();
    expect(nodeOf(store, 'honour')).toBe('n2');
    expect(message(store, 'ignore')).toContain("didn't match pod topology spread constraints");
  });

  it('counts domains of nodes with taints the pod does not tolerate unless nodeTaintsPolicy is Honor', () => {
    const taint = { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } };
    const { store, scheduler } = skewed({ n3: taint });
    pod(store, 'ignore', {
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' })],
    });
    pod(store, 'honour', {
      labels: { app: 'web' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' }, { nodeTaintsPolicy: 'Honor' })],
    });
    scheduler.schedule();
    // Ignore: zone c (0) counts, zone b is 1 + 1 − 0 > 1 and zone c is tainted.
    expect(message(store, 'ignore')).toBe(
      "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: x}, 2 node(s) didn't match pod topology spread constraints.",
    );
    // Honor: zone c is left out, the minimum is 1, zone b fits.
    expect(nodeOf(store, 'honour')).toBe('n2');
  });
});
