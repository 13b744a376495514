import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { LABEL_HOSTNAME, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../../../shared/core/model/labels';
import type { Pod } from '../../../shared/core/model/pod';
import type { Taint } from '../../../shared/core/model/taints';
import { ExistingCapacityBase } from '../../../shared/core/scheduling/existing-capacity';
import { CapacityPlanner, planCapacity } from '../../../shared/core/scheduling/plan-capacity';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { catalog, defaultNodeClass, realNode, schedulingInput } from './fixtures';

/**
 * The prepared path a disruption decision simulates on (plan-capacity.ts `CapacityPlanner`: the
 * existing capacity built once, each run a copy-on-write view less some nodes) against the plain
 * `planCapacity` of the same pods on the nodes that stay, which builds everything for its one
 * run. Karpenter builds its scheduler anew per simulation (disruption/helpers.go
 * `SimulateScheduling` → scheduling/scheduler.go `NewScheduler`): the plans must be the ones that
 * would give, whichever runs came before on the same base.
 */

const SEED = 20_261_127;
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const TYPES = ['m5.large', 'm5.xlarge', 'c5.large', 'r5.large', 't3.medium'];
const APPS = ['web', 'api', 'db'];
const GPU_TAINT: Taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };
/** New nodes from a few types only: the property is about existing capacity, and it keeps runs fast. */
const FEW_TYPES = [{ key: LABEL_INSTANCE_TYPE, operator: 'In' as const, values: TYPES }];
const pools = [
  nodePool({ name: 'default', requirements: FEW_TYPES }),
  nodePool({ name: 'tainted', taints: [GPU_TAINT], requirements: FEW_TYPES }),
];

interface PodSpec {
  readonly cpuM: number;
  readonly memoryMi: number;
  readonly app: number;
  /** 0 none, 1 zone spread, 2 hostname spread, 3 hostname anti-affinity, 4 zone selector. */
  readonly rule: number;
  readonly tolerate: boolean;
}

interface NodeSpec {
  readonly type: string;
  readonly zone: number;
  readonly pool: number;
  readonly inFlight: boolean;
  readonly cordoned: boolean;
  readonly bound: readonly PodSpec[];
}

const podSpec = fc.record({
  cpuM: fc.constantFrom(100, 250, 500, 1000, 1500),
  memoryMi: fc.constantFrom(128, 512, 1024, 3072),
  app: fc.nat(APPS.length - 1),
  rule: fc.nat(4),
  tolerate: fc.boolean(),
});

const nodeSpec = fc.record({
  type: fc.constantFrom(...TYPES),
  zone: fc.nat(ZONES.length - 1),
  pool: fc.nat(pools.length),
  inFlight: fc.boolean(),
  cordoned: fc.nat(7).map((n) => n === 0),
  bound: fc.array(podSpec, { maxLength: 6 }),
});

/** A pod of the spec, with the topology rule it names (matching pods of its app). */
function podOf(spec: PodSpec, name: string, nodeName?: string): Pod {
  const labels = { app: APPS[spec.app] };
  const selector = { matchLabels: labels };
  return pod({
    name,
    namespace: 'team',
    labels,
    cpu: `${spec.cpuM}m`,
    memory: `${spec.memoryMi}Mi`,
    ...(nodeName ? { nodeName } : {}),
    ...(spec.tolerate ? { tolerations: [{ key: 'gpu', operator: 'Exists' as const }] } : {}),
    ...(spec.rule === 1 || spec.rule === 2
      ? {
          topologySpread: [
            {
              topologyKey: spec.rule === 1 ? LABEL_ZONE : LABEL_HOSTNAME,
              maxSkew: 1,
              whenUnsatisfiable: 'DoNotSchedule' as const,
              labelSelector: selector,
            },
          ],
        }
      : {}),
    ...(spec.rule === 3
      ? { podAntiAffinity: [{ topologyKey: LABEL_HOSTNAME, labelSelector: selector }] }
      : {}),
    ...(spec.rule === 4 ? { nodeSelector: { [LABEL_ZONE]: ZONES[spec.app % ZONES.length] } } : {}),
  });
}

function nodeOf(spec: NodeSpec, i: number): StateNode {
  const name = `node-${i}`;
  return realNode({
    name,
    instanceType: spec.type,
    zone: ZONES[spec.zone],
    ...(spec.pool < pools.length ? { nodePool: pools[spec.pool] } : {}),
    kind: spec.inFlight ? 'nodeclaim' : 'node',
    unschedulable: spec.cordoned,
    pods: spec.bound.map((b, p) => podOf(b, `${name}-pod-${p}`, name)),
  });
}

/** A cluster and the runs simulated on it: each run's pods and the nodes it leaves out. */
const scenario = fc.record({
  nodes: fc.array(nodeSpec, { minLength: 1, maxLength: 8 }),
  pending: fc.array(podSpec, { maxLength: 4 }),
  runs: fc.array(fc.record({ leaving: fc.array(fc.nat(7), { maxLength: 3 }), extra: fc.nat(3) }), {
    minLength: 1,
    maxLength: 4,
  }),
  unavailable: fc.boolean(),
});

