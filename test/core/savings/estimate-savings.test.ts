import { beforeAll, describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import { LABEL_HOSTNAME } from '../../../shared/core/model/labels';
import type { Pod } from '../../../shared/core/model/pod';
import type { LpSolver } from '../../../shared/core/ports/lp-solver';
import {
  estimateSavings,
  HOURS_PER_MONTH,
  type SavingsInput,
} from '../../../shared/core/savings/estimate-savings';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { loadHighsSolver } from '../../../shared/runtime/highs-solver';
import { nodeClass, nodePool, pod, stateNode } from '../../../sim/world/builders';

let solver: LpSolver;
beforeAll(async () => {
  solver = await loadHighsSolver();
});

const catalog = loadBundledCatalog('us-east-1');
const NOW = Date.parse('2026-11-27T12:00:00Z');

/** An on-demand m5.xlarge of today's cluster in us-east-1a, with `pods` bound to it. */
function m5xlarge(name: string, pods: readonly Pod[]): StateNode {
  return stateNode({
    name,
    labels: {
      'node.kubernetes.io/instance-type': 'm5.xlarge',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'eks.amazonaws.com/capacityType': 'ON_DEMAND',
    },
    allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
    pods: pods.map((p) => ({ ...p, nodeName: name })),
  });
}

const web = (i: number) => pod({ name: `web-${i}`, cpu: '1', memory: '256Mi', labels: { app: 'web' } });
const db = (i: number) =>
  pod({
    name: `db-${i}`,
    cpu: '500m',
    memory: '256Mi',
    labels: { app: 'db' },
    podAntiAffinity: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: LABEL_HOSTNAME }],
  });

/** A NodePool that may launch on-demand m5.large ($0.096/h) and m5.xlarge ($0.192/h) only. */
const m5Pool = nodePool({
  name: 'm5',
  requirements: [
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
  ],
});

function input(nodes: readonly StateNode[], overrides: Partial<SavingsInput> = {}): SavingsInput {
  return {
    nodes,
    daemonSets: [],
    nodePools: [m5Pool],
    nodeClasses: [nodeClass()],
    podDisruptionBudgets: [],
    now: NOW,
    ...overrides,
  };
}

describe('estimateSavings on a cluster solved by hand', () => {
  // Today: 3 on-demand m5.xlarge ($0.192/h each) run 3 web pods (1 cpu) and 2 db pods (500m)
  // that repel each other on hostname. m5.large allocates 1930m, m5.xlarge 3920m.
  // Best plan: one m5.xlarge (3 web + 1 db, 3.5 cpu) + one m5.large (1 db) = $0.288/h; two nodes
  // are needed (the dbs repel), two m5.large hold only 2 web, so nothing cheaper exists.
  // Bound (configuration LP): patterns xlarge{3w,1d} $0.192 and large{1w,1d} $0.096; the duals
  // π_w = π_d = 0.048 are feasible for every pattern (3·0.048+0.048 = 0.192, 0.048+0.048 = 0.096)
  // and reach 3·0.048 + 2·0.048 = $0.240/h, matched by ½·xlarge{3w,1d} + 1½·large{1w,1d}.
  const today = [m5xlarge('n1', [web(0), db(0)]), m5xlarge('n2', [web(1), db(1)]), m5xlarge('n3', [web(2)])];

  it('prices today, plans, bounds and saves what the hand computation says', () => {
    expect(catalog.prices.onDemand.get('m5.large')).toBe(0.096);
    expect(catalog.prices.onDemand.get('m5.xlarge')).toBe(0.192);
    const estimate = estimateSavings(input(today), catalog, solver);
    expect(estimate.current.cost).toBeCloseTo(0.576, 9);
    expect(estimate.current.priced.map((n) => [n.name, n.capacityType, n.capacityTypeFrom, n.pods])).toEqual([
      ['n1', 'on-demand', 'eks.amazonaws.com/capacityType', 2],
      ['n2', 'on-demand', 'eks.amazonaws.com/capacityType', 2],
      ['n3', 'on-demand', 'eks.amazonaws.com/capacityType', 1],
    ]);
    expect(estimate.pods).toBe(5);
    expect(estimate.plan.cost).toBeCloseTo(0.288, 9);
    expect(estimate.plan.nodes.map((n) => n.instanceType).sort()).toEqual(['m5.large', 'm5.xlarge']);
    expect(estimate.bound.cost).toBeCloseTo(0.24, 6);
    expect(estimate.bound.timedOut).toBe(false);
    expect(estimate.savingPerHour).toBeCloseTo(0.288, 9);
    expect(estimate.savingPerHour * HOURS_PER_MONTH).toBeCloseTo(210.24, 6);
    expect(estimate.maxSavingPerHour).toBeCloseTo(0.336, 6);
    expect(estimate.nodePools).toEqual({ names: ['m5'], defaulted: false });
  });

  it('names the pods that repel each other as what constrains the saving, not pods any node holds', () => {
    const { constraints } = estimateSavings(input(today), catalog, solver);
    expect(constraints).toEqual([
      {
        kind: 'anti-affinity',
        count: 2,
        pods: ['default/db-0', 'default/db-1'],
        detail: 'required pod anti-affinity on kubernetes.io/hostname: 2 nodes at least, one pod each',
      },
    ]);
  });
});

