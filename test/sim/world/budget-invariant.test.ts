import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../sim/fakes/kube';
import {
  type BudgetCheckInput,
  BudgetInvariant,
  budgetNeed,
  podsRemovedBy,
  scaledUp,
} from '../../../sim/world/budget-invariant';

/** A pod of ReplicaSet `web-rs` on `node`, Ready unless said otherwise. */
function pod(name: string, options: { node?: string; ready?: boolean; owner?: string } = {}): KubeObject {
  const { node = 'node-a', ready = true, owner = 'web-rs' } = options;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: owner === 'job' ? 'Job' : 'ReplicaSet',
          name: owner,
          controller: true,
        },
      ],
    },
    spec: { nodeName: node },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function budget(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
  };
}

const node = (name: string, instanceId: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  spec: { providerID: `aws:///us-east-1a/${instanceId}` },
});

/** The Deployment behind `web-rs` has `replicas`; nothing else is known. */
const scaleOf = (replicas: number) => (_ns: string, c: { kind: string; name: string }) =>
  c.kind === 'ReplicaSet' && c.name === 'web-rs' ? replicas : undefined;

/**
 * Runs the checker over a first state (all healthy) and then the pods left after a step, with
 * what podlift did in it. Returns the violations of the second check.
 */
function afterStep(
  spec: Record<string, unknown>,
  replicas: number,
  first: readonly KubeObject[],
  second: readonly KubeObject[],
  step: Partial<BudgetCheckInput> = {},
): string[] {
  const checker = new BudgetInvariant();
  const base: BudgetCheckInput = {
    pods: first,
    budgets: [budget(spec)],
    nodes: [node('node-a', 'i-0a'), node('node-b', 'i-0b')],
    removedByPodlift: new Set(),
    terminatedByPodlift: () => false,
    forcedNodes: new Set(),
    scaleOf: scaleOf(replicas),
  };
  expect(checker.check(base)).toStrictEqual([]);
  return checker.check({ ...base, pods: second, ...step });
}

const four = ['a', 'b', 'c', 'd'].map((n) => pod(`web-${n}`));
const evicted = (...names: string[]) => ({ removedByPodlift: new Set(names.map((n) => `default/${n}`)) });

