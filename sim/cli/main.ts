import { writeFile } from 'node:fs/promises';
import { runSimulator } from './run';

/**
 * `npm start`: wires the simulator command to the process. Everything else lives in run.ts,
 * which tests drive in-process.
 */
process.exitCode = await runSimulator(process.argv.slice(2), {
  stdout: (s) => {
    process.stdout.write(s);
  },
  stderr: (s) => {
    process.stderr.write(s);
  },
  writeFile: (path, text) => writeFile(path, text, 'utf8'),
  tty: process.stderr.isTTY === true,
  now: () => Date.now(),
});
