import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  commandsOf,
  type DocCommand,
  outputMismatch,
  parseCheck,
  programOf,
  runCommand,
} from './doc-commands';
import { documentationPages, type FencedBlock, fencedBlocks, SHELL_LANGUAGES } from './markdown';

/**
 * The commands README.md and docs/*.md show are run, and their output checked, so the docs
 * cannot go stale: a renamed flag, a changed plan or a new line of help fails here. How to mark
 * a block is in docs/development.md ("Docs").
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const blocks = documentationPages(ROOT).flatMap(fencedBlocks);
const shellBlocks = blocks.filter((b) => SHELL_LANGUAGES.has(b.language));
const checked: DocCommand[] = shellBlocks
  .filter((b): b is FencedBlock & { marker: { kind: 'check'; spec: string } } => b.marker.kind === 'check')
  .flatMap((b) => commandsOf(b, parseCheck(b.marker.spec)));

describe('the commands the docs show', () => {
  it('are in blocks that are each checked, or skipped with a reason', () => {
    const unmarked = shellBlocks
      .filter((b) => b.marker.kind === 'none' || (b.marker.kind === 'skip' && b.marker.reason === ''))
      .map((b) => `${b.page}:${b.line}`);
    expect(unmarked).toEqual([]);
    expect(shellBlocks.filter((b) => b.marker.kind === 'check').length).toBeGreaterThan(0);
  });

  it('mark only shell blocks', () => {
    const stray = blocks.filter((b) => !SHELL_LANGUAGES.has(b.language) && b.marker.kind !== 'none');
    expect(stray.map((b) => `${b.page}:${b.line} (${b.language || 'no language'})`)).toEqual([]);
  });

  for (const doc of checked) {
    it(`${doc.where}: ${doc.command}`, async () => {
      const ran = await runCommand(programOf(doc.command, doc.output !== undefined));
      const said = `exit ${ran.exit}\n--- stdout ---\n${ran.stdout}--- stderr ---\n${ran.stderr}`;
      expect(ran.exit, said).toBe(doc.expect.exit);
      if (doc.expect.noStderr) expect(ran.stderr, said).toBe('');
      for (const { stream, text } of doc.expect.contains) {
        const where = stream === 'stdout' ? ran.stdout : stream === 'stderr' ? ran.stderr : ran.combined;
        expect(where, said).toContain(text);
      }
      if (doc.output !== undefined) expect(outputMismatch(doc.output, ran.combined)).toBeUndefined();
    });
  }
});