describe('budgetNeed: desiredHealthy as the disruption controller computes it', () => {
  it('rounds percentages up, of the controllers’ scale, for minAvailable and maxUnavailable', () => {
    const three = four.slice(0, 3);
    expect(budgetNeed(budget({ minAvailable: '50%' }), three, scaleOf(3)).desired).toBe(2);
    expect(budgetNeed(budget({ maxUnavailable: '50%' }), three, scaleOf(3)).desired).toBe(1);
    expect(budgetNeed(budget({ maxUnavailable: '33%' }), three, scaleOf(3)).desired).toBe(2);
    expect(budgetNeed(budget({ maxUnavailable: 1 }), three, scaleOf(4))).toMatchObject({
      expected: 4,
      desired: 3,
    });
    expect(budgetNeed(budget({ maxUnavailable: 5 }), three, scaleOf(4)).desired).toBe(0);
    expect(budgetNeed(budget({ minAvailable: 2 }), three, scaleOf(9))).toMatchObject({
      expected: 3,
      desired: 2,
    });
    expect([scaledUp('10%', 11), scaledUp(3, 100), scaledUp('3', 10)]).toStrictEqual([2, 3, undefined]);
  });

  it('allows nothing when a controller’s scale is unknown or the value is not a percentage', () => {
    const jobPods = [pod('job-a', { owner: 'job' })];
    expect(budgetNeed(budget({ minAvailable: '50%' }), jobPods, scaleOf(1)).desired).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(budgetNeed(budget({ maxUnavailable: 'one' }), four, scaleOf(4)).desired).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it('takes the simulator’s expected-pods annotation in place of the scale', () => {
    const annotated = budget({ maxUnavailable: 1 });
    annotated.metadata.annotations = { 'sim.podlift.dev/expected-pods': '6' };
    expect(budgetNeed(annotated, four, scaleOf(4)).desired).toBe(5);
  });
});

describe('BudgetInvariant', () => {
  it('holds an integer minAvailable: one eviction of three is fine, two are not', () => {
    const spec = { minAvailable: 2 };
    const three = four.slice(0, 3);
    expect(afterStep(spec, 3, three, three.slice(1), evicted('web-a'))).toStrictEqual([]);
    const [v] = afterStep(spec, 3, three, three.slice(2), evicted('web-a', 'web-b'));
    expect(v).toBe(
      'PodDisruptionBudget default/web: podlift disrupted default/web-a, default/web-b, leaving 1 healthy pod(s) where minAvailable 2 needs 2',
    );
  });

  it('holds an integer maxUnavailable against the Deployment’s replicas, not the pods left', () => {
    const spec = { maxUnavailable: 1 };
    expect(afterStep(spec, 4, four, four.slice(1), evicted('web-a'))).toStrictEqual([]);
    expect(afterStep(spec, 4, four, four.slice(2), evicted('web-a', 'web-b'))).toHaveLength(1);
    // web-d is already gone; the scale is still 4, so 3 must stay healthy.
    const three = four.slice(0, 3);
    expect(afterStep(spec, 4, three, three.slice(1), evicted('web-a'))[0]).toMatch(
      /leaving 2 healthy pod\(s\) where maxUnavailable 1 of 4 needs 3$/,
    );
  });

  it('rounds a percentage minAvailable up: 50% of 3 needs 2', () => {
    const three = four.slice(0, 3);
    expect(afterStep({ minAvailable: '50%' }, 3, three, three.slice(1), evicted('web-a'))).toStrictEqual([]);
    expect(
      afterStep({ minAvailable: '50%' }, 3, three, three.slice(2), evicted('web-a', 'web-b')),
    ).toHaveLength(1);
  });

  it('rounds a percentage maxUnavailable up: 50% of 3 lets 2 go, 33% only 1', () => {
    const three = four.slice(0, 3);
    const twoGone = [three.slice(2), evicted('web-a', 'web-b')] as const;
    expect(afterStep({ maxUnavailable: '50%' }, 3, three, ...twoGone)).toStrictEqual([]);
    expect(afterStep({ maxUnavailable: '33%' }, 3, three, ...twoGone)).toHaveLength(1);
    expect(afterStep({ maxUnavailable: '33%' }, 3, three, three.slice(1), evicted('web-a'))).toStrictEqual(
      [],
    );
  });

  it('counts pods on an instance podlift terminated as disrupted by podlift', () => {
    const spread = [pod('web-a', { node: 'node-b' }), pod('web-b', { node: 'node-b' }), pod('web-c')];
    const found = afterStep({ minAvailable: 2 }, 3, spread, spread.slice(2), {
      terminatedByPodlift: (id) => id === 'i-0b',
    });
    expect(found[0]).toMatch(/podlift disrupted default\/web-a, default\/web-b, leaving 1/);
  });

  it('does not count involuntary losses: a reclaim alone, or alongside one allowed eviction', () => {
    const spec = { maxUnavailable: 1 };
    expect(afterStep(spec, 4, four, four.slice(2))).toStrictEqual([]);
    // web-a reclaimed with its instance, web-b evicted in the same step: 2 + 1 lost involuntarily ≥ 3.
    const spread = [pod('web-a', { node: 'node-b' }), ...four.slice(1)];
    expect(afterStep(spec, 4, spread, four.slice(2), evicted('web-b'))).toStrictEqual([]);
  });

  it('still catches an eviction while a budget is short after an involuntary loss', () => {
    const checker = new BudgetInvariant();
    const input: BudgetCheckInput = {
      pods: four,
      budgets: [budget({ maxUnavailable: 1 })],
      nodes: [],
      removedByPodlift: new Set(),
      terminatedByPodlift: () => false,
      forcedNodes: new Set(),
      scaleOf: scaleOf(4),
    };
    checker.check(input);
    expect(checker.check({ ...input, pods: four.slice(1) })).toStrictEqual([]);
    expect(checker.check({ ...input, pods: four.slice(2), ...evicted('web-b') })).toHaveLength(1);
  });

  it('lets pods go from a node whose terminationGracePeriod ran out, and ignores unready pods', () => {
    expect(
      afterStep({ minAvailable: 3 }, 3, four.slice(0, 3), [], {
        ...evicted('web-a', 'web-b', 'web-c'),
        forcedNodes: new Set(['node-a']),
      }),
    ).toStrictEqual([]);
    const withUnready = [pod('web-x', { ready: false }), ...four.slice(0, 2)];
    expect(afterStep({ minAvailable: 2 }, 3, withUnready, four.slice(0, 2), evicted('web-x'))).toStrictEqual(
      [],
    );
  });

  it('takes a pod being deleted as no longer healthy', () => {
    const deleting = {
      ...four[0],
      metadata: { ...four[0].metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    expect(
      afterStep({ minAvailable: 4 }, 4, four, [deleting, ...four.slice(1)], evicted('web-a')),
    ).toHaveLength(1);
  });
});

describe('podsRemovedBy', () => {
  it('reads accepted evictions and pod deletions from the request log, and nothing else', () => {
    const removed = podsRemovedBy([
      { method: 'POST', path: '/api/v1/namespaces/default/pods/web-a/eviction', status: 201 },
      { method: 'POST', path: '/api/v1/namespaces/default/pods/web-b/eviction', status: 429 },
      { method: 'DELETE', path: '/api/v1/namespaces/shop/pods/web-c', status: 200 },
      { method: 'DELETE', path: '/api/v1/namespaces/shop/pods/web-d', status: 404 },
      { method: 'GET', path: '/api/v1/namespaces/default/pods/web-e', status: 200 },
      { method: 'DELETE', path: '/api/v1/nodes/web-f', status: 200 },
    ]);
    expect([...removed]).toStrictEqual(['default/web-a', 'shop/web-c']);
  });
});
