import { describe, expect, it } from 'vitest';
import { commandsOf, outputMismatch, parseCheck, programOf, words } from './doc-commands';
import { fencedBlocks, headingAnchors } from './markdown';

// The docs test's own reading of pages: if it read a marker, a block or an output wrongly, a
// stale doc could pass.

describe('the docs test', () => {
  it('reads check markers, and refuses one it does not know', () => {
    expect(parseCheck('exit 2, no stderr, stdout contains "a, b", contains "\\"q\\""')).toEqual({
      exit: 2,
      noStderr: true,
      contains: [
        { stream: 'stdout', text: 'a, b' },
        { stream: 'any', text: '"q"' },
      ],
    });
    expect(parseCheck('')).toEqual({ exit: 0, noStderr: false, contains: [] });
    expect(() => parseCheck('exits 0')).toThrow(/unknown check "exits 0"/);
  });

  it('finds a block, its language and the marker above it, across a blank line', () => {
    const page = {
      path: 'p.md',
      lines: ['<!-- skip: needs AWS -->', '', '```sh', 'npx cdk deploy', '```', '```', 'x', '```'],
    };
    const [marked, plain] = fencedBlocks(page);
    expect(marked).toMatchObject({
      line: 3,
      language: 'sh',
      body: ['npx cdk deploy'],
      marker: { kind: 'skip', reason: 'needs AWS' },
    });
    expect(plain).toMatchObject({ language: '', marker: { kind: 'none' } });
  });

  it('splits console blocks into commands and their output, and sh blocks into commands', () => {
    const expectation = parseCheck('');
    const console = commandsOf(
      {
        page: 'p.md',
        line: 1,
        language: 'console',
        body: ['$ podlift a', 'out 1', 'out 2', '$ podlift b'],
        marker: { kind: 'none' },
      },
      expectation,
    );
    expect(console.map((c) => [c.where, c.command, c.output])).toEqual([
      ['p.md:2', 'podlift a', ['out 1', 'out 2']],
      ['p.md:5', 'podlift b', []],
    ]);
    const sh = commandsOf(
      {
        page: 'p.md',
        line: 1,
        language: 'sh',
        body: ['# a comment', 'podlift plan x.yaml   # why', '', 'podlift plan \\', '  y.yaml'],
        marker: { kind: 'none' },
      },
      expectation,
    );
    expect(sh.map((c) => c.command)).toEqual(['podlift plan x.yaml', 'podlift plan    y.yaml']);
  });

  it('runs podlift and the simulator however the docs spell them, and nothing that needs a shell', () => {
    expect(programOf('npx podlift plan "my file.yaml" -o json', true)).toEqual({
      program: 'podlift',
      args: ['plan', 'my file.yaml', '-o', 'json'],
    });
    expect(programOf('npm run --silent podlift -- plan x.yaml', true).args).toEqual(['plan', 'x.yaml']);
    expect(programOf('npm start -- --help', false)).toEqual({ program: 'simulator', args: ['--help'] });
    expect(programOf('npx tsx sim/cli/main.ts a.yaml', true)).toEqual({
      program: 'simulator',
      args: ['a.yaml'],
    });
    expect(() => programOf('npm start -- --help', true)).toThrow(/npm prints its own header/);
    expect(() => programOf('npm start --help', false)).toThrow(/after "--"/);
    expect(() => programOf('kubectl get pods', false)).toThrow(/no in-process runner/);
    expect(() => words('cat x | podlift plan -')).toThrow(/need a shell/);
    expect(() => words('npm ci && npm start')).toThrow(/need a shell/);
  });

  it('compares output line by line, with ... for lines left out', () => {
    expect(outputMismatch(['a', 'b', ''], 'a\nb  \n\n')).toBeUndefined();
    expect(outputMismatch(['a', '...', 'd'], 'a\nb\nc\nd\n')).toBeUndefined();
    expect(outputMismatch(['a', '...', 'd'], 'a\nd\n')).toBeUndefined();
    expect(outputMismatch(['a', 'b'], 'a\nc\n')).toMatch(/shown line 2: "b", printed: "c"/);
    expect(outputMismatch(['a'], 'a\nb\n')).toMatch(/shown line 2: "\(end\)", printed: "b"/);
    expect(outputMismatch(['a', '...', 'd'], 'a\nb\nc\n')).toBeDefined();
  });

  it('names headings as GitHub anchors them, outside code blocks', () => {
    const page = {
      path: 'p.md',
      lines: [
        '# Soak (not part of `npm test`)',
        "## The stack's IAM",
        '```sh',
        '# not a heading',
        '```',
        "## The stack's IAM",
      ],
    };
    expect([...headingAnchors(page)]).toEqual([
      'soak-not-part-of-npm-test',
      'the-stacks-iam',
      'the-stacks-iam-1',
    ]);
  });
});
