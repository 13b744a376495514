import { describe, expect, it } from 'vitest';
import { LABEL_CAPACITY_TYPE, LABEL_HOSTNAME, LABEL_INSTANCE_TYPE } from '../../../shared/core/model/labels';
import type { Pod } from '../../../shared/core/model/pod';
import { Requirements } from '../../../shared/core/model/requirements';
import { addInto, fits, type MutableResources } from '../../../shared/core/model/resources';
import { pricedTypes } from '../../../shared/core/scheduling/instance-selection';
import { repack } from '../../../shared/core/scheduling/repack';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import { nodePool, pod, pods, resources } from '../../../sim/world/builders';
import { instanceType, instanceTypes, schedulingInput } from './fixtures';

const onDemand = Requirements.from([{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] }]);

function need(part: readonly Pod[], base = {}): MutableResources {
  const out: MutableResources = { ...base };
  for (const p of part) addInto(out, p.requests);
  return out;
}

describe('repack', () => {
  it('places every pod exactly once, each part on a type that holds it', () => {
    const ps = [...pods(40, { cpu: '500m', memory: '6Gi' }), ...pods(60, { cpu: '1', memory: '512Mi' })];
    const ds = resources({ cpu: '200m', memory: '256Mi', pods: 1 });
    const priced = pricedTypes(instanceTypes, onDemand);
    const result = repack(priced, ps, ds);
    expect(result).toBeDefined();
    const seen = result!.parts.flat();
    expect(new Set(seen).size).toBe(ps.length);
    expect(seen.length).toBe(ps.length);
    let cost = 0;
    for (const part of result!.parts) {
      const holder = priced.find((p) => fits(need(part, ds), {}, p.it.allocatable));
      expect(holder).toBeDefined();
      cost += holder!.option.price;
    }
    expect(cost).toBeLessThanOrEqual(result!.cost + 1e-9);
  });

  it('puts each pod on its own node when two fit no cheaper type than two small ones', () => {
    // On m5.large (2 vCPU) and m5.xlarge (4 vCPU, twice the price), 1.5-cpu pods fit one per
    // m5.large; m5.xlarge holds two for the same money, so either way costs 3 × m5.large.
    const types = pricedTypes([instanceType('m5.large'), instanceType('m5.xlarge')], onDemand);
    const result = repack(types, pods(3, { cpu: '1500m', memory: '1Gi' }), {});
    const large = types.find((t) => t.it.name === 'm5.large')!.option.price;
    expect(result!.cost).toBeCloseTo(3 * large, 9);
  });

  it('corrects pod values so small pods fill the room big pods leave, instead of buying nodes of their own', () => {
    // 2 × 2 cpu and 18 × 100m, all 100Mi, any on-demand type. The first pass values pods by
    // size only: it buys t4g.small + 2 × t4g.micro for the small pods and an a1.xlarge (3.92
    // allocatable vCPU) per 2-cpu pod, each half empty. Once the values are corrected to what
    // the pass paid, the small pods are worth more on the a1.xlarge nodes' idle half, and the
    // t4g.micro nodes go. (The optimum, both a1.xlarge nodes holding everything, costs 2 × a1.xlarge.)
    const priced = pricedTypes(instanceTypes, onDemand);
    const price = (name: string) => priced.find((t) => t.it.name === name)!.option.price;
    const ps = [...pods(2, { cpu: '2', memory: '100Mi' }), ...pods(18, { cpu: '100m', memory: '100Mi' })];
    const result = repack(priced, ps, {});
    const sizesOnly = 2 * price('a1.xlarge') + price('t4g.small') + 2 * price('t4g.micro');
    expect(result!.cost).toBeGreaterThanOrEqual(2 * price('a1.xlarge') - 1e-9);
    expect(result!.cost).toBeLessThanOrEqual(2 * price('a1.xlarge') + price('t4g.small') + 1e-9);
    expect(result!.cost).toBeLessThan(sizesOnly - 1e-9);
    expect(result!.parts.flat().length).toBe(ps.length);
  });

  it('says so when a pod fits no type', () => {
    const types = pricedTypes([instanceType('m5.large')], onDemand);
    expect(repack(types, pods(1, { cpu: '4' }), {})).toBeUndefined();
  });
});

describe('schedule with repacking', () => {
  it('plans the memory-heavy mix within 5 % of its configuration-LP bound', () => {
    // 300 × 500m/6Gi + 100 × 2/16Gi, on-demand us-east-1: the configuration LP (shared/core/bound/config-lp.ts)
    // bounds any plan from below at $23.367/h; first-fit-decreasing alone paid $25.71/h.
    const pool = nodePool({
      requirements: [{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] }],
    });
    const ps = [...pods(300, { cpu: '500m', memory: '6Gi' }), ...pods(100, { cpu: '2', memory: '16Gi' })];
    const result = schedule(schedulingInput({ pods: ps, nodePools: [pool] }));
    expect(result.unschedulable).toEqual([]);
    const cost = result.nodeClaims.reduce((s, c) => s + c.price, 0);
    expect(cost).toBeLessThanOrEqual(23.367 * 1.05);
    for (const claim of result.nodeClaims) {
      const it = instanceTypes.find((t) => t.name === claim.instanceType)!;
      expect(fits(claim.requests, {}, it.allocatable)).toBe(true);
      expect(claim.requirements.get(LABEL_INSTANCE_TYPE)?.has(claim.instanceType) ?? true).toBe(true);
    }
  });
});

describe('schedule with repacking around topology', () => {
  it('moves pods that take no part in topology off the nodes anti-affinity pods opened', () => {
    // Four web pods repel each other by hostname, so each opens a node; first-fit-decreasing
    // then fills one of them with 39 of the 40 other pods (a c6g.8xlarge, $1.16/h in all).
    // Those pods count in no rule, so they are repacked like any free pods and each web pod
    // keeps a node of its own sized for it ($0.63/h).
    const pool = nodePool({
      requirements: [{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] }],
    });
    const cpus = ['100m', '250m', '500m', '1', '1500m'];
    const memories = ['100Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'];
    const web = [0, 1, 2, 3].map((i) =>
      pod({
        name: `web-${i}`,
        labels: { app: 'web' },
        cpu: cpus[(i * 3) % 5],
        memory: memories[(i * 5) % 6],
        podAntiAffinity: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: LABEL_HOSTNAME }],
      }),
    );
    const other = Array.from({ length: 40 }, (_, i) =>
      pod({ name: `p-${i}`, cpu: cpus[i % 5], memory: memories[i % 6] }),
    );
    const result = schedule(schedulingInput({ pods: [...web, ...other], nodePools: [pool] }));
    expect(result.unschedulable).toEqual([]);
    const placed = result.nodeClaims.flatMap((c) => c.pods);
    expect(new Set(placed).size).toBe(44);
    expect(placed.length).toBe(44);
    for (const c of result.nodeClaims) {
      expect(c.pods.filter((p) => p.labels.app === 'web').length).toBeLessThanOrEqual(1);
      const it = instanceTypes.find((t) => t.name === c.instanceType)!;
      expect(fits(c.requests, {}, it.allocatable)).toBe(true);
    }
    const cost = result.nodeClaims.reduce((s, c) => s + c.price, 0);
    expect(cost).toBeLessThan(0.8);
  });
});
