import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_REGION, type BenchEnvironment, loadEnvironment } from './environment';
import { parseGcTrace, runPeaks } from './gc-trace';
import { planInflate } from './inflate';
import { type Measurement, type MeasureTask, measure } from './measure';
import { formatQuality, measureQuality, qualityWorkloads } from './quality';
import { printSchedulerReport, type SizedResult } from './scheduler-report';
import { simInChild, simJson } from './sim/child';
import { formatSimFigures } from './sim/figures';
import { BENCH_SOAK_SEEDS, formatSoakFigures, soakInChild } from './soak/child';
import { formatSystemFigures, systemFigures } from './system';
import { WORKLOAD_SHAPES, type WorkloadShape } from './workload';

/**
 * `npm run bench`: scheduler throughput on Karpenter's benchmark workload and packing quality
 * against an LP lower bound, then the watcher, function and simulator figures. Prints figures and whether each meets its target; it never fails
 * on a missed target (benchmarks are not tests). Each size runs in its own Node process with
 * `--expose-gc --trace-gc`, so heap figures are per size and exact (gc-trace.ts).
 */

const PARTS = ['scheduler', 'churn', 'footprint', 'bundles', 'sim', 'soak'] as const;
/** NODE_OPTIONS --max-old-space-size in manifests/watcher-deployment.yaml. */
const DEPLOYMENT_HEAP_MB = 160;

const USAGE = `Usage: npm run bench -- [options]

Times podlift's scheduler on Karpenter's scheduling benchmark workload (1k, 5k, 10k, 20k pods)
against the full ${BENCH_REGION} catalog, and compares plan cost with an LP lower bound.

Options:
  --json             print one JSON document instead of tables
  --shape <shape>    throughput workload: ${WORKLOAD_SHAPES.join(', ')} (default karpenter)
  --sizes <list>     throughput sizes, comma-separated (default 1000,5000,10000,20000)
  --budget <s>       seconds of timed runs per size before stopping short of 3 (default 15)
  --quality          print only the plan-cost table: podlift against the configuration-LP
                     bound and Karpenter's decision before consolidation (quality.ts)
  --only <pods>      time one size in this process and print it (for node --cpu-prof);
                     no child process, so heap is heapTotal only
  --parts <list>     what to measure, comma-separated: scheduler, churn (watcher hints under
                     churn), footprint (watcher memory and sync), bundles (function bundle
                     size and cold init), sim (pending pod → CreateFleet and a
                     1,000-pod scale-out in the simulator, bench/sim), soak (the running
                     cluster's cost ÷ bound by phase and evictions per hour, soak seeds
                     ${BENCH_SOAK_SEEDS.join(' and ')}, bench/soak); default all
  --watcher-pods <list>  footprint pod counts (default 10000)
  --watcher-heap <MB>    footprint --max-old-space-size (default ${DEPLOYMENT_HEAP_MB}, the Deployment's)
  -h, --help         show this help`;

