import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../cli/run';
import { type SavingsJson, SavingsJsonSchema } from '../../cli/savings-json';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { FakeIO, node, pod, yamlStream } from './fixtures';

const SHOP = 'examples/clusters/shop.yaml';

let server: FakeKubeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function savings(argv: string[], files: Record<string, string> = {}, env: Partial<FakeIO> = {}) {
  const shop = await readFile(SHOP, 'utf8');
  const io = Object.assign(new FakeIO({ [SHOP]: shop, ...files }), env);
  const code = await run(['savings', ...argv], io);
  return { code, out: io.out, err: io.err, io };
}

function json(out: string): SavingsJson {
  return SavingsJsonSchema.parse(JSON.parse(out));
}

describe('podlift savings on the hand-solved example (examples/clusters/shop.yaml)', () => {
  // Worked out in the example's header and in test/core/savings/estimate-savings.test.ts:
  // today 3 × m5.xlarge = $0.576/h; podlift m5.xlarge + m5.large = $0.288/h; bound $0.240/h.
  it('reports today, podlift, the bound and the monthly saving the hand computation gives', async () => {
    const { code, out, err } = await savings([SHOP, '--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    const s = json(out);
    expect(s.today.hourlyCost).toBe(0.576);
    expect(s.today.monthlyCost).toBe(420.48);
    expect(s.podlift.hourlyCost).toBe(0.288);
    expect(s.podlift.nodes.map((n) => n.instanceType).sort()).toEqual(['m5.large', 'm5.xlarge']);
    expect(s.lowerBound).toMatchObject({ hourlyCost: 0.24, monthlyCost: 175.2, converged: true });
    expect(s.saving).toEqual({
      hourly: 0.288,
      monthly: 210.24,
      percent: 50,
      atMostHourly: 0.336,
      atMostMonthly: 245.28,
    });
    expect(s.pods).toBe(5);
    expect(s.constraints.map((c) => [c.kind, c.pods])).toEqual([
      ['anti-affinity', ['shop/db-0', 'shop/db-1']],
    ]);
  });

  it('prints the table the docs show', async () => {
    const { code, out } = await savings([SHOP]);
    expect(code).toBe(0);
    expect(out).toBe(`Savings for examples/clusters/shop.yaml (us-east-1), 5 pods compared

             NODES   $/HOUR  $/MONTH
Today            3  $0.5760  $420.48
podlift          2  $0.2880  $210.24  NodePool m5
Lower bound         $0.2400  $175.20  no plan for these pods costs less

Saving: $0.2880/hour, $210.24/month (50 %).
No plan saves more than $0.3360/hour ($245.28/month).

Today:
  3 ×  m5.xlarge  on-demand  $0.1920/h each

podlift:
  1 ×  m5.xlarge  on-demand  $0.1920/h each
  1 ×  m5.large   on-demand  $0.0960/h each

What constrains the saving most:
  anti-affinity (2 pods: shop/db-0, shop/db-1): required pod anti-affinity on kubernetes.io/hostname:
    2 nodes at least, one pod each
`);
  });

  it('writes a self-contained HTML report with --html', async () => {
    const { code, io } = await savings([SHOP, '--html', 'out/savings.html']);
    expect(code).toBe(0);
    const html = io.written.get('out/savings.html') ?? '';
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>podlift savings: examples/clusters/shop.yaml</title>');
    expect(html).toContain('$210/month (50 %)');
    expect(html).toContain('<td>2: shop/db-0, shop/db-1</td>');
    // Loads nothing: no script, stylesheet, image or font from anywhere.
    expect(html).not.toMatch(/<script|<link|src=|url\(/);
  });

  it('reads the same cluster from a live API server with the same figures', async () => {
    server = await startFakeKubeApiServer();
    const dump = parse(await readFile(SHOP, 'utf8')) as { items: { kind: string }[] };
    const resource: Record<string, string> = {
      NodePool: 'nodepools.karpenter.sh',
      EC2NodeClass: 'ec2nodeclasses.karpenter.k8s.aws',
      Node: 'nodes',
      Pod: 'pods',
      PodDisruptionBudget: 'poddisruptionbudgets.policy',
    };
    for (const item of dump.items) server.store.seed(resource[item.kind], item);
    const kubeconfig = server.kubeConfig().exportConfig();
    const { code, out, err } = await savings(['--json', '--kubeconfig', '/kc'], { '/kc': kubeconfig });
    expect(err).toBe('');
    expect(code).toBe(0);
    const s = json(out);
    expect(s.source).toBe(`context "fake" (${server.url})`);
    expect([s.today.hourlyCost, s.podlift.hourlyCost, s.lowerBound.hourlyCost, s.saving.monthly]).toEqual([
      0.576, 0.288, 0.24, 210.24,
    ]);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it("plans a cluster without NodePools with Karpenter's general-purpose one, and says so", async () => {
    const dump = yamlStream(
      node('n1', { labels: { 'eks.amazonaws.com/capacityType': 'ON_DEMAND' } }),
      pod('a', { nodeName: 'n1', phase: 'Running', cpu: '250m' }),
      pod('p', { phase: 'Pending' }),
    );
    const { code, out } = await savings(['ca.yaml'], { 'ca.yaml': dump });
    expect(code).toBe(0);
    expect(out).toContain("Karpenter's default NodePool general-purpose (the cluster has none)");
    expect(out).toContain('Note: pending pods (1 today) are in neither cost.');
  });
});

describe('podlift savings on a cluster without Karpenter (examples/clusters/managed-nodegroup.yaml)', () => {
  it('plans with the default NodePool, keeps bound ≤ plan ≤ today, and names every kind of constraint', async () => {
    const file = 'examples/clusters/managed-nodegroup.yaml';
    const { code, out, err } = await savings([file, '--json'], { [file]: await readFile(file, 'utf8') });
    expect(err).toBe('');
    expect(code).toBe(0);
    const s = json(out);
    expect(s.podlift).toMatchObject({ nodePools: ['general-purpose'], defaultNodePool: true });
    // 11 pods run besides the DaemonSet's; the dump's 5 node-exporter pods follow the nodes.
    expect(s.pods).toBe(10);
    expect(s.today.nodes).toHaveLength(5);
    expect(s.today.hourlyCost).toBeCloseTo(4 * 0.384 + s.today.nodes[4].hourlyPrice, 4);
    expect(s.today.nodes[4]).toMatchObject({ instanceType: 'c5.2xlarge', capacityType: 'spot' });
    expect(s.lowerBound.hourlyCost).toBeLessThanOrEqual(s.podlift.hourlyCost);
    expect(s.podlift.hourlyCost).toBeLessThan(s.today.hourlyCost);
    expect(
      s.podlift.nodes.every((n) => n.capacityType === 'on-demand' && /^[cmr]/.test(n.instanceType)),
    ).toBe(true);
    // The three api pods repel each other: three nodes at least.
    expect(s.podlift.nodes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(s.constraints.map((c) => c.kind))).toEqual(
      new Set(['anti-affinity', 'large-requests', 'pod-disruption-budget', 'do-not-disrupt']),
    );
  });
});

describe('podlift savings usage', () => {
  it.each([
    { argv: ['a.yaml', 'b.yaml'], message: 'expected one input file, got 2: a.yaml b.yaml' },
    {
      argv: [SHOP, '--context', 'prod'],
      message: 'is a dump file; --kubeconfig and --context choose a live cluster',
    },
    { argv: [SHOP, '--region', 'mars-1'], message: '--region mars-1: no bundled prices for this region' },
    { argv: [SHOP, '--fast'], message: "error: savings: unknown option '--fast'" },
  ])('exits 2 on $argv', async ({ argv, message }) => {
    const { code, err } = await savings(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('is listed in the global help and has its own', async () => {
    const io = new FakeIO();
    expect(await run(['--help'], io)).toBe(0);
    expect(io.out).toContain('savings  What podlift would save on a cluster');
    const help = new FakeIO();
    expect(await run(['savings', '--help'], help)).toBe(0);
    expect(help.out).toContain('Usage: podlift savings [<dump.yaml | ->] [options]');
  });
});
