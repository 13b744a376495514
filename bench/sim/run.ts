import { parseArgs } from 'node:util';
import { formatSimFigures, measureSimFigures, SIM_RESULT_MARKER } from './figures';

/**
 * `npm run bench:sim`: the simulator's figures alone (figures.ts); `npm run bench` runs this file
 * in a child process with `--json` for its `sim` part. Prints figures; never fails on a missed
 * target.
 */

const USAGE = `Usage: npm run bench:sim -- [--pods <n>] [--bursts <n>] [--json]

Measures, in the simulator: pending pod → CreateFleet p50/p99 over bursts of 5 pods, and a
scale-out of <n> pods (default 1000): simulated time until all run, requested ÷ allocatable.`;

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '1000' },
    bursts: { type: 'string', default: '6' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
const pods = Number(values.pods);
const bursts = Number(values.bursts);
if (values.help) {
  console.log(USAGE);
} else if (!Number.isInteger(pods) || pods <= 0 || !Number.isInteger(bursts) || bursts <= 0) {
  console.error(
    `bench:sim: --pods ${JSON.stringify(values.pods)} / --bursts ${JSON.stringify(values.bursts)}: expected positive integers\n\n${USAGE}`,
  );
  process.exitCode = 2;
} else {
  const figures = await measureSimFigures({ pods, bursts });
  if (values.json) process.stdout.write(`${SIM_RESULT_MARKER}${JSON.stringify(figures)}\n`);
  else console.log(formatSimFigures(figures).join('\n'));
}
