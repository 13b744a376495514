import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { text } from 'node:stream/consumers';
import type { CliIO } from './command-support';
import { run } from './run';

/**
 * Runs the `podlift` command as this process: its arguments, standard streams, files and
 * environment wired to the CLI (run.ts, which tests drive in-process), the exit code set.
 * `extra` adds what the process entry provides beyond them (the simulator's rollout player).
 */
export async function runAsProcess(extra: Partial<Pick<CliIO, 'playRollout'>> = {}): Promise<void> {
  // `podlift plan ... | head` closes the pipe early; that is not a failure.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  process.exitCode = await run(process.argv.slice(2), {
    stdin: () => text(process.stdin),
    stdout: (s) => {
      process.stdout.write(s);
    },
    stderr: (s) => {
      process.stderr.write(s);
    },
    readFile: (path) => readFile(path, 'utf8'),
    ...(process.env.KUBECONFIG !== undefined ? { kubeconfigEnv: process.env.KUBECONFIG } : {}),
    homeDir: homedir(),
    writeFile: (path, text) => writeFile(path, text, 'utf8'),
    ...extra,
  });
}
