import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CostReport } from '../../sim/soak/cost-report';
import { formatCostReport } from '../../sim/soak/cost-report';

/** The soak seeds and length `npm run bench` reports the running cluster's cost for. */
export const BENCH_SOAK_SEEDS = [1, 2] as const;
export const BENCH_SOAK_STEPS = 100;

/** What `npm run soak -- --json` prints of one run, as the bench reads it. */
export interface SoakFigures {
  readonly seed: number;
  readonly steps: number;
  readonly violations: number;
  readonly podsLost: number;
  readonly orphans: number;
  readonly notFinalized: number;
  readonly cost: CostReport;
  readonly digest: string;
}

/**
 * One soak in a fresh Node process (`sim/soak/main.ts --json`), as the scheduler sizes run: its
 * world, fake API server and LP solves stay out of the bench's heap.
 */
export function soakInChild(seed: number, progress: (message: string) => void): SoakFigures {
  progress(`soak seed ${seed}, ${BENCH_SOAK_STEPS} steps: the running cluster's cost against the bound…`);
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL('../../sim/soak/main.ts', import.meta.url)),
      '--seed',
      String(seed),
      '--steps',
      String(BENCH_SOAK_STEPS),
      '--json',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
  if (line === undefined) {
    throw new Error(
      `soak seed ${seed} (sim/soak/main.ts --json): exit ${child.status ?? child.signal}, no result`,
    );
  }
  return JSON.parse(line) as SoakFigures;
}

/** The soak section of `npm run bench`. */
export function formatSoakFigures(runs: readonly SoakFigures[]): string[] {
  return [
    '',
    '8. The running cluster: cost ÷ the configuration-LP bound over a soak (npm run soak)',
    ...runs.flatMap((r) => [
      `seed ${r.seed}, ${r.steps} steps: ${r.violations} violations, ${r.podsLost} pods lost, ${r.orphans} orphans, ${r.notFinalized} unfinalized; digest ${r.digest.slice(0, 8)}…`,
      formatCostReport(r.cost),
    ]),
  ];
}
