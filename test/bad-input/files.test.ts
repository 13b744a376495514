import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../cli/run';
import { nodePoolParameters } from '../../infra/parts/node-pool-parameters';
import { ValidationError } from '../../shared/core/model/errors';
import { runSimulator, type SimulatorIo } from '../../sim/cli/run';
import { FakeIO, withDefaultPool } from '../cli/fixtures';
import {
  aliasBomb,
  deepBlock,
  deepFlow,
  mergeKeyBomb,
  nodePoolYaml,
  selfReference,
} from './hostile-documents';

// Hostile YAML files given to `podlift plan`, to the simulator as a scenario and to the CDK
// construct as NodePool files (issue 20, item 1): each is refused with a clear error naming the
// file and the reason, exit 2 for the commands, quickly and without running out of memory.

const dir = mkdtempSync(join(tmpdir(), 'podlift-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Hostile documents; `podlift plan` reads each after a valid NodePool and EC2NodeClass (mid-stream). */
const FILES: readonly { readonly what: string; readonly text: string; readonly says: string }[] = [
  { what: 'an alias bomb', text: aliasBomb(), says: 'aliases resolved' },
  { what: 'a merge-key bomb', text: mergeKeyBomb(), says: 'aliases resolved' },
  { what: 'a self-referencing document', text: selfReference, says: 'refers to itself' },
  {
    what: '300,000 nested flow sequences',
    text: deepFlow(300_000),
    says: 'nests more than 1000 flow collections',
  },
  { what: '200 nested block mappings', text: deepBlock(200), says: 'nested more than 100 levels deep' },
  {
    what: 'a 3 MB document',
    text: `kind: Pod\ndata: "${'x'.repeat(3_000_000)}"\n`,
    says: 'more than 1572864 bytes',
  },
  { what: 'a syntax error', text: 'kind: Pod\nmetadata: [\n', says: 'not valid YAML' },
];

const stream = (text: string) => `${withDefaultPool()}---\n${text}`;

describe('podlift plan: hostile input files', () => {
  it.each(FILES)('exits 2 on $what, naming the file, the document and the reason', async ({ text, says }) => {
    const io = new FakeIO({ 'in.yaml': stream(text) });
    const code = await run(['plan', 'in.yaml'], io);
    expect(code).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toContain('in.yaml');
    expect(io.err).toContain(says);
    expect(io.err.length).toBeLessThan(2000);
  });

  it('exits 2 on an alias bomb as a process limited to 128 MB of heap (no memory blow-up)', async () => {
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, stream(`${nodePoolYaml('bomb')}${aliasBomb(9, 10, '  ')}\n`));
    const outcome = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=128', 'bin/podlift.mjs', 'plan', file],
      { cwd: new URL('../..', import.meta.url) },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('bomb.yaml, document 2');
    expect(outcome.stderr).toContain('aliases resolved');
  });
});

describe('scenario files: hostile YAML', () => {
  it.each(FILES)('exits 2 on $what, naming the file and the reason', async ({ text, says }) => {
    const file = join(dir, 'scenario.yaml');
    writeFileSync(file, `name: hostile\nduration: 1m\n${text.startsWith('kind') ? '' : 'x: '}${text}`);
    const err: string[] = [];
    const io: SimulatorIo = {
      stdout: () => undefined,
      stderr: (s) => err.push(s),
      writeFile: async () => undefined,
      tty: false,
      now: () => 0,
    };
    expect(await runSimulator([file], io)).toBe(2);
    const message = err.join('');
    expect(message).toContain(file);
    expect(message.length).toBeLessThan(2000);
    // The scenario text nests the hostile document one level down (or holds a key twice).
    expect(message).toMatch(new RegExp(`${escapeRegExp(says)}|not valid YAML|Map keys must be unique`));
  });
});

describe('the CDK construct: hostile NodePool files fail the synth with the reader the functions use', () => {
  it.each(FILES)('refuses $what, naming the file', ({ text, says }) => {
    const file = join(dir, 'nodepools.yaml');
    writeFileSync(file, `${nodePoolYaml('good')}---\n${text}`);
    let error: unknown;
    try {
      nodePoolParameters('demo', { files: [file] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).location.source).toBe(file);
    expect((error as ValidationError).message).toContain(says);
  });
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
