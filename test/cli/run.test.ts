import { describe, expect, it } from 'vitest';
import { PlanJsonSchema } from '../../cli/plan-json';
import { run } from '../../cli/run';
import { FakeIO, nodeClass, nodePool, pod, withDefaultPool, yamlStream } from './fixtures';

async function cli(argv: string[], files: Record<string, string> = {}, stdin = '') {
  const io = new FakeIO(files, stdin);
  const code = await run(argv, io);
  return { code, out: io.out, err: io.err };
}

/** A spot-only NodePool that may only launch m5.large, and one pod for it. */
const M5_LARGE_SPOT = yamlStream(
  nodePool('spot', {
    requirements: [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
    ],
  }),
  nodeClass(),
  pod('app'),
);

describe('podlift', () => {
  it('prints its help with --help, -h and help', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const { code, out, err } = await cli(argv);
      expect(code).toBe(0);
      expect(out).toContain('Usage:\n  podlift <command> [options]');
      expect(out).toContain('plan ');
      expect(err).toBe('');
    }
  });

  it('prints the help of a command with --help or help <command>', async () => {
    for (const argv of [
      ['plan', '--help'],
      ['plan', 'x.yaml', '-h'],
      ['help', 'plan'],
    ]) {
      const { code, out } = await cli(argv);
      expect(code).toBe(0);
      expect(out).toContain('Usage: podlift plan [<file.yaml | ->] [options]');
      expect(out).toContain('--spot-prices <file>');
    }
  });

  it('reads the live cluster when plan gets no file, and says when there is no kubeconfig', async () => {
    const { code, err } = await cli(['plan']);
    expect(code).toBe(1);
    expect(err).toBe(
      'error: no kubeconfig found (looked at no KUBECONFIG and no home directory); pass --kubeconfig, set KUBECONFIG, or give a dump file\n',
    );
  });

  it('prints its version', async () => {
    const { code, out } = await cli(['--version']);
    expect(code).toBe(0);
    expect(out).toMatch(/^podlift \d+\.\d+\.\d+\n$/);
  });

  it.each([
    { argv: [], message: 'Usage:' },
    { argv: ['plna'], message: "error: unknown command 'plna'\nRun 'podlift --help' for usage." },
    { argv: ['--fast'], message: "error: unknown option '--fast'" },
    { argv: ['help', 'nope'], message: "unknown command 'nope'" },
    { argv: ['plan', 'in.yaml', '--fast'], message: "error: plan: unknown option '--fast'\n" },
    { argv: ['plan', 'in.yaml', '--region'], message: "Option '--region <value>' argument missing" },
    { argv: ['plan', 'in.yaml', '--output', 'yaml'], message: "--output must be table or json (got 'yaml')" },
    { argv: ['plan', 'a.yaml', 'b.yaml'], message: 'expected one input file, got 2: a.yaml b.yaml' },
    {
      argv: ['plan', 'in.yaml', '--region', 'mars-north-1'],
      message: '--region mars-north-1: no bundled prices',
    },
  ])('exits 2 on bad usage: $argv', async ({ argv, message }) => {
    const { code, out, err } = await cli(argv, { 'in.yaml': withDefaultPool() });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it('points at the command help after a usage error', async () => {
    const { err } = await cli(['plan', 'in.yaml', '--fast']);
    expect(err).toMatch(/^error: plan: .*\nRun 'podlift plan --help' for usage\.\n$/);
  });
});

