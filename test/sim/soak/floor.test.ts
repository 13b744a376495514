import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../sim/fakes/kube';
import { KubeStore } from '../../../sim/fakes/kube/store';
import { floorRatio } from '../../../sim/soak/bound';
import { costReport } from '../../../sim/soak/cost-report';
import { PodEventClock, podEventNode, sunkInstanceIds } from '../../../sim/soak/floor';

/** A store whose changes feed a PodEventClock at the store's own clock, which the test moves. */
function world() {
  let now = Date.parse('2026-11-27T12:00:00Z');
  const store = new KubeStore({ clock: { now: () => now } });
  const clock = new PodEventClock();
  const seen: (string | undefined)[] = [];
  store.subscribe((event) => {
    seen.push(podEventNode(event));
    clock.observe(event, now);
  });
  return {
    store,
    clock,
    seen,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

const pod = (name: string, nodeName?: string) => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'i' }], ...(nodeName ? { nodeName } : {}) },
});

describe("the soak's pod events (Karpenter's podevents predicate)", () => {
  it('counts a pod bound to a node, going terminal or terminating there, and one created on a node', () => {
    const w = world();
    const created = w.store.create('pods', pod('a'));
    const bound = w.store.update('pods', {
      ...created,
      spec: { ...(created.spec as object), nodeName: 'n1' },
    });
    w.store.update('pods', { ...bound, metadata: { ...bound.metadata, labels: { x: 'y' } } });
    const current = w.store.get('pods', 'a', 'default');
    w.store.updateStatus('pods', { ...current, status: { phase: 'Succeeded' } });
    w.store.create('pods', pod('b', 'n2'));
    w.store.delete('pods', 'b', { namespace: 'default' });
    // created unbound: none; bound: n1; a label: none; terminal: n1; created on n2: n2; the
    // deletion marks it terminating (n2), and nothing more when it is gone.
    expect(w.seen.filter((n) => n !== undefined)).toEqual(['n1', 'n1', 'n2', 'n2']);
    expect(w.seen[0]).toBeUndefined();
    expect(w.seen[2]).toBeUndefined();
  });

  it('ignores other resources', () => {
    const w = world();
    w.store.create('configmaps', { metadata: { name: 'c', namespace: 'default' }, data: {} });
    expect(w.seen).toEqual([undefined]);
  });

  it('keeps the last event, but not one within 5 s of the one recorded (dedupeTimeout)', () => {
    const w = world();
    const start = w.now();
    w.store.create('pods', pod('a', 'n1'));
    w.advance(4_999);
    w.store.create('pods', pod('b', 'n1'));
    expect(w.clock.lastEventMs('n1')).toBe(start);
    w.advance(1);
    w.store.create('pods', pod('c', 'n1'));
    expect(w.clock.lastEventMs('n1')).toBe(start + 5_000);
    expect(w.clock.lastEventMs('n2')).toBeUndefined();
  });
});

const NOW = Date.parse('2026-11-27T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function claim(
  id: string,
  options: { initializedAt?: number; deleting?: boolean; node?: string } = {},
): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: `claim-${id}`,
      ...(options.deleting ? { deletionTimestamp: iso(NOW - 1_000) } : {}),
    },
    status: {
      providerID: `aws:///us-east-1a/${id}`,
      nodeName: options.node ?? `node-${id}`,
      conditions:
        options.initializedAt === undefined
          ? [{ type: 'Launched', status: 'True', lastTransitionTime: iso(NOW - 600_000) }]
          : [{ type: 'Initialized', status: 'True', lastTransitionTime: iso(options.initializedAt) }],
    },
  } as KubeObject;
}