describe('CapacityPlanner', () => {
  it('plans what planCapacity plans on the nodes that stay, run after run on one base', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const nodes = s.nodes.map(nodeOf);
        const pending = s.pending.map((p, i) => podOf(p, `pending-${i}`));
        const state = { daemonSets: [], nodes, nodePools: pools, nodeClasses: [defaultNodeClass] };
        const options = s.unavailable
          ? { unavailableOfferings: new Set(ZONES.map((z) => offeringKey('t3.medium', z, 'spot'))) }
          : {};
        const planner = new CapacityPlanner(state, catalog, options);
        for (const run of s.runs) {
          const leaving = new Set(run.leaving.filter((i) => i < nodes.length).map((i) => nodes[i].name));
          // The leaving nodes' pods move, as a consolidation simulation moves them.
          const moving = nodes
            .filter((n) => leaving.has(n.name))
            .flatMap((n) => n.pods.map((p) => ({ ...p, nodeName: undefined })));
          const pods = [...pending.slice(0, pending.length - (run.extra % (pending.length + 1))), ...moving];
          const plain = planCapacity(
            { ...state, pods, nodes: nodes.filter((n) => !leaving.has(n.name)) },
            catalog,
            options,
          );
          expect(planner.plan(pods, leaving)).toEqual(plain);
        }
      }),
      { seed: SEED, numRuns: 50 },
    );
  });

  it('places on the nodes that stay, never on one left out, and counts their pods for topology', () => {
    const a = realNode({ name: 'a', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: pools[0] });
    const b = realNode({
      name: 'b',
      instanceType: 'm5.large',
      zone: 'us-east-1b',
      nodePool: pools[0],
      pods: [podOf({ cpuM: 100, memoryMi: 128, app: 0, rule: 0, tolerate: false }, 'b-web', 'b')],
    });
    const planner = new CapacityPlanner(
      { daemonSets: [], nodes: [a, b], nodePools: pools, nodeClasses: [defaultNodeClass] },
      catalog,
    );
    // Hostname anti-affinity against `web`: node b holds one, so the pod goes to a, or, without
    // a, to a new node, never to b.
    const web = podOf({ cpuM: 100, memoryMi: 128, app: 0, rule: 3, tolerate: false }, 'web');
    expect(planner.plan([web]).placements).toEqual([{ node: 'a', pods: [web] }]);
    const withoutA = planner.plan([web], new Set(['a']));
    expect(withoutA.placements).toEqual([]);
    expect(withoutA.nodeClaims).toHaveLength(1);
    // Without b, nothing repels it and a takes it; b's own pods are not counted.
    expect(planner.plan([web], new Set(['b'])).placements).toEqual([{ node: 'a', pods: [web] }]);
    const small = pod({ name: 'small', cpu: '100m' });
    expect(planner.plan([small], new Set(['a'])).placements).toEqual([{ node: 'b', pods: [small] }]);
  });

  it('counts a node left out against its NodePool limits while it stays for now', () => {
    // limits.cpu 4 and one m5.large (2 vCPU); two 1500m pods, one to a node. Left out, the
    // m5.large's room is gone, but named to stay (a phased consolidation's held-back candidate)
    // its 2 vCPU still count: room for one new m5.large, not two.
    const limited = { ...pools[0], limits: { cpu: 4000 } };
    const a = realNode({ name: 'a', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: limited });
    const planner = new CapacityPlanner(
      { daemonSets: [], nodes: [a], nodePools: [limited], nodeClasses: [defaultNodeClass] },
      catalog,
    );
    const pods = ['w1', 'w2'].map((name) => pod({ name, cpu: '1500m' }));
    expect(planner.plan(pods, new Set(['a'])).unschedulable).toStrictEqual([]);
    const counted = planner.plan(pods, new Set(['a']), new Set(['a']));
    expect(counted.nodeClaims).toHaveLength(1);
    expect(counted.unschedulable).toHaveLength(1);
    // Named to stay but not left out, it is capacity as any node, counted once: one pod on it,
    // the other on a new m5.large.
    const stays = planner.plan(pods, new Set(), new Set(['a']));
    expect(stays).toEqual(planner.plan(pods));
    expect(stays.unschedulable).toStrictEqual([]);
  });
});

describe('ExistingCapacityBase', () => {
  it('is not changed by the runs that place pods on its views', () => {
    const nodes = [0, 1, 2].map((i) =>
      realNode({
        name: `n${i}`,
        instanceType: 'm5.large',
        zone: ZONES[i],
        nodePool: pools[0],
        pods: [pod({ name: `bound-${i}`, cpu: '500m', memory: '512Mi', nodeName: `n${i}` })],
      }),
    );
    const base = new ExistingCapacityBase(nodes);
    const usedBefore = structuredClone(base.used);
    const request = { cpu: 1000, memory: 1024 * 2 ** 20, pods: 1 };
    const roomBefore = [0, 1, 2].map((i) => base.room.next(i, request));
    const input = schedulingInput({ nodes, nodePools: [pools[0]], pods: [pod({ name: 'p', cpu: '1' })] });
    const first = schedule(input, base.without(new Set()));
    expect(first.placements).toEqual([{ node: 'n0', pods: input.pods }]);
    // Each view starts from the base, not from what the run before placed.
    expect(schedule(input, base.without(new Set()))).toEqual(first);
    expect(schedule({ ...input, nodes: nodes.slice(1) }, base.without(new Set(['n0']))).placements).toEqual([
      { node: 'n1', pods: input.pods },
    ]);
    expect(base.used).toEqual(usedBefore);
    expect([0, 1, 2].map((i) => base.room.next(i, request))).toEqual(roomBefore);
    expect(roomBefore).toEqual([0, 1, 2]);
  });
});
