import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PlanJsonSchema } from '../../cli/plan-json';

describe('bin/podlift.mjs', () => {
  it('runs the CLI as installed: plans examples/inflate.yaml as JSON', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['bin/podlift.mjs', 'plan', 'examples/inflate.yaml', '--output', 'json'],
      { cwd: new URL('../..', import.meta.url) },
    );
    expect(stderr).toBe('');
    expect(PlanJsonSchema.parse(JSON.parse(stdout)).summary.pods).toBe(10);
  });
});
