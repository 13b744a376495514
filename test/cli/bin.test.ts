import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshBundle } from '../../bin/bundle.mjs';
import type { DiffJson } from '../../cli/diff-output';
import { PlanJsonSchema } from '../../cli/plan-json';

const root = new URL('../..', import.meta.url);
const run = promisify(execFile);

describe('bin/podlift.mjs', () => {
  it('runs the CLI as installed: plans examples/inflate.yaml as JSON', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      ['bin/podlift.mjs', 'plan', 'examples/inflate.yaml', '--output', 'json'],
      { cwd: root },
    );
    expect(stderr).toBe('');
    expect(PlanJsonSchema.parse(JSON.parse(stdout)).summary.pods).toBe(10);
  });
});

describe('sim/cli/podlift.ts', () => {
  it('plays podlift diff’s rollout in a process of its own, from any directory', async () => {
    const cli = fileURLToPath(new URL('bin/podlift.mjs', root));
    const example = (name: string) => fileURLToPath(new URL(`examples/diff/${name}`, root));
    const { stdout } = await run(
      process.execPath,
      [
        cli,
        'diff',
        example('web-nodepool.yaml'),
        example('cluster.yaml'),
        '-o',
        'json',
        '--max-duration',
        '1s',
      ],
      { cwd: tmpdir() },
    );
    const rollout = (JSON.parse(stdout) as DiffJson).rollout;
    expect(rollout?.claims.map((c) => c.nodeClaim)).toEqual(['web-a', 'web-b', 'web-c']);
    expect(rollout?.finished).toBe(false);
  }, 120_000);
});

describe('cli/build.mjs', () => {
  let outdir: string;
  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'podlift-cli-bundle-'));
  });
  afterAll(async () => {
    await rm(outdir, { recursive: true, force: true });
  });

  it('bundles a CLI that prints the same plan as the TypeScript sources', async () => {
    await run(process.execPath, ['cli/build.mjs', '--outdir', outdir], { cwd: root });
    const args = ['plan', 'examples/inflate.yaml', '--output', 'table'];
    const bundled = await run(process.execPath, [join(outdir, 'podlift.mjs'), ...args], { cwd: root });
    const sources = await run(process.execPath, ['--import', 'tsx', 'sim/cli/podlift.ts', ...args], {
      cwd: root,
    });
    expect(bundled.stderr).toBe('');
    expect(bundled.stdout).toContain('Plan for us-east-1');
    expect(bundled.stdout).toBe(sources.stdout);
  });
});

describe('freshBundle', () => {
  let dir: string;
  const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1000);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'podlift-fresh-'));
    await mkdir(join(dir, 'dist/cli'), { recursive: true });
    await mkdir(join(dir, 'cli'));
    await writeFile(join(dir, 'cli/main.ts'), '');
    await writeFile(join(dir, 'cli/run.ts'), '');
    await writeFile(join(dir, 'dist/cli/podlift.mjs'), '');
    await writeFile(join(dir, 'dist/cli/inputs.json'), JSON.stringify(['cli/main.ts', 'cli/run.ts']));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const stamp = async (bundle: number, main: number, runTs: number) => {
    await utimes(join(dir, 'dist/cli/podlift.mjs'), at(bundle), at(bundle));
    await utimes(join(dir, 'cli/main.ts'), at(main), at(main));
    await utimes(join(dir, 'cli/run.ts'), at(runTs), at(runTs));
  };

  it('uses the bundle when no source is newer', async () => {
    await stamp(10, 5, 10);
    expect(freshBundle(dir)).toBe(join(dir, 'dist/cli/podlift.mjs'));
  });

  it('falls back to the sources when any one source was edited after the build', async () => {
    await stamp(10, 5, 11);
    expect(freshBundle(dir)).toBeUndefined();
  });

  it('falls back when a source it was built from is gone, or there is no bundle', async () => {
    await stamp(10, 5, 5);
    await writeFile(join(dir, 'dist/cli/inputs.json'), JSON.stringify(['cli/main.ts', 'cli/gone.ts']));
    expect(freshBundle(dir)).toBeUndefined();
    expect(freshBundle(dir, 'dist/none')).toBeUndefined();
  });
});
