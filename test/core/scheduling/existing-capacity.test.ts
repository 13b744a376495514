import { describe, expect, it } from 'vitest';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../../shared/core/model/labels';
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
    const zonal = nodePool({
      name: 'zonal',
      requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
    });
    const nodes = ['us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1b'].map((zone, i) =>
      realNode({ name: `n${i}`, instanceType: 'm5.large', zone, nodePool: zonal }),
    );
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
    const result = schedule(schedulingInput({ nodes, nodePools: [zonal], pods }));
    expect(result.nodeClaims).toEqual([]);
    expect(result.placements.map((p) => [p.node, p.pods.length])).toEqual([
      ['n0', 1],
      ['n1', 1],
      ['n2', 1],
      ['n3', 1],
    ]);
  });
});
