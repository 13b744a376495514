import { describe, expect, it } from 'vitest';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../../shared/core/model/labels';
import { ExistingCapacityBase } from '../../../shared/core/scheduling/existing-capacity';
import { CapacityPlanner } from '../../../shared/core/scheduling/plan-capacity';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import { nodePool, pod } from '../../../sim/world/builders';
import { catalog, defaultNodeClass, instanceType, realNode, schedulingInput } from './fixtures';

/**
 * existing-capacity.ts on its own: what a scheduling run places on the nodes that exist, as
 * Karpenter's ExistingNode does (kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/scheduling/existingnode.go `Add`: a node takes a pod while its
 * requests plus the pod's fit its allocatable, counting the pods it took earlier in the run).
 */
const pool = nodePool({ name: 'default' });
const M5_LARGE_CPU = instanceType('m5.large').allocatable.cpu;

describe('ExistingCapacity', () => {
  it('counts what earlier groups of the same run placed on a node, on top of its bound pods', () => {
    // 1,000m free: two 400m pods and one 150m pod fit (50m left), the second 150m pod does not.
    const bound = pod({ name: 'bound', cpu: `${M5_LARGE_CPU - 1000}m`, nodeName: 'n0' });
    const n0 = realNode({
      name: 'n0',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: pool,
      pods: [bound],
    });
    const big = [0, 1].map((i) => pod({ name: `big-${i}`, cpu: '400m' }));
    const small = [0, 1].map((i) => pod({ name: `small-${i}`, cpu: '150m' }));
    const result = schedule(schedulingInput({ nodes: [n0], nodePools: [pool], pods: [...big, ...small] }));
    expect(result.placements).toHaveLength(1);
    expect(result.placements[0].node).toBe('n0');
    expect(result.placements[0].pods.map((p) => p.name).sort()).toEqual(['big-0', 'big-1', 'small-0']);
    expect(result.nodeClaims.flatMap((c) => c.pods.map((p) => p.name))).toEqual(['small-1']);
  });

  it('lists the placements in node order, whichever node took a pod first', () => {
    // The big pod is placed first (Karpenter's queue.go sorts pods by CPU, then memory, descending)
    // and may only go to n1; the small one then takes the first node with room, n0.
    const n0 = realNode({ name: 'n0', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    const n1 = realNode({ name: 'n1', instanceType: 'm5.large', zone: 'us-east-1b', nodePool: pool });
    const big = pod({ name: 'big', cpu: '1500m', nodeSelector: { [LABEL_ZONE]: 'us-east-1b' } });
    const small = pod({ name: 'small', cpu: '100m' });
    const result = schedule(schedulingInput({ nodes: [n0, n1], nodePools: [pool], pods: [small, big] }));
    expect(result.placements).toEqual([
      { node: 'n0', pods: [small] },
      { node: 'n1', pods: [big] },
    ]);
  });

  it("keeps a pod off a node whose running pod's required anti-affinity repels it, on a shared base too", () => {
    // The running pod's anti-affinity repels the pending pod although the pending pod has no
    // rule of its own and no counter counts its class (topology.go `updateInverseAntiAffinity`).
    const repeller = pod({
      name: 'repeller',
      labels: { app: 'db' },
      cpu: '100m',
      nodeName: 'a',
      podAntiAffinity: [{ topologyKey: LABEL_HOSTNAME, labelSelector: { matchLabels: { app: 'web' } } }],
    });
    const a = realNode({
      name: 'a',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: pool,
      pods: [repeller],
    });
    const web = pod({ name: 'web', labels: { app: 'web' }, cpu: '100m' });
    const state = { daemonSets: [], nodes: [a], nodePools: [pool], nodeClasses: [defaultNodeClass] };
    const planner = new CapacityPlanner(state, catalog);
    for (const result of [
      planner.plan([web]),
      schedule(schedulingInput({ nodes: [a], nodePools: [pool], pods: [web] })),
    ]) {
      expect(result.placements).toEqual([]);
      expect(result.nodeClaims).toHaveLength(1);
    }
    // A pod the anti-affinity does not select goes onto the node.
    const api = pod({ name: 'api', labels: { app: 'api' }, cpu: '100m' });
    expect(planner.plan([api]).placements).toEqual([{ node: 'a', pods: [api] }]);
  });
});

describe('ExistingCapacity under zone spread', () => {
  it('comes back to a node its zone ruled out for a while: 2 nodes per zone, 4 spread pods, 2/2 on them', () => {
    // Karpenter's topology.go `AddRequirements` narrows each pod to the zones maxSkew allows, and
    // scheduler.go `addToExistingNode` tries every existing node for each pod: a node of a zone
    // ruled out for one pod takes the next. Each node has room for one 1,500m pod.
    const result = spreadOverNodes(['us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1b'], 'm5.large');
    expect(result.nodeClaims).toEqual([]);
    expect(result.placements.map((p) => [p.node, p.pods.length])).toEqual([
      ['n0', 1],
      ['n1', 1],
      ['n2', 1],
      ['n3', 1],
    ]);
  });
});

describe('ExistingCapacityBase running pod classes', () => {
  it('gives pods of one namespace and labels one class, and pods differing in either their own', () => {
    // Pods of one class match the same topology counters (a counter selects by namespace and
    // labels, topology.go `countDomains`), so one question per class is enough.
    const on = (node: string, name: string, namespace: string, app: string) =>
      pod({ name, namespace, labels: { app }, cpu: '100m', nodeName: node });
    const a = realNode({
      name: 'a',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: pool,
      pods: [on('a', 'w1', 'team', 'web'), on('a', 'd1', 'team', 'db'), on('a', 'w2', 'team', 'web')],
    });
    const b = realNode({
      name: 'b',
      instanceType: 'm5.large',
      zone: 'us-east-1b',
      nodePool: pool,
      pods: [on('b', 'w3', 'other', 'web'), on('b', 'd2', 'team', 'db')],
    });
    const classes = new ExistingCapacityBase([a, b]).classes();
    expect(classes.representatives.map((p) => p.name)).toEqual(['w1', 'd1', 'w3']);
    expect(classes.classOf.map((c) => [...c])).toEqual([
      [0, 1, 0],
      [2, 1],
    ]);
    expect(classes.antiAffinity).toBe(false);
  });

  it('notes required anti-affinity carried by any running pod, not only by every one', () => {
    const plain = pod({ name: 'plain', labels: { app: 'db' }, cpu: '100m', nodeName: 'a' });
    const repeller = pod({
      name: 'repeller',
      labels: { app: 'db' },
      cpu: '100m',
      nodeName: 'a',
      podAntiAffinity: [{ topologyKey: LABEL_HOSTNAME, labelSelector: { matchLabels: { app: 'web' } } }],
    });
    const a = realNode({
      name: 'a',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: pool,
      pods: [plain, repeller],
    });
    const b = realNode({ name: 'b', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    expect(new ExistingCapacityBase([a, b]).classes().antiAffinity).toBe(true);
    // And a run on a shared base honours it: the web pod goes to a new node, not onto a.
    const state = { daemonSets: [], nodes: [a], nodePools: [pool], nodeClasses: [defaultNodeClass] };
    const web = pod({ name: 'web', labels: { app: 'web' }, cpu: '100m' });
    const result = new CapacityPlanner(state, catalog).plan([web]);
    expect(result.placements).toEqual([]);
    expect(result.nodeClaims).toHaveLength(1);
  });
});

describe('ExistingCapacity of a run that leaves nodes out', () => {
  const zonal = nodePool({
    name: 'zonal',
    requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
  });
  const labels = { app: 'spread' };
  const spread = (name: string, nodeName?: string) =>
    pod({
      name,
      labels,
      cpu: '100m',
      ...(nodeName ? { nodeName } : {}),
      topologySpread: [
        {
          topologyKey: LABEL_ZONE,
          maxSkew: 1,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: labels },
        },
      ],
    });

  it("neither places on a node left out nor counts its pods in the topology, as Karpenter's excludedPods", () => {
    // kubernetes-sigs/karpenter topology.go `countDomains` skips `excludedPods` (the pods of the
    // candidates a disruption simulation reschedules, helpers.go `SimulateScheduling`), and the
    // candidates' nodes are no ExistingNodes of that scheduler.
    const leaving = realNode({
      name: 'leaving',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: zonal,
      pods: [spread('s0', 'leaving'), spread('s1', 'leaving')],
    });
    const stays = realNode({ name: 'stays', instanceType: 'm5.large', zone: 'us-east-1b', nodePool: zonal });
    const state = {
      daemonSets: [],
      nodes: [leaving, stays],
      nodePools: [zonal],
      nodeClasses: [defaultNodeClass],
    };
    const moving = [spread('m0'), spread('m1')];
    const result = new CapacityPlanner(state, catalog).plan(moving, new Set(['leaving']));
    // Zones a and b both count 0: one pod goes to `stays` (zone b), the other to a new node in
    // zone a. Counting the leaving node's two pods in zone a would put both on `stays`.
    expect(result.placements.map((p) => [p.node, p.pods.length])).toEqual([['stays', 1]]);
    expect(result.nodeClaims.map((c) => [c.zone, c.pods.length])).toEqual([['us-east-1a', 1]]);
    // With nothing left out, the node's pods count and both go to zone b's node.
    expect(new CapacityPlanner(state, catalog).plan(moving).placements).toEqual([
      { node: 'stays', pods: moving },
    ]);
  });
});

describe('ExistingCapacity.place walking the nodes', () => {
  it('goes back to a node its zone ruled out for one pod, and to the nodes after the one that took a pod', () => {
    // One node per zone with room for two 1,500m pods each; 4 pods, zone spread maxSkew 1:
    // a, b, then a and b again (topology.go `AddRequirements` narrows each pod to the zones the
    // skew allows; scheduler.go `addToExistingNode` tries every existing node for each pod).
    const result = spreadOverNodes(['us-east-1a', 'us-east-1b'], 'm5.xlarge');
    expect(result.nodeClaims).toEqual([]);
    expect(result.placements.map((p) => [p.node, p.pods.length])).toEqual([
      ['n0', 2],
      ['n1', 2],
    ]);
  });

  it('tries the next node when the first with room may take none of the group (hostname anti-affinity)', () => {
    // n0 has room but holds a pod the group's hostname anti-affinity repels; n1 takes it
    // (existingnode.go `Add` refuses n0 on its topology requirements, the walk goes on).
    const labels = { app: 'web' };
    const antiAffinity = [{ topologyKey: LABEL_HOSTNAME, labelSelector: { matchLabels: labels } }];
    const running = pod({
      name: 'running',
      labels,
      cpu: '100m',
      nodeName: 'n0',
      podAntiAffinity: antiAffinity,
    });
    const n0 = realNode({
      name: 'n0',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      nodePool: pool,
      pods: [running],
    });
    const n1 = realNode({ name: 'n1', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    const web = pod({ name: 'web', labels, cpu: '100m', podAntiAffinity: antiAffinity });
    const result = schedule(schedulingInput({ nodes: [n0, n1], nodePools: [pool], pods: [web] }));
    expect(result.placements).toEqual([{ node: 'n1', pods: [web] }]);
    expect(result.nodeClaims).toEqual([]);
  });

  it('admits a node any one of the required node-affinity terms matches (the terms are ORed)', () => {
    // Kubernetes' nodeSelectorTerms are ORed (Karpenter's scheduling requirements per term,
    // pkg/scheduling/requirements.go `NewPodRequirements` relaxes through them in order).
    const n0 = realNode({ name: 'n0', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    const either = pod({
      name: 'either',
      cpu: '100m',
      requiredNodeAffinity: [
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1b'] }] },
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }] },
      ],
    });
    const result = schedule(schedulingInput({ nodes: [n0], nodePools: [pool], pods: [either] }));
    expect(result.placements).toEqual([{ node: 'n0', pods: [either] }]);
  });

  it("leaves the base's free room as it was for the next run of a planner", () => {
    // Each simulation starts from the cluster as it is (helpers.go `SimulateScheduling` builds
    // a new scheduler each time): what one run placed on a node takes no room from the next.
    const n0 = realNode({ name: 'n0', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    const n1 = realNode({ name: 'n1', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pool });
    const state = { daemonSets: [], nodes: [n0, n1], nodePools: [pool], nodeClasses: [defaultNodeClass] };
    const planner = new CapacityPlanner(state, catalog);
    const big = pod({ name: 'big', cpu: '1500m' });
    expect(planner.plan([big]).placements).toEqual([{ node: 'n0', pods: [big] }]);
    expect(planner.plan([big]).placements).toEqual([{ node: 'n0', pods: [big] }]);
  });
});

/**
 * Four 1.5-cpu pods spread over zones (maxSkew 1) scheduled onto existing nodes of `instanceType`
 * in `zones` (node `n<i>` in `zones[i]`) of a NodePool offered in us-east-1a and -1b.
 */
function spreadOverNodes(zones: readonly string[], instanceType: string) {
  const zonal = nodePool({
    name: 'zonal',
    requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
  });
  const nodes = zones.map((zone, i) => realNode({ name: `n${i}`, instanceType, zone, nodePool: zonal }));
  const labels = { app: 'spread' };
  const pods = [0, 1, 2, 3].map((i) =>
    pod({
      name: `p${i}`,
      labels,
      cpu: '1500m',
      topologySpread: [
        {
          topologyKey: LABEL_ZONE,
          maxSkew: 1,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: labels },
        },
      ],
    }),
  );
  return schedule(schedulingInput({ nodes, nodePools: [zonal], pods }));
}
