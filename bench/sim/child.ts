import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SIM_RESULT_MARKER, SIM_TARGETS, type SimFigures } from './figures';

/**
 * The simulator's figures from `bench/sim/run.ts --json` in a fresh Node process, as the
 * scheduler sizes run: its fake API server, virtual clock and 1,000-pod world stay out of this
 * process's heap and timers.
 */
export function simInChild(progress: (message: string) => void): SimFigures {
  progress('simulator: pending pod → CreateFleet, then a 1,000-pod scale-out (virtual time)…');
  const child = spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('run.ts', import.meta.url)), '--json'],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
  const line = child.stdout.split('\n').find((l) => l.startsWith(SIM_RESULT_MARKER));
  if (child.status !== 0 || line === undefined) {
    throw new Error(
      `measuring the simulator figures in bench/sim/run.ts --json: exit ${child.status ?? child.signal}, no result line`,
    );
  }
  return JSON.parse(line.slice(SIM_RESULT_MARKER.length)) as SimFigures;
}

/** The simulator figures as `npm run bench --json` shows them: with their targets and sample count. */
export function simJson(f: SimFigures | undefined) {
  if (!f) return null;
  const { delaysMs, ...pendingToFleet } = f.pendingToFleet;
  return {
    targets: SIM_TARGETS,
    pendingToFleet: { ...pendingToFleet, pods: delaysMs.length, delaysMs },
    scaleOut: f.scaleOut,
  };
}