describe('podlift plan', () => {
  it('prints the plan as a table by default', async () => {
    const { code, out, err } = await cli(['plan', 'in.yaml'], {
      'in.yaml': withDefaultPool(pod('a'), pod('b')),
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(
      /^Plan for us-east-1\n\nNODEPOOL +INSTANCE TYPE +CAPACITY +ZONE +PODS +\$\/HOUR\ndefault +/,
    );
    expect(out).toContain('Pods placed:    2 (2 on new nodes, 0 on existing nodes)');
  });

  it('prints JSON that conforms to the documented schema with --output json', async () => {
    const { code, out } = await cli(['plan', 'in.yaml', '--output', 'json', '--region', 'eu-west-1'], {
      'in.yaml': withDefaultPool(pod('a'), pod('b')),
    });
    expect(code).toBe(0);
    const plan = PlanJsonSchema.parse(JSON.parse(out));
    expect(plan.region).toBe('eu-west-1');
    expect(plan.summary.pods).toBe(2);
    expect(plan.nodeClaims.flatMap((c) => c.pods).sort()).toEqual(['default/a', 'default/b']);
    for (const claim of plan.nodeClaims) {
      expect(claim.zone.startsWith('eu-west-1')).toBe(true);
      expect(claim.instanceTypeOptions[0]).toBe(claim.instanceType);
    }
  });

  it("lists each NodeClaim's options as the provisioner writes them: within its NodePool's launch price band", async () => {
    const optionsFor = async (band?: string) => {
      const pool = nodePool();
      if (band !== undefined)
        pool.metadata = {
          ...(pool.metadata as object),
          annotations: { 'podlift.dev/launch-price-band': band },
        };
      const { code, out } = await cli(['plan', 'in.yaml', '--output', 'json'], {
        'in.yaml': yamlStream(pool, nodeClass(), pod('a')),
      });
      expect(code).toBe(0);
      const [claim] = PlanJsonSchema.parse(JSON.parse(out)).nodeClaims;
      return { expected: claim.instanceType, options: claim.instanceTypeOptions };
    };
    const every = await optionsFor();
    const cheapest = await optionsFor('0%');
    const some = await optionsFor('25%');
    expect(every.options.length).toBeGreaterThan(some.options.length);
    expect(some.options.length).toBeGreaterThan(cheapest.options.length);
    // The band keeps the cheapest options, in order, and the expected one among them.
    expect(some.options).toEqual(every.options.slice(0, some.options.length));
    expect(cheapest.options[0]).toBe(every.expected);
    expect(some.expected).toBe(every.expected);
  });

  it('reads standard input for -', async () => {
    const { code, out } = await cli(['plan', '-', '-o', 'json'], {}, withDefaultPool(pod('from-stdin')));
    expect(code).toBe(0);
    expect(JSON.parse(out).nodeClaims[0].pods).toEqual(['default/from-stdin']);
  });

  it('prints warnings on stderr and the plan on stdout', async () => {
    const { code, out, err } = await cli(['plan', 'in.yaml'], {
      'in.yaml': withDefaultPool(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'foo' } },
        pod('a'),
      ),
    });
    expect(code).toBe(0);
    expect(err).toBe(
      'warning: in.yaml document 2: skipping ConfigMap/foo: podlift plan does not use this kind\n',
    );
    expect(out).toContain('Plan for us-east-1');
  });

  it('exits 2 with one line naming file, document, object, field and value for invalid input', async () => {
    const { code, out, err } = await cli(['plan', 'cluster.yaml'], {
      'cluster.yaml': withDefaultPool(pod('hungry', { cpu: 'lots' })),
    });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(
      /^error: cluster\.yaml, document 2, Pod\/hungry: spec\.containers\[0\]\.resources\.requests\.cpu: .*"lots"/,
    );
    expect(err.trimEnd().split('\n')).toHaveLength(1);
  });

  it('names standard input <stdin> in errors', async () => {
    const { code, err } = await cli(['plan', '-'], {}, yamlStream(pod('lost', { nodeName: 'n9' })));
    expect(code).toBe(2);
    expect(err).toContain('error: <stdin>, document 0, Pod/lost: spec.nodeName: names no Node in the input');
  });

  it('exits 1 when the input file cannot be read', async () => {
    const { code, err } = await cli(['plan', 'nope.yaml']);
    expect(code).toBe(1);
    expect(err).toBe('error: reading nope.yaml: no such file\n');
  });

  describe('--spot-prices', () => {
    it('replaces the estimated spot price of a type in every zone', async () => {
      const { code, out } = await cli(['plan', 'in.yaml', '-o', 'json', '--spot-prices', 'spot.json'], {
        'in.yaml': M5_LARGE_SPOT,
        'spot.json': JSON.stringify({ 'm5.large': 0.0123 }),
      });
      expect(code).toBe(0);
      const [claim] = JSON.parse(out).nodeClaims;
      expect(claim).toMatchObject({ instanceType: 'm5.large', capacityType: 'spot', hourlyPrice: 0.0123 });
    });

    it('replaces the price in one zone, which then wins', async () => {
      const { code, out } = await cli(['plan', 'in.yaml', '-o', 'json', '--spot-prices', 'spot.json'], {
        'in.yaml': M5_LARGE_SPOT,
        'spot.json': JSON.stringify({ 'm5.large': { 'us-east-1c': 0.0042 } }),
      });
      expect(code).toBe(0);
      expect(JSON.parse(out).nodeClaims[0]).toMatchObject({ zone: 'us-east-1c', hourlyPrice: 0.0042 });
    });

    it('warns about instance types podlift does not know', async () => {
      const { code, err } = await cli(['plan', 'in.yaml', '--spot-prices', 'spot.json'], {
        'in.yaml': M5_LARGE_SPOT,
        'spot.json': JSON.stringify({ 'm5.lrage': 0.01 }),
      });
      expect(code).toBe(0);
      expect(err).toContain('warning: spot.json: m5.lrage is not an instance type podlift knows');
    });

    it.each([
      { text: '{ "m5.large": ', parts: ['spot.json', 'not valid JSON'] },
      { text: '[0.1]', parts: ['spot.json', '(file)', 'must be an object'] },
      { text: '{ "m5.large": -1 }', parts: ['spot.json', '["m5.large"]', '-1'] },
      { text: '{ "m5.large": "cheap" }', parts: ['spot.json', '["m5.large"]', '"cheap"'] },
      {
        text: '{ "m5.large": { "us-east-1z": 0.01 } }',
        parts: ['spot.json', 'us-east-1z', 'not a zone of the region'],
      },
    ])('exits 2 naming the file, type and value for $text', async ({ text, parts }) => {
      const { code, err } = await cli(['plan', 'in.yaml', '--spot-prices', 'spot.json'], {
        'in.yaml': M5_LARGE_SPOT,
        'spot.json': text,
      });
      expect(code).toBe(2);
      for (const part of parts) expect(err).toContain(part);
    });
  });
});
