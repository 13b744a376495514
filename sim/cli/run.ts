import { fileURLToPath } from 'node:url';
import { renderHtmlReport } from '../report/html';
import { loadScenarioFile, ScenarioError } from '../scenario/load';
import { runScenario, ScenarioStepError } from '../scenario/run';
import type { Simulation } from '../world/simulation';
import { clockOf, logLine, summaryText } from './summary';

/** The built-in demo `npm start` plays. */
export const DEMO_SCENARIO = fileURLToPath(new URL('../../examples/scenarios/demo.yaml', import.meta.url));

/** What the simulator command talks to; main.ts wires it to the process, tests to buffers. */
export interface SimulatorIo {
  stdout(text: string): void;
  stderr(text: string): void;
  writeFile(path: string, text: string): Promise<void>;
  /** Whether stderr is a terminal (the progress line is shown only then). */
  readonly tty: boolean;
  /** Wall clock in ms, for the summary's wall time. */
  now(): number;
}

export const USAGE = `usage: npm start -- [options] [<file.yaml>]

Plays podlift's whole loop in a simulated cluster and region: the real watcher, the real Lambda
handlers, adapters and SDK clients, with only the endpoints faked, on a virtual clock.
Without --scenario it plays the built-in demo (examples/scenarios/demo.yaml).

options:
  <file.yaml>             play a scenario file (format: docs/simulator.md, "Scenario files")
  --scenario <file.yaml>  the same
  --report <file.html>    also write a self-contained HTML report of the run
  --speed <x>             play at x times real time (default: as fast as possible)
  --quiet                 print only the summary
  --help                  show this help

exit status: 0 when every expectation of the scenario held, 1 when one did not, 2 on bad usage.
`;

interface Flags {
  scenario: string;
  report?: string;
  speed?: number;
  quiet: boolean;
}

/** Parses argv; a string is a usage error. */
export function parseFlags(argv: readonly string[]): Flags | 'help' | string {
  const flags: Flags = { scenario: DEMO_SCENARIO, quiet: false };
  let scenarioGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--help' || arg === '-h') return 'help';
      if (arg === '--scenario' || !arg.startsWith('-')) {
        if (scenarioGiven) return `one scenario file at a time; ${JSON.stringify(arg)} is one too many`;
        scenarioGiven = true;
        flags.scenario = arg === '--scenario' ? value() : arg;
      } else if (arg === '--report') flags.report = value();
      else if (arg === '--quiet') flags.quiet = true;
      else if (arg === '--speed') {
        const raw = value();
        const speed = Number(raw);
        if (!Number.isFinite(speed) || speed <= 0)
          return `--speed: expected a positive number, got ${JSON.stringify(raw)}`;
        flags.speed = speed;
      } else return `unknown option ${JSON.stringify(arg)}`;
    } catch (error) {
      return (error as Error).message;
    }
  }
  return flags;
}

/** Runs the simulator command; returns the exit code. */
export async function runSimulator(argv: readonly string[], io: SimulatorIo): Promise<number> {
  const flags = parseFlags(argv);
  if (flags === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (typeof flags === 'string') {
    io.stderr(`${flags}\n\n${USAGE}`);
    return 2;
  }
  let scenario: ReturnType<typeof loadScenarioFile>;
  try {
    scenario = loadScenarioFile(flags.scenario);
  } catch (error) {
    if (error instanceof ScenarioError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const started = io.now();
  let lastProgress = 0;
  const progress = (elapsed: number, total: number, sim: Simulation) => {
    if (!io.tty || io.now() - lastProgress < 200) return;
    lastProgress = io.now();
    const s = sim.samples.at(-1);
    io.stderr(
      `\r\x1b[2K${clockOf(elapsed)} / ${clockOf(total).slice(1)}  pods ${s?.runningPods ?? 0} running, ${s?.pendingPods ?? 0} pending  $${(s?.dollarsPerHour ?? 0).toFixed(3)}/h`,
    );
  };
  const clearProgress = () => {
    if (io.tty) io.stderr('\r\x1b[2K');
  };
  io.stdout(
    `podlift simulator: ${scenario.name}${scenario.description ? ` — ${scenario.description.trim()}` : ''}\n`,
  );
  let record: Awaited<ReturnType<typeof runScenario>>;
  try {
    record = await runScenario(scenario, {
      ...(flags.quiet
        ? {}
        : {
            onDecision: (entry) => {
              clearProgress();
              io.stdout(`${logLine(entry)}\n`);
            },
          }),
      onProgress: progress,
      ...(flags.speed !== undefined ? { speed: flags.speed } : {}),
    });
  } catch (error) {
    if (!(error instanceof ScenarioStepError)) throw error;
    clearProgress();
    io.stderr(`${flags.scenario}: the scenario cannot go on: ${error.message}\n`);
    return 2;
  }
  clearProgress();
  io.stdout(summaryText(record, io.now() - started));
  if (flags.report) {
    try {
      await io.writeFile(flags.report, renderHtmlReport(record));
      io.stdout(`report written to ${flags.report}\n`);
    } catch (error) {
      io.stderr(`${(error as Error).message}\n`);
      return 1;
    }
  }
  const failed = record.expectations.filter((e) => !e.held);
  for (const e of failed)
    io.stderr(`expectation failed: ${e.description}${e.detail ? ` (${e.detail})` : ''}\n`);
  return failed.length === 0 ? 0 : 1;
}