describe('sunkInstanceIds', () => {
  const events = (entries: Record<string, number>) => {
    const clock = new PodEventClock();
    for (const [node, at] of Object.entries(entries)) {
      clock.observe(
        {
          resourceVersion: 1,
          type: 'ADDED',
          resource: new KubeStore().resolve('pods'),
          object: { metadata: { name: 'p' }, spec: { nodeName: node } } as KubeObject,
        },
        at,
      );
    }
    return clock;
  };
  const sunk = (
    claims: KubeObject[],
    options: { clock?: PodEventClock; ids?: string[]; pods?: KubeObject[]; budgets?: KubeObject[] } = {},
  ) => [
    ...sunkInstanceIds({
      instanceIds: options.ids ?? ['i-1'],
      nodeClaims: claims,
      pods: options.pods ?? [],
      podDisruptionBudgets: options.budgets ?? [],
      podEvents: options.clock ?? new PodEventClock(),
      nowMs: NOW,
      consolidateAfterMs: 60_000,
    }),
  ];
  const long = () => claim('i-1', { initializedAt: NOW - 600_000 });

  it('counts an instance without a NodeClaim, with one being deleted, or one not Initialized', () => {
    expect(sunk([])).toStrictEqual(['i-1']);
    expect(sunk([claim('i-1', { initializedAt: NOW - 600_000, deleting: true })])).toStrictEqual(['i-1']);
    expect(sunk([claim('i-1')])).toStrictEqual(['i-1']);
  });

  it('counts a node under consolidateAfter from its last pod event, or from Initialized without one', () => {
    expect(sunk([long()])).toStrictEqual([]);
    expect(sunk([long()], { clock: events({ 'node-i-1': NOW - 59_999 }) })).toStrictEqual(['i-1']);
    // Exactly consolidateAfter ago is no longer under it (clock.Since(t) < consolidateAfter).
    expect(sunk([long()], { clock: events({ 'node-i-1': NOW - 60_000 }) })).toStrictEqual([]);
    // An event on another node does not hold this one.
    expect(sunk([long()], { clock: events({ 'node-i-2': NOW - 1_000 }) })).toStrictEqual([]);
    expect(sunk([claim('i-1', { initializedAt: NOW - 59_999 })])).toStrictEqual(['i-1']);
    expect(sunk([claim('i-1', { initializedAt: NOW - 60_000 })])).toStrictEqual([]);
  });

  it('lists the sunk instances only', () => {
    const claims = [
      claim('i-1', { initializedAt: NOW - 600_000 }),
      claim('i-2', { initializedAt: NOW - 1_000 }),
    ];
    expect(sunk(claims, { ids: ['i-1', 'i-2', 'i-3'] })).toStrictEqual(['i-2', 'i-3']);
  });

  const onNode = (name: string, extra: Partial<KubeObject> & { phase?: string } = {}): KubeObject =>
    ({
      metadata: { name, namespace: 'default', labels: { app: 'api' }, ...extra.metadata },
      spec: { nodeName: 'node-i-1' },
      status: { phase: extra.phase ?? 'Running' },
    }) as KubeObject;
  const budget = (expectedPods: number, desiredHealthy: number, app = 'api'): KubeObject =>
    ({
      metadata: { name: 'api', namespace: 'default' },
      spec: { selector: { matchLabels: { app } }, minAvailable: '50%' },
      status: { expectedPods, desiredHealthy, currentHealthy: expectedPods, disruptionsAllowed: 0 },
    }) as KubeObject;

  it('counts a node running a pod no eviction may take: a PDB that allows none even at full health, or do-not-disrupt', () => {
    // minAvailable 50 % of one pod: desiredHealthy 1 of 1 expected.
    expect(sunk([long()], { pods: [onNode('a')], budgets: [budget(1, 1)] })).toStrictEqual(['i-1']);
    // Three pods, two desired: one may go once all are healthy, so the node is not held.
    expect(sunk([long()], { pods: [onNode('a')], budgets: [budget(3, 2)] })).toStrictEqual([]);
    // No pod expected: nothing is held.
    expect(sunk([long()], { pods: [onNode('a')], budgets: [budget(0, 0)] })).toStrictEqual([]);
    // The budget selects other pods.
    expect(sunk([long()], { pods: [onNode('a')], budgets: [budget(1, 1, 'web')] })).toStrictEqual([]);
    // A terminating or terminal pod holds nothing.
    const terminating = onNode('a', { metadata: { name: 'a', deletionTimestamp: iso(NOW) } });
    expect(sunk([long()], { pods: [terminating], budgets: [budget(1, 1)] })).toStrictEqual([]);
    expect(
      sunk([long()], { pods: [onNode('a', { phase: 'Succeeded' })], budgets: [budget(1, 1)] }),
    ).toStrictEqual([]);
    const pinned = onNode('a', {
      metadata: { name: 'a', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
    });
    expect(sunk([long()], { pods: [pinned] })).toStrictEqual(['i-1']);
  });
});

describe('the floor under cost ÷ bound', () => {
  it('is the larger of the sunk cost and the bound, over the bound', () => {
    expect(floorRatio({ atMs: 0, pods: 2, dollarsPerHour: 1, bound: 0.2, sunk: 0.5 })).toBeCloseTo(2.5);
    expect(floorRatio({ atMs: 0, pods: 2, dollarsPerHour: 1, bound: 0.2, sunk: 0.1 })).toBe(1);
    expect(floorRatio({ atMs: 0, pods: 2, dollarsPerHour: 1, bound: 0.2 })).toBeUndefined();
    expect(floorRatio({ atMs: 0, pods: 0, dollarsPerHour: 1, bound: 0, sunk: 1 })).toBeUndefined();
  });

  it('is averaged per phase in the cost report, over the points that have one', () => {
    const report = costReport({
      points: [
        { atMs: 60_000, pods: 4, dollarsPerHour: 3, bound: 1, sunk: 2.5 },
        { atMs: 120_000, pods: 4, dollarsPerHour: 2, bound: 1 },
        { atMs: 700_000, pods: 4, dollarsPerHour: 1.2, bound: 1, sunk: 0.5 },
      ],
      changesMs: [0, 100_000],
      windowMs: 135_000,
      simulatedMs: 3_600_000,
      evictions: 0,
      disruptedNodes: 0,
      savedDollarsPerHour: 0,
    });
    expect(report.settling.floor).toBeCloseTo(2.5);
    expect(report.settled.floor).toBe(1);
    expect(report.whole.floor).toBeCloseTo(1.75);
  });
});