describe('estimateSavings', () => {
  it('names pods too large for the cheapest node, budgets that allow no disruption, and do-not-disrupt pods', () => {
    const big = pod({ name: 'etl-0', cpu: '3', memory: '1Gi', labels: { app: 'etl' } });
    const pinned = {
      ...pod({ name: 'job-0', cpu: '100m' }),
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    };
    const estimate = estimateSavings(
      input([m5xlarge('n1', [big, web(0), pinned])], {
        podDisruptionBudgets: [
          {
            namespace: 'default',
            name: 'web',
            selector: { matchLabels: { app: 'web' } },
            minAvailable: 1,
            disruptionsAllowed: 0,
            currentHealthy: 1,
            desiredHealthy: 1,
            expectedPods: 1,
          },
        ],
      }),
      catalog,
      solver,
    );
    expect(estimate.constraints.map((c) => [c.kind, c.pods, c.detail])).toEqual([
      [
        'large-requests',
        ['default/etl-0'],
        'each requests 3 cpu and 1Gi memory: the cheapest node that holds one is m5.xlarge at $0.1920/h',
      ],
      [
        'pod-disruption-budget',
        ['default/web-0'],
        'PodDisruptionBudget default/web allows no disruption now: these pods cannot move to new nodes until it does',
      ],
      [
        'do-not-disrupt',
        ['default/job-0'],
        'annotated karpenter.sh/do-not-disrupt: their nodes cannot be replaced while they run, so the saving waits for them to finish',
      ],
    ]);
  });

  it("plans with Karpenter's general-purpose NodePool when the cluster has none", () => {
    const estimate = estimateSavings(
      input([m5xlarge('n1', [web(0)])], { nodePools: [], nodeClasses: [] }),
      catalog,
      solver,
    );
    expect(estimate.nodePools).toEqual({ names: ['general-purpose'], defaulted: true });
    expect(estimate.plan.nodes).toHaveLength(1);
    expect(estimate.plan.nodes[0].capacityType).toBe('on-demand');
    expect(['c', 'm', 'r']).toContain(estimate.plan.nodes[0].instanceType[0]);
    expect(estimate.bound.cost).toBeLessThanOrEqual(estimate.plan.cost + 1e-9);
  });

  it('leaves out nodes it cannot price, with their pods, and prices spot by zone', () => {
    const fargate = stateNode({
      name: 'fargate-ip-1',
      labels: {},
      pods: [{ ...web(7), nodeName: 'fargate-ip-1' }],
    });
    const master = stateNode({
      name: 'cp-1',
      labels: { 'node.kubernetes.io/instance-type': 'm5.large', 'node-role.kubernetes.io/control-plane': '' },
    });
    const spot = stateNode({
      name: 's1',
      labels: {
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/zone': 'us-east-1b',
        'karpenter.sh/capacity-type': 'spot',
      },
      pods: [
        { ...web(1), nodeName: 's1' },
        { ...pod({ name: 'agent', ownerKind: 'DaemonSet' }), nodeName: 's1' },
      ],
    });
    const estimate = estimateSavings(input([fargate, master, spot]), catalog, solver);
    expect(estimate.current.excluded).toEqual([
      { name: 'fargate-ip-1', reason: 'no node.kubernetes.io/instance-type label' },
      { name: 'cp-1', reason: 'control-plane node (node-role.kubernetes.io/control-plane)' },
    ]);
    expect(estimate.current.priced).toEqual([
      {
        name: 's1',
        instanceType: 'm5.xlarge',
        capacityType: 'spot',
        capacityTypeFrom: 'karpenter.sh/capacity-type',
        zone: 'us-east-1b',
        price: catalog.prices.spot.get('m5.xlarge')?.get('us-east-1b'),
        pods: 1,
      },
    ]);
    expect(estimate.pods).toBe(1);
  });
});
