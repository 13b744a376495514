import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulator, type SimulatorIo } from '../../../sim/cli/run';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  const value: SimulatorIo = {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    writeFile: async (path, text) => {
      files.set(path, text);
    },
    tty: false,
    now: () => 0,
  };
  return { value, out: () => out.join(''), err: () => err.join(''), files };
}

const scenario = (expect: string, extraManifest = '') => {
  const dir = mkdtempSync(join(tmpdir(), 'podlift-sim-'));
  const file = join(dir, 'small.yaml');
  writeFileSync(
    file,
    `name: small
duration: 3m
manifests:
  - apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata: { name: default }
    spec:
      role: KarpenterNodeRole-demo
      amiSelectorTerms: [{ alias: al2023@latest }]
      subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
      securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]
  - apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata: { name: default }
    spec:
      template:
        spec:
          nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
          requirements: [{ key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }]
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: web, namespace: default }
    spec:
      replicas: 2
      template: { spec: { containers: [{ name: web, resources: { requests: { cpu: "1" } } }] } }
${extraManifest}expect:
${expect}
`,
  );
  return file;
};

describe('npm start', () => {
  it('prints its usage for --help and refuses unknown options with exit 2', async () => {
    const help = io();
    expect(await runSimulator(['--help'], help.value)).toBe(0);
    expect(help.out()).toMatch(/--scenario <file.yaml>[\s\S]*--report <file.html>[\s\S]*--speed <x>/);
    const bad = io();
    expect(await runSimulator(['--sped', '2'], bad.value)).toBe(2);
    expect(bad.err()).toMatch(/^unknown option "--sped"/);
    const speed = io();
    expect(await runSimulator(['--speed', 'fast'], speed.value)).toBe(2);
    expect(speed.err()).toMatch(/--speed: expected a positive number, got "fast"/);
  });

  it('exits 2 naming the file and field of an invalid scenario', async () => {
    const t = io();
    const file = scenario('  nodes: { most: 1 }');
    expect(await runSimulator(['--scenario', file], t.value)).toBe(2);
    expect(t.err()).toContain(`${file}: invalid scenario`);
    expect(t.err()).toMatch(/expect\.nodes.*most/);
  });

  it('exits 2 naming the step the world cannot carry out', async () => {
    const t = io();
    // The NodePool launches on-demand only: there is no spot instance to recommend rebalancing.
    const file = scenario('  noViolations: true\ntimeline:\n  - { at: 1m, rebalance: { spot: any } }');
    expect(await runSimulator(['--quiet', '--scenario', file], t.value)).toBe(2);
    expect(t.err()).toBe(
      `${file}: the scenario cannot go on: timeline[0] (at 1m).rebalance.spot: no running spot instance with a node\n`,
    );
  }, 60_000);

  it('takes the scenario file without --scenario, and only one', async () => {
    const t = io();
    const file = scenario('  nodes: { most: 1 }');
    expect(await runSimulator([file], t.value)).toBe(2);
    expect(t.err()).toContain(`${file}: invalid scenario`);
    const two = io();
    expect(await runSimulator([file, 'other.yaml'], two.value)).toBe(2);
    expect(two.err()).toMatch(/^one scenario file at a time; "other.yaml" is one too many/);
  });

  it('exits 2 naming the manifest or step whose kind the simulator does not run, before playing', async () => {
    const t = io();
    const file = scenario(
      '  noViolations: true\ntimeline:\n  - { at: 30s, log: x }\n  - { at: 2m, apply: { apiVersion: apps/v1, kind: StatefulSet, metadata: { name: db } } }',
      '  - { apiVersion: v1, kind: ConfigMap, metadata: { name: c } }\n',
    );
    expect(await runSimulator(['--quiet', file], t.value)).toBe(2);
    expect(t.err()).toContain(`${file}: invalid scenario`);
    expect(t.err()).toMatch(
      /- manifests\[3\]\.kind: a kind the simulator runs \(.*Deployment, Job\) \(got "ConfigMap"\)/,
    );
    expect(t.err()).toMatch(/- timeline\[1\] \(at 2m\)\.apply\.kind: .* \(got "StatefulSet"\)/);
    expect(t.err()).not.toMatch(/\n\s+at /);
    expect(t.out()).not.toContain('summary');
  });

  it('exits 2 naming the file, the step (index and at) and the field of an object a step names that does not exist', async () => {
    for (const [step, field] of [
      ['{ at: 1m, delete: { kind: Pod, name: nope } }', 'delete.name: no Pod nope in namespace default'],
      [
        '{ at: 1m, scale: { deployment: api, replicas: 2 } }',
        'scale.deployment: scaling Deployment default/api: no such Deployment',
      ],
      ['{ at: 1m, kubeletDies: { node: ip-1-2-3-4 } }', 'kubeletDies.node: no Node ip-1-2-3-4'],
      ['{ at: 1m, stuckFinalizer: { pod: nope } }', 'stuckFinalizer.pod: no pod default/nope'],
      [
        '{ at: 1m, adoptFromKarpenter: { nodePool: nope } }',
        'adoptFromKarpenter.nodePool: no NodeClaims of NodePool nope',
      ],
    ]) {
      const t = io();
      // The failing step is the second in the file but the first played: named by its index in the file.
      const file = scenario(`  noViolations: true\ntimeline:\n  - { at: 2m, log: later }\n  - ${step}`);
      expect(await runSimulator(['--quiet', file], t.value)).toBe(2);
      expect(t.err()).toBe(`${file}: the scenario cannot go on: timeline[1] (at 1m).${field}\n`);
    }
  }, 120_000);

  it('plays instances launched behind podlift’s back without user data: they never register, nothing crashes', async () => {
    const t = io();
    const file = scenario(
      '  noViolations: true\n  instances: [{ name: leaked, max: 0 }]\ntimeline:\n  - { at: 30s, leakInstance: { name: leaked } }',
    );
    expect(await runSimulator([file], t.value)).toBe(0);
    expect(t.out()).toMatch(/kubelet +instance i-\w+ booted but its kubelet never registers: .*it has none/);
  }, 60_000);

  it('logs, summarizes, and exits 1 naming the expectation that failed', async () => {
    const t = io();
    const code = await runSimulator(
      ['--scenario', scenario('  allPodsRunning: true\n  nodes: { max: 0 }')],
      t.value,
    );
    expect(t.out()).toMatch(
      /INFO {2}provisioner {4}launched NodeClaim default-\w+: \S+ in us-east-1\w \(on-demand\)/,
    );
    expect(t.out()).toMatch(/time to capacity per pod: p50 \d+\.\ds, p99/);
    expect(t.out()).toContain('✓ every pod is running (2 running)');
    expect(code).toBe(1);
    expect(t.err()).toMatch(/^expectation failed: instances running ≤ 0 \(was [1-9]\d*\)$/m);
  }, 60_000);

  it('writes --report as one self-contained HTML page with the run drawn in its charts', async () => {
    const t = io();
    const code = await runSimulator(
      ['--quiet', '--report', 'out.html', '--scenario', scenario('  noViolations: true')],
      t.value,
    );
    expect(code).toBe(0);
    const html = t.files.get('out.html') ?? '';
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toMatch(/data-chart="nodes"[\s\S]*<path class="(line|area)"/);
    expect(html).not.toMatch(/(src|href)="https?:/);
  }, 60_000);
});
