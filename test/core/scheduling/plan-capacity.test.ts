import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { LABEL_INSTANCE_FAMILY, LABEL_ZONE } from '../../../shared/core/model/labels';
import {
  CapacityPlanner,
  instanceTypesByNodePool,
  planCapacity,
  schedulingInputFor,
} from '../../../shared/core/scheduling/plan-capacity';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { ProvisioningInput } from '../../../shared/core/scheduling/types';
import { nodeClass, nodePool, pod, pods } from '../../../sim/world/builders';
import { catalog, defaultNodeClass, instanceTypes, realNode } from './fixtures';

/**
 * The provisioning use case: each NodePool's instance types resolved from the catalog for its
 * EC2NodeClass, then the scheduler.
 */

const M5 = { key: LABEL_INSTANCE_FAMILY, operator: 'In' as const, values: ['m5'] };
const dense = nodeClass({ name: 'dense', kubelet: { maxPods: 8 } });

function state(overrides: Partial<ProvisioningInput> = {}): ProvisioningInput {
  return {
    pods: pods(3, { cpu: '1' }),
    daemonSets: [],
    nodes: [],
    nodePools: [nodePool({ requirements: [M5] })],
    nodeClasses: [defaultNodeClass],
    ...overrides,
  };
}

describe('instanceTypesByNodePool', () => {
  it("resolves each NodePool's instance types for its EC2NodeClass", () => {
    const pools = [
      nodePool({ name: 'a' }),
      nodePool({ name: 'b' }),
      nodePool({ name: 'c', nodeClass: 'dense' }),
    ];
    const byPool = instanceTypesByNodePool(pools, [defaultNodeClass, dense], catalog);
    expect(byPool.get('a')).toBe(instanceTypes);
    // NodePools sharing an EC2NodeClass share its resolution.
    expect(byPool.get('b')).toBe(byPool.get('a'));
    const m5 = (pool: string) => byPool.get(pool)?.find((it) => it.name === 'm5.large');
    expect(m5('c')?.allocatable.pods).toBe(8);
    expect(m5('a')?.allocatable.pods).not.toBe(8);
  });

  it('gives a NodePool whose EC2NodeClass is missing no instance types', () => {
    const byPool = instanceTypesByNodePool([nodePool({ nodeClass: 'missing' })], [defaultNodeClass], catalog);
    expect(byPool.has('default')).toBe(false);
  });

  it('marks the unavailable offerings it is given', () => {
    const key = offeringKey('m5.large', 'us-east-1a', 'spot');
    const byPool = instanceTypesByNodePool([nodePool()], [defaultNodeClass], catalog, {
      unavailableOfferings: new Set([key]),
    });
    const offerings = byPool.get('default')?.find((it) => it.name === 'm5.large')?.offerings ?? [];
    const available = (zone: string) =>
      offerings.find((o) => o.zone === zone && o.capacityType === 'spot')?.available;
    expect(available('us-east-1a')).toBe(false);
    expect(available('us-east-1b')).toBe(true);
  });
});

describe('planCapacity', () => {
  it('is the scheduler run on schedulingInputFor', () => {
    const input = state();
    const plan = planCapacity(input, catalog);
    expect(plan.nodeClaims.length).toBeGreaterThan(0);
    expect(plan).toEqual(schedule(schedulingInputFor(input, catalog)));
  });

  it('passes the cluster state through to the scheduler unchanged', () => {
    const input = state();
    const { instanceTypes: _, ...rest } = schedulingInputFor(input, catalog);
    expect(rest).toEqual(input);
  });

  it('says which EC2NodeClass a NodePool is missing', () => {
    const plan = planCapacity(state({ nodePools: [nodePool({ nodeClass: 'missing' })] }), catalog);
    expect(plan.nodeClaims).toEqual([]);
    expect([...new Set(plan.unschedulable.map((u) => u.reason))]).toEqual([
      'NodePool default: EC2NodeClass missing not found',
    ]);
  });

  it('launches no offering marked unavailable', () => {
    const input = state({ pods: pods(1, { cpu: '1' }) });
    const first = planCapacity(input, catalog).nodeClaims[0];
    const expected = offeringKey(first.instanceType, first.zone, first.capacityType);
    const next = planCapacity(input, catalog, { unavailableOfferings: new Set([expected]) }).nodeClaims[0];
    expect(offeringKey(next.instanceType, next.zone, next.capacityType)).not.toBe(expected);
  });
});

describe('CapacityPlanner', () => {
  it("leaves the nodes a run leaves out out of the topology's domains, and keeps those that stay in", () => {
    // Karpenter's simulation builds its scheduler without the candidates' nodes
    // (disruption/helpers.go `SimulateScheduling` passes only the other state nodes to
    // `NewScheduler`), and a zone is a domain when a NodePool offers it or a node that admits
    // the pod is in it (topology.go `buildDomainGroups`, existing nodes' labels). The NodePool
    // offers a and b; `stays` (zone c) takes one 1-CPU pod; zone d, where only the leaving node
    // is, would be a domain no pod can reach, holding the fourth spread pod pending at maxSkew 1.
    const zonal = nodePool({
      name: 'zonal',
      requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
    });
    const stays = realNode({ name: 'stays', instanceType: 'm5.large', zone: 'us-east-1c' });
    const leaving = realNode({ name: 'leaving', instanceType: 'm5.large', zone: 'us-east-1d' });
    const labels = { app: 'spread' };
    const spread = [0, 1, 2, 3].map((i) =>
      pod({
        name: `s${i}`,
        labels,
        cpu: '1',
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
    const cluster = { daemonSets: [], nodePools: [zonal], nodeClasses: [defaultNodeClass] };
    const planner = new CapacityPlanner({ ...cluster, nodes: [stays, leaving] }, catalog);
    const result = planner.plan(spread, new Set(['leaving']));
    expect(result.unschedulable).toEqual([]);
    expect(result.placements.map((p) => [p.node, p.pods.length])).toEqual([['stays', 1]]);
    expect(result.nodeClaims.flatMap((c) => c.pods.map(() => c.zone))).toHaveLength(3);
    expect(result).toEqual(planCapacity({ ...cluster, nodes: [stays], pods: spread }, catalog));
  });
});
