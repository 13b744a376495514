import { describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import { boundInput, type ClusterSnapshot, formatBoundTable } from '../../../sim/soak/bound';
import { REGION, ZONES } from '../../../sim/world/aws/region';
import { ec2NodeClassManifest, nodePoolManifest } from '../../../sim/world/builders/karpenter-manifests';
import { podManifest } from '../../../sim/world/builders/pod-manifests';

const catalog = loadBundledCatalog(REGION);

function snapshot(capacityTypes: string[], pods: ClusterSnapshot['pods']): ClusterSnapshot {
  return {
    catalog,
    instanceTypes: ['m5.large', 'c5.xlarge', 'm6g.large'],
    zones: ZONES,
    nodePool: nodePoolManifest({
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: capacityTypes },
      ],
    }),
    nodeClass: ec2NodeClassManifest(),
    pods,
  };
}

const web = { requests: { cpu: '500m', memory: '512Mi' } };
const api = { requests: { cpu: '1', memory: '2Gi' } };

describe('boundInput', () => {
  it('counts the Pending and Running pods, grouped by requests, and leaves the rest out', () => {
    const input = boundInput(
      snapshot(
        ['spot', 'on-demand'],
        [
          podManifest({ ...web, phase: 'Pending' }),
          podManifest({ ...web, phase: 'Running' }),
          podManifest({ ...api, phase: 'Running' }),
          podManifest({ ...api, phase: 'Succeeded' }),
          podManifest({ ...api, phase: 'Running', deletionTimestamp: '2026-01-01T00:00:00Z' }),
        ],
      ),
    );
    expect(input.pods).toBe(3);
    expect([...input.classes].sort((a, b) => a.cpu - b.cpu)).toEqual([
      { cpu: 500, memory: 512 * 2 ** 20, count: 2 },
      { cpu: 1000, memory: 2 * 2 ** 30, count: 1 },
    ]);
  });

  it('offers the types the world sells that the NodePool allows, at the cheapest allowed price', () => {
    const cheapest = (type: string) =>
      Math.min(
        catalog.prices.onDemand.get(type) ?? Number.POSITIVE_INFINITY,
        ...ZONES.map((z) => catalog.prices.spot.get(type)?.get(z) ?? Number.POSITIVE_INFINITY),
      );
    const both = boundInput(snapshot(['spot', 'on-demand'], []));
    // m6g is arm64: the NodePool asks for amd64.
    expect(both.types.map((t) => t.name).sort()).toEqual(['c5.xlarge', 'm5.large']);
    for (const t of both.types) expect(t.price).toBeCloseTo(cheapest(t.name), 6);
    expect(both.types.find((t) => t.name === 'm5.large')?.price).toBeLessThan(
      catalog.prices.onDemand.get('m5.large') ?? 0,
    );

    const onDemand = boundInput(snapshot(['on-demand'], []));
    for (const t of onDemand.types) expect(t.price).toBeCloseTo(catalog.prices.onDemand.get(t.name) ?? 0, 6);
    // Room for pods is allocatable after kubelet's reservations, below the instance's capacity.
    const m5 = onDemand.types.find((t) => t.name === 'm5.large');
    expect(m5?.cpu).toBeLessThan(2000);
    expect(m5?.cpu).toBeGreaterThan(1500);
    expect(m5?.pods).toBe(29);
  });
});

describe('boundInput: the fresh plan', () => {
  it('costs what the planner launches for the pods on new nodes: two 1-cpu pods on one on-demand c5.xlarge', () => {
    // On-demand only, so the price is the catalog's: two api pods (2 cpu, 4Gi) fit one c5.xlarge
    // (4 vCPU, 8 GiB) at $0.17/h, cheaper than two m5.large ($0.192/h).
    const input = boundInput(
      snapshot(
        ['on-demand'],
        [podManifest({ ...api, phase: 'Pending' }), podManifest({ ...api, phase: 'Running' })],
      ),
    );
    expect(input.planned).toBeCloseTo(catalog.prices.onDemand.get('c5.xlarge') ?? 0, 9);
    expect(input.planned).toBeCloseTo(0.17, 9);
  });

  it('is 0 with no pod to place', () => {
    expect(boundInput(snapshot(['on-demand'], [])).planned).toBe(0);
  });
});

describe('formatBoundTable', () => {
  it("prints a point's fresh plan against the bound beside its ratio", () => {
    const [, , row] = formatBoundTable([
      { atMs: 60_000, pods: 4, dollarsPerHour: 0.3, bound: 0.2, planned: 0.25 },
    ]).split('\n');
    expect(row).toMatch(/^\s+1\.0\s+4\s+0\.300\s+0\.200\s+1\.50\s+1\.25$/);
  });

  it('prints each point with its ratio, a timed-out point as such, and the mean and max ratio', () => {
    const text = formatBoundTable([
      { atMs: 60_000, pods: 4, dollarsPerHour: 0.3, bound: 0.2, lpMs: 120 },
      { atMs: 120_000, pods: 9, dollarsPerHour: 0.5, lpMs: 5_480 },
      { atMs: 180_000, pods: 6, dollarsPerHour: 0.4, bound: 0.25 },
      { atMs: 240_000, pods: 0, dollarsPerHour: 0, bound: 0 },
    ]);
    const rows = text.split('\n');
    expect(rows[2]).toMatch(/^\s+1\.0\s+4\s+0\.300\s+0\.200\s+1\.50$/);
    expect(rows[3]).toMatch(/^\s+2\.0\s+9\s+0\.500 bound timed out$/);
    expect(rows[4]).toMatch(/1\.60$/);
    expect(rows[5]).toMatch(/0\.000\s+-$/);
    expect(rows.at(-2)).toBe('cost ÷ bound: mean 1.55, max 1.60 over 2 points');
    expect(rows.at(-1)).toBe("bound's wall time per point: max 5.48 s");
  });
});
