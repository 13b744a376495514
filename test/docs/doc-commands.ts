import { readFile } from 'node:fs/promises';
import { run as runPodlift } from '../../cli/run';
import { runSimulator } from '../../sim/cli/run';
import type { FencedBlock } from './markdown';

/** One command a page shows, with what the page expects of it. */
export interface DocCommand {
  /** `page:line`, for the test's name and its failures. */
  readonly where: string;
  readonly command: string;
  readonly expect: Expectation;
  /** For a `console` block: the output lines shown under the command. */
  readonly output?: readonly string[];
}

/** What a `check:` marker asks: `exit <code>`, `no stderr`, `[stdout |stderr ]contains "…"`. */
export interface Expectation {
  readonly exit: number;
  readonly noStderr: boolean;
  readonly contains: readonly { readonly stream: 'stdout' | 'stderr' | 'any'; readonly text: string }[];
}

/** Parses a `check:` marker's text; anything it does not know is an error naming it. */
export function parseCheck(spec: string): Expectation {
  let exit = 0;
  let noStderr = false;
  const contains: { stream: 'stdout' | 'stderr' | 'any'; text: string }[] = [];
  // Items are separated by commas outside quotes; quoted text is JSON (\" and \\ escapes).
  const items = spec.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    const exitMatch = /^exit (\d+)$/.exec(item);
    const containsMatch = /^(stdout |stderr )?contains ("(?:[^"\\]|\\.)*")$/.exec(item);
    if (exitMatch !== null) exit = Number(exitMatch[1]);
    else if (item === 'no stderr') noStderr = true;
    else if (containsMatch !== null)
      contains.push({
        stream: (containsMatch[1]?.trim() as 'stdout' | 'stderr' | undefined) ?? 'any',
        text: JSON.parse(containsMatch[2]!) as string,
      });
    else
      throw new Error(
        `unknown check ${JSON.stringify(item)} (exit <n>, no stderr, [stdout |stderr ]contains "…")`,
      );
  }
  return { exit, noStderr, contains };
}

/**
 * The commands of a checked block. In a `console` block each `$ ` line is a command and the
 * lines up to the next one are its output; elsewhere every line is a command, comments and blank
 * lines aside, `\` continuing a line.
 */
export function commandsOf(block: FencedBlock, expect: Expectation): DocCommand[] {
  const where = (offset: number) => `${block.page}:${block.line + 1 + offset}`;
  const commands: DocCommand[] = [];
  if (block.language === 'console') {
    block.body.forEach((line, i) => {
      if (line.startsWith('$ '))
        commands.push({ where: where(i), command: line.slice(2), expect, output: [] });
      else if (commands.length === 0) throw new Error(`${where(i)}: console output before any "$ " command`);
      else (commands.at(-1)!.output as string[]).push(line);
    });
    return commands;
  }
  let pending = '';
  block.body.forEach((line, i) => {
    const text = line.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (text.trim() === '' && pending === '') return;
    if (text.endsWith('\\')) {
      pending += `${text.slice(0, -1)} `;
      return;
    }
    commands.push({ where: where(i), command: (pending + text).trim(), expect });
    pending = '';
  });
  return commands;
}

