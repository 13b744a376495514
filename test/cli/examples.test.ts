import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type PlanJson, PlanJsonSchema } from '../../cli/plan-json';
import { run } from '../../cli/run';
import { bundledInstanceTypes } from '../../shared/core/catalog/bundled';

const VCPU = new Map(bundledInstanceTypes().map((t) => [t.name, t.vcpu]));

/** Runs `podlift plan <example> -o json` in-process; the example must plan without warnings. */
async function planExample(name: string): Promise<PlanJson> {
  let out = '';
  let err = '';
  const code = await run(['plan', `examples/${name}.yaml`, '--output', 'json'], {
    stdin: async () => '',
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    readFile: (path) => readFile(path, 'utf8'),
  });
  expect(err).toBe('');
  expect(code).toBe(0);
  return PlanJsonSchema.parse(JSON.parse(out));
}

function vcpus(plan: PlanJson, nodePool: string): number {
  return plan.nodeClaims
    .filter((c) => c.nodePool === nodePool)
    .reduce((n, c) => n + VCPU.get(c.instanceType)!, 0);
}

describe('examples', () => {
  it('inflate.yaml places all 10 replicas within the NodePool limits and families', async () => {
    const plan = await planExample('inflate');
    expect(plan.unschedulable).toEqual([]);
    expect(plan.summary.pods).toBe(10);
    expect(plan.nodeClaims.flatMap((c) => c.pods).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `default/inflate-${i}`).sort(),
    );
    expect(vcpus(plan, 'default')).toBeLessThanOrEqual(50);
    for (const claim of plan.nodeClaims) {
      expect(['m5', 'm5d', 'c5', 'c5d', 'c4', 'r4']).toContain(claim.instanceType.split('.')[0]);
      expect(claim.hourlyPrice).toBeGreaterThan(0);
    }
    expect(plan.summary.hourlyCost).toBeGreaterThan(0);
  });

  it('gpu.yaml gives the tolerating pod a GPU node and says why the other one gets none', async () => {
    const plan = await planExample('gpu');
    expect(plan.nodeClaims).toHaveLength(1);
    const [claim] = plan.nodeClaims;
    expect(claim).toMatchObject({ nodePool: 'gpu', capacityType: 'on-demand', pods: ['ml/trainer'] });
    expect(claim.instanceType).toMatch(/^g\d/);
    expect(plan.unschedulable).toHaveLength(1);
    expect(plan.unschedulable[0].pod).toBe('ml/no-toleration');
    expect(plan.unschedulable[0].reason).toContain('nvidia.com/gpu');
  });

  it('topology-spread.yaml spreads the web tier over three zones and one replica per node', async () => {
    const plan = await planExample('topology-spread');
    expect(plan.unschedulable).toEqual([]);
    expect(plan.summary.pods).toBe(6);
    expect(plan.nodeClaims.every((c) => c.pods.length === 1)).toBe(true);
    const perZone = new Map<string, number>();
    for (const c of plan.nodeClaims) perZone.set(c.zone, (perZone.get(c.zone) ?? 0) + c.pods.length);
    expect([...perZone.keys()].sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect([...perZone.values()]).toEqual([2, 2, 2]);
  });

  it('multi-nodepool.yaml fills spot up to its limit, falls back to on-demand and keeps team pods on their pool', async () => {
    const plan = await planExample('multi-nodepool');
    expect(plan.unschedulable).toEqual([]);
    expect(plan.summary.pods).toBe(20 + 3 + 4);
    expect(plan.nodeClaims.some((c) => c.nodePool === 'spot')).toBe(true);
    expect(plan.nodeClaims.some((c) => c.nodePool === 'on-demand')).toBe(true);
    expect(vcpus(plan, 'spot')).toBeLessThanOrEqual(16);
    for (const claim of plan.nodeClaims) {
      expect(claim.capacityType).toBe(claim.nodePool === 'spot' ? 'spot' : 'on-demand');
      const analytics = claim.pods.filter((p) => p.startsWith('data/analytics-'));
      expect(analytics.length === 0 || analytics.length === claim.pods.length).toBe(true);
      expect(claim.nodePool === 'team-data').toBe(analytics.length > 0);
    }
    // The existing on-demand node has about 1.9 CPU free: some pending pods go there.
    expect(plan.existingNodes.map((e) => e.node)).toContain('ip-10-0-1-23.ec2.internal');
  });
});