const DEFAULT_SIZES = [1_000, 5_000, 10_000, 20_000];
const PLAIN_QUALITY_SIZES = [1_000, 5_000, 20_000];
const RESULT_MARKER = 'BENCH-RESULT ';
/** Forced collections measure.ts makes before its first timed run (around the warm-up). */
const LEADING_FORCED_GCS = 2;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      shape: { type: 'string', default: 'karpenter' },
      sizes: { type: 'string' },
      budget: { type: 'string', default: '15' },
      only: { type: 'string' },
      quality: { type: 'boolean', default: false },
      parts: { type: 'string', default: PARTS.join(',') },
      'watcher-pods': { type: 'string', default: '10000' },
      'watcher-heap': { type: 'string', default: String(DEPLOYMENT_HEAP_MB) },
      child: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.child !== undefined) return runChild(JSON.parse(values.child) as MeasureTask);

  const shape = values.shape as WorkloadShape;
  if (!WORKLOAD_SHAPES.includes(shape)) {
    return usageError(
      `--shape ${JSON.stringify(values.shape)}: expected one of ${WORKLOAD_SHAPES.join(', ')}`,
    );
  }
  const budgetSeconds = Number(values.budget);
  if (!(budgetSeconds >= 0))
    return usageError(`--budget ${JSON.stringify(values.budget)}: expected seconds ≥ 0`);
  const only = values.only === undefined ? undefined : parseSize(values.only, '--only');
  const parsedSizes = values.sizes?.split(',').map((s) => parseSize(s.trim(), '--sizes')) ?? DEFAULT_SIZES;
  const sizes = parsedSizes.filter((n) => n !== null);
  if (only === null || sizes.length < parsedSizes.length) return 2;
  const parts = values.parts.split(',').map((p) => p.trim());
  const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0)
    return usageError(`--parts ${JSON.stringify(values.parts)}: expected some of ${PARTS.join(', ')}`);
  const watcherPods = values['watcher-pods'].split(',').map((s) => parseSize(s.trim(), '--watcher-pods'));
  const watcherHeap = parseSize(values['watcher-heap'], '--watcher-heap');
  if (watcherHeap === null || watcherPods.includes(null)) return 2;
  const system = () =>
    systemFigures({
      churn: parts.includes('churn'),
      footprint: parts.includes('footprint'),
      bundles: parts.includes('bundles'),
      watcherPods: watcherPods.filter((n) => n !== null),
      watcherHeapMB: watcherHeap,
    });
  const sim = () => (parts.includes('sim') ? simInChild(progress) : undefined);
  const soak = () =>
    parts.includes('soak') ? BENCH_SOAK_SEEDS.map((seed) => soakInChild(seed, progress)) : undefined;
  if (!parts.includes('scheduler')) {
    const figures = await system();
    const simFigures = sim();
    const soakFigures = soak();
    console.log(
      values.json
        ? JSON.stringify({ system: figures, sim: simJson(simFigures), soak: soakFigures ?? null }, null, 2)
        : [
            ...formatSystemFigures(figures),
            ...(simFigures ? formatSimFigures(simFigures) : []),
            ...(soakFigures ? formatSoakFigures(soakFigures) : []),
          ].join('\n'),
    );
    return 0;
  }

  const { env, setup } = await loadEnvironment();
  if (values.quality) {
    console.log(await qualityReport(env));
    return 0;
  }
  if (only !== undefined) {
    progress(`timing ${only} ${shape} pods in this process`);
    const m: SizedResult = {
      ...measure(env, { shape, size: only, budgetSeconds }),
      peaks: 'not traced (--only)',
    };
    printSchedulerReport(values.json, {
      setup,
      throughput: [m],
      plainQuality: [],
      inflate: undefined,
      shape,
      revision: schedulerRevision(),
    });
    return 0;
  }

  const throughput = sizes.map((size) => runInChild({ shape, size, budgetSeconds }));
  const plainQuality = PLAIN_QUALITY_SIZES.map((size) =>
    runInChild({ shape: 'plain', size, budgetSeconds: 0 }),
  );
  const inflate = planInflate(env);
  const revision = schedulerRevision();
  const systemMeasured = await system();
  const simMeasured = sim();
  const soakMeasured = soak();
  printSchedulerReport(values.json, {
    setup,
    throughput,
    plainQuality,
    inflate,
    shape,
    revision,
    system: systemMeasured,
    sim: simMeasured,
    ...(soakMeasured ? { soak: soakMeasured } : {}),
  });
  if (values.json) return 0;
  console.log(`\n${await qualityReport(env)}`);
  // Sections 7 and 8 follow the plan-cost section 6, which is measured last.
  if (simMeasured) console.log(formatSimFigures(simMeasured).join('\n'));
  if (soakMeasured) console.log(formatSoakFigures(soakMeasured).join('\n'));
  return 0;
}

/** The commit benchmarked, marked `+dirty` when the scheduler's sources differ from it. */
function schedulerRevision(): string {
  const git = (args: string[]) =>
    spawnSync('git', args, { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) });
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const dirty = git(['status', '--porcelain', '--', 'shared/core']).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? '+dirty (shared/core modified in the working tree)' : ''}`;
}

/** Section 6: plan cost on the cheapest-plan workloads (bound and reference), one workload at a time. */
async function qualityReport(env: BenchEnvironment): Promise<string> {
  const rows = [];
  for (const w of qualityWorkloads()) {
    progress(`plan cost: ${w.name}, ${w.pods.length} pods…`);
    rows.push(await measureQuality(w, env.catalog, env.nodeClass));
  }
  return `6. Plan cost — ${BENCH_REGION} on-demand, revision ${schedulerRevision()}\n${formatQuality(rows)}`;
}

function usageError(message: string): 2 {
  console.error(`bench: ${message}\n\n${USAGE}`);
  process.exitCode = 2;
  return 2;
}

/** A positive integer, or null after printing a usage error. */
function parseSize(text: string, flag: string): number | null {
  const n = Number(text);
  if (Number.isInteger(n) && n > 0) return n;
  usageError(`${flag} ${JSON.stringify(text)}: expected a positive integer`);
  return null;
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

/** Measures one task in a fresh Node process with GC exposed and traced. */
function runInChild(task: MeasureTask): SizedResult {
  progress(`${task.shape} ${task.size} pods…`);
  const tsx = import.meta.resolve('tsx');
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--trace-gc',
      '--import',
      tsx,
      fileURLToPath(import.meta.url),
      '--child',
      JSON.stringify(task),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 512 * 1024 * 1024 },
  );
  const line = child.stdout.split('\n').find((l) => l.startsWith(RESULT_MARKER));
  if (child.status !== 0 || line === undefined) {
    throw new Error(
      `benchmarking ${task.size} ${task.shape} pods in a child process: exit ${child.status ?? child.signal}, no result`,
    );
  }
  const m = JSON.parse(line.slice(RESULT_MARKER.length)) as Measurement;
  return { ...m, peaks: runPeaks(parseGcTrace(child.stdout), m.runsMs.length, LEADING_FORCED_GCS) };
}

async function runChild(task: MeasureTask): Promise<number> {
  const { env } = await loadEnvironment();
  const m = measure(env, task);
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(m)}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode ??= code;
  },
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
