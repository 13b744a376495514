import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readPlanInput } from '../../cli/plan-input';
import { run } from '../../cli/run';
import { FakeIO } from './fixtures';

const IGS = readFileSync(new URL('../fixtures/kops/karpenter-instancegroups.yaml', import.meta.url), 'utf8');
const SCRIPTS = {
  'state/igconfig/node/karpenter-nodes-default/nodeupscript.sh': '#!/bin/bash\necho default\n',
  'state/igconfig/node/karpenter-nodes-single-machinetype/nodeupscript.sh': '#!/bin/bash\necho single\n',
};

async function cli(argv: string[], files: Record<string, string> = {}, stdin = '') {
  const io = new FakeIO({ 'igs.yaml': IGS, ...files }, stdin);
  const code = await run(argv, io);
  return { code, out: io.out, err: io.err };
}

const objects = (out: string) =>
  parseAllDocuments(out).map((d) => d.toJS()) as {
    kind: string;
    metadata: { name: string };
    spec: Record<string, unknown>;
  }[];

describe('podlift kops', () => {
  it('prints an EC2NodeClass and a NodePool per Karpenter InstanceGroup, with the nodeup scripts of --nodeup-dir', async () => {
    const { code, out, err } = await cli(
      ['kops', 'igs.yaml', '--nodeup-dir', 'state', '--root-device-name', '/dev/xvda'],
      SCRIPTS,
    );
    expect(code).toBe(0);
    expect(objects(out).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'EC2NodeClass/karpenter-nodes-default',
      'NodePool/karpenter-nodes-default',
      'EC2NodeClass/karpenter-nodes-single-machinetype',
      'NodePool/karpenter-nodes-single-machinetype',
    ]);
    expect(objects(out)[2].spec.userData).toBe('#!/bin/bash\necho single\n');
    // Keys sorted as kOps prints them.
    expect(out).toMatch(
      /^apiVersion: karpenter\.k8s\.aws\/v1\nkind: EC2NodeClass\nmetadata:\n {2}name: karpenter-nodes-default\nspec:\n {2}amiFamily: Custom\n/,
    );
    expect(err).toBe(
      'warning: igs.yaml document 0: Cluster/minimal.example.com: spec.karpenter.enabled is true: kOps then runs Karpenter too, and two provisioners would act on these NodePools\n',
    );
  });

  it('prints what podlift plan reads as it is', async () => {
    const { out } = await cli(['kops', 'igs.yaml', '--root-device-name', '/dev/xvda']);
    const input = readPlanInput(out, 'kops.yaml');
    expect(input.nodePools.map((p) => p.name)).toEqual([
      'karpenter-nodes-default',
      'karpenter-nodes-single-machinetype',
    ]);
    expect(input.nodeClasses.map((c) => c.rootVolumeBytes)).toEqual([128 * 1024 ** 3, 200 * 1024 ** 3]);
  });

  it('lets podlift plan read the InstanceGroups themselves', async () => {
    const pod =
      'apiVersion: v1\nkind: Pod\nmetadata: { name: app }\nspec:\n  containers: [{ name: c, image: x, resources: { requests: { cpu: "1" } } }]\n';
    const { code, out, err } = await cli(['plan', 'plan.yaml', '-o', 'json'], {
      'plan.yaml': `${IGS}---\n${pod}`,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out).nodeClaims).toMatchObject([{ nodePool: 'karpenter-nodes-default' }]);
    expect(err).toContain(
      'warning: plan.yaml document 3: NodePool/karpenter-nodes-single-machinetype (from InstanceGroup/karpenter-nodes-single-machinetype): spec.replicas is 2',
    );
    const input = readPlanInput(IGS, 'igs.yaml');
    // The root volume sizes the nodes' ephemeral storage, as kOps' mapping would.
    expect(input.nodeClasses.map((c) => c.rootVolumeBytes)).toEqual([128 * 1024 ** 3, 200 * 1024 ** 3]);
  });

  it('refuses in podlift plan what kOps refuses, and a name taken twice', async () => {
    const bad = IGS.replace(/(name: karpenter-nodes-default[\s\S]*?)role: Node/, '$1role: Master');
    expect(() => readPlanInput(bad, 'bad.yaml')).toThrow(
      'bad.yaml, document 4, InstanceGroup/karpenter-nodes-default: spec.role: Karpenter InstanceGroups must have role Node (got "Master")',
    );
    const twice = `${IGS}---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: karpenter-nodes-default }\nspec: { template: { spec: { nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: x }, requirements: [] } } }\n`;
    expect(() => readPlanInput(twice, 'twice.yaml')).toThrow(/duplicate NodePool/);
  });

  it('reads standard input and warns about the placeholder and the left-out root volume', async () => {
    const { code, out, err } = await cli(['kops', '-'], {}, IGS);
    expect(code).toBe(0);
    expect(objects(out)[0].spec.userData).toMatch(
      /^<podlift: kOps nodeup script for InstanceGroup karpenter-nodes-default: copy /,
    );
    expect(objects(out)[0].spec).not.toHaveProperty('blockDeviceMappings');
    expect(err).toContain(
      "warning: <stdin> document 4: InstanceGroup/karpenter-nodes-default: userData is a placeholder: replace it with kOps' nodeup script, memfs://clusters.example.com/minimal.example.com/igconfig/node/karpenter-nodes-default/nodeupscript.sh\n",
    );
    expect(err).toContain(
      'warning: <stdin> document 4: InstanceGroup/karpenter-nodes-default: blockDeviceMappings left out (root volume 128Gi gp3)',
    );
  });

  it('refuses what kOps refuses with exit 2, naming the file, document, InstanceGroup and field', async () => {
    const bad = IGS.replace('  minSize: 2\n  maxSize: 10\n', '  minSize: 0\n  maxSize: 10\n');
    const { code, out, err } = await cli(['kops', 'bad.yaml'], { 'bad.yaml': bad });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      'error: bad.yaml, document 3, InstanceGroup/karpenter-nodes-single-machinetype: spec.minSize: must be greater than zero for static capacity (got 0)\n',
    );
  });

  it('names a missing nodeup script', async () => {
    const { code, err } = await cli(['kops', 'igs.yaml', '--nodeup-dir', 'empty']);
    expect(code).toBe(1);
    expect(err).toBe(
      'error: reading empty/igconfig/node/karpenter-nodes-default/nodeupscript.sh: no such file\n',
    );
  });

  it('skips documents that are not kOps objects, and says when nothing is managed by Karpenter', async () => {
    const only =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n---\napiVersion: kops.k8s.io/v1alpha2\nkind: InstanceGroup\nmetadata: { name: asg }\nspec: { role: Node }\n';
    const { code, out, err } = await cli(['kops', 'x.yaml'], { 'x.yaml': only });
    expect(code).toBe(0);
    expect(out).toBe('');
    expect(err).toBe(
      'warning: x.yaml document 0: ConfigMap is not a kops.k8s.io object; skipped\nwarning: x.yaml: no InstanceGroup with spec.manager: Karpenter; nothing to print\n',
    );
  });

  it('flattens a kind: List', async () => {
    const docs = parseAllDocuments(IGS).map((d) => d.toJS());
    const list = stringify({ apiVersion: 'v1', kind: 'List', items: docs });
    const { code, out } = await cli(['kops', 'list.yaml', '--root-device-name', '/dev/xvda'], {
      'list.yaml': list,
    });
    expect(code).toBe(0);
    expect(objects(out)).toHaveLength(4);
  });

  it.each([
    [['kops'], "error: kops: missing the InstanceGroups file (use '-' to read standard input)"],
    [['kops', 'a', 'b'], 'error: kops: expected one input file, got 2: a b'],
    [
      ['kops', 'igs.yaml', '--root-device-name', 'sda1'],
      "error: kops: --root-device-name must be a device like /dev/xvda (got 'sda1')",
    ],
    [['kops', 'igs.yaml', '--bogus'], "error: kops: unknown option '--bogus'"],
  ])('refuses %j as a usage error', async (argv, message) => {
    const { code, err } = await cli(argv);
    expect(code).toBe(2);
    expect(err).toBe(`${message}\nRun 'podlift kops --help' for usage.\n`);
  });

  it('has help, listed in the global help', async () => {
    expect((await cli(['kops', '--help'])).out).toMatch(
      /^Usage: podlift kops <instancegroups\.yaml \| -> \[options\]/,
    );
    expect((await cli(['--help'])).out).toContain(
      '  kops     Print the EC2NodeClass and NodePool kOps generates',
    );
  });
});