/** Splits a command line as a shell would, refusing what only a shell could run. */
export function words(command: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if ('|&;<>$`()'.includes(c)) {
      throw new Error(
        `${JSON.stringify(c)}: pipes, redirections, && and substitutions need a shell; skip this block`,
      );
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** Which program a command runs, and its arguments. */
export type Program = { readonly program: 'podlift' | 'simulator'; readonly args: readonly string[] };

/**
 * The in-process program behind a command the docs show: `podlift` as `npx podlift`,
 * `podlift`, `node bin/podlift.mjs` or `npm run [--silent] podlift --`; the simulator as
 * `npm start [--]` or `npx tsx sim/cli/main.ts`. npm prints a header of its own before a script
 * unless `--silent`, so where the output is shown (`console`) only `--silent` scripts will do.
 */
export function programOf(command: string, showsOutput: boolean): Program {
  const argv = words(command);
  const after = (n: number) => argv.slice(n);
  const npmScript = (script: string): readonly string[] | undefined => {
    if (argv[0] !== 'npm') return undefined;
    const silent = argv.includes('--silent');
    const rest = argv.slice(1).filter((a) => a !== '--silent');
    const scriptArgs =
      rest[0] === 'run' && rest[1] === script
        ? rest.slice(2)
        : script === 'start' && rest[0] === 'start'
          ? rest.slice(1)
          : undefined;
    if (scriptArgs === undefined) return undefined;
    if (showsOutput && !silent)
      throw new Error(
        `npm prints its own header before "${script}": show "npm run --silent" or the program itself`,
      );
    if (scriptArgs.length > 0 && scriptArgs[0] !== '--')
      throw new Error(`npm takes the script's arguments after "--": ${command}`);
    return scriptArgs.slice(1);
  };
  if (argv[0] === 'npx' && argv[1] === 'podlift') return { program: 'podlift', args: after(2) };
  if (argv[0] === 'podlift') return { program: 'podlift', args: after(1) };
  if (argv[0] === 'node' && argv[1] === 'bin/podlift.mjs') return { program: 'podlift', args: after(2) };
  if (argv[0] === 'npx' && argv[1] === 'tsx' && argv[2] === 'sim/cli/main.ts')
    return { program: 'simulator', args: after(3) };
  const podliftArgs = npmScript('podlift');
  if (podliftArgs !== undefined) return { program: 'podlift', args: podliftArgs };
  const startArgs = npmScript('start');
  if (startArgs !== undefined) return { program: 'simulator', args: startArgs };
  throw new Error(`no in-process runner for "${command}": run podlift or the simulator, or skip the block`);
}

/** What a command did: its exit code and its output, each stream and both in write order. */
export interface Ran {
  readonly exit: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly combined: string;
}

/** Runs a command in-process, from the repository root (the working directory of `npm test`). */
export async function runCommand(program: Program): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  let combined = '';
  const out = (s: string) => {
    stdout += s;
    combined += s;
  };
  const err = (s: string) => {
    stderr += s;
    combined += s;
  };
  const exit =
    program.program === 'podlift'
      ? await runPodlift([...program.args], {
          stdin: async () => '',
          stdout: out,
          stderr: err,
          readFile: (path) => readFile(path, 'utf8'),
        })
      : await runSimulator(program.args, {
          stdout: out,
          stderr: err,
          // A documented --report is written nowhere: the docs must not leave files behind.
          writeFile: async () => {},
          tty: false,
          now: () => Date.now(),
        });
  return { exit, stdout, stderr, combined };
}

/**
 * Whether `actual` is the output a page shows: line by line, trailing spaces and blank lines at
 * the end aside; a shown line `...` stands for any number of lines. Returns the first mismatch.
 */
export function outputMismatch(shown: readonly string[], actual: string): string | undefined {
  const trim = (lines: readonly string[]) => {
    const out = lines.map((l) => l.trimEnd());
    while (out.length > 0 && out.at(-1) === '') out.pop();
    return out;
  };
  const want = trim(shown);
  const got = trim(actual.split('\n'));
  const match = (w: number, g: number): boolean => {
    if (w === want.length) return g === got.length;
    if (want[w] === '...') {
      for (let k = g; k <= got.length; k++) if (match(w + 1, k)) return true;
      return false;
    }
    return g < got.length && got[g] === want[w] && match(w + 1, g + 1);
  };
  if (match(0, 0)) return undefined;
  const firstDiff = want.findIndex((line, i) => line !== '...' && line !== got[i]);
  const i = firstDiff < 0 ? Math.min(want.length, got.length) : firstDiff;
  return `shown line ${i + 1}: ${JSON.stringify(want[i] ?? '(end)')}, printed: ${JSON.stringify(got[i] ?? '(end)')}\n--- printed ---\n${got.join('\n')}`;
}
