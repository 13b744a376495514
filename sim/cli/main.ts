import { writeFile } from 'node:fs/promises';
import { runSimulator } from './run';

/**
 * `npm start`: wires the simulator command to the process. Everything else lives in run.ts,
 * which tests drive in-process.
 */
// The simulator's SDK clients talk to local fakes; the SDK's notice that releases after January
// 2027 need Node 22 says nothing about them, so it is not printed over the demo's log.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
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
