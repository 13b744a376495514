import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_REGION, type BenchEnvironment, loadEnvironment, type SetupTimes } from './environment';
import { parseGcTrace, type RunPeaks, runPeaks } from './gc-trace';
import { type InflateOutcome, planInflate } from './inflate';
import { type Measurement, type MeasureTask, measure } from './measure';
import { formatQuality, measureQuality, qualityWorkloads } from './quality';
import { simInChild, simJson } from './sim/child';
import { formatSimFigures, type SimFigures } from './sim/figures';
import { formatSystemFigures, type SystemFigures, systemFigures } from './system';
import { formatTable, num } from './table';
import { WORKLOAD_SHAPES, type WorkloadShape } from './workload';

/**
 * `npm run bench`: scheduler throughput on Karpenter's benchmark workload and packing quality
 * against an LP lower bound, then the watcher, function and simulator figures. Prints figures and whether each meets its target; it never fails
 * on a missed target (benchmarks are not tests). Each size runs in its own Node process with
 * `--expose-gc --trace-gc`, so heap figures are per size and exact (gc-trace.ts).
 */

const PARTS = ['scheduler', 'churn', 'footprint', 'bundles', 'sim'] as const;
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
                     1,000-pod scale-out in the simulator, bench/sim); default all
  --watcher-pods <list>  footprint pod counts (default 10000)
  --watcher-heap <MB>    footprint --max-old-space-size (default ${DEPLOYMENT_HEAP_MB}, the Deployment's)
  -h, --help         show this help`;

const KARPENTER_REFERENCE = {
  note: 'Karpenter published figures as given in the podlift brief (not re-measured here)',
  podsPerSecond: 680,
  points: [
    { pods: 10_000, seconds: 12.1 },
    { pods: 20_000, seconds: 35.7 },
  ],
};

const TARGETS = {
  /** 20,000 pods in under 2 s on this 2-core machine: a rate of 10,000 pods/s. */
  podsPerSecond: 10_000,
  peakHeapMB: 512,
  /** Plain pods: plan cost at most 10 % above the LP lower bound. */
  plainCostRatio: 1.1,
};

const DEFAULT_SIZES = [1_000, 5_000, 10_000, 20_000];
const PLAIN_QUALITY_SIZES = [1_000, 5_000, 20_000];
const RESULT_MARKER = 'BENCH-RESULT ';
/** Forced collections measure.ts makes before its first timed run (around the warm-up). */
const LEADING_FORCED_GCS = 2;

/** A measurement with the exact heap peaks from its process's GC trace, when available. */
interface SizedResult extends Measurement {
  readonly peaks: RunPeaks | string;
}

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
  if (!parts.includes('scheduler')) {
    const figures = await system();
    const simFigures = sim();
    console.log(
      values.json
        ? JSON.stringify({ system: figures, sim: simJson(simFigures) }, null, 2)
        : [...formatSystemFigures(figures), ...(simFigures ? formatSimFigures(simFigures) : [])].join('\n'),
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
    print(values.json, {
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
  print(values.json, {
    setup,
    throughput,
    plainQuality,
    inflate,
    shape,
    revision,
    system: systemMeasured,
    sim: simMeasured,
  });
  if (values.json) return 0;
  console.log(`\n${await qualityReport(env)}`);
  // Section 7 follows the plan-cost section 6, which is measured last.
  if (simMeasured) console.log(formatSimFigures(simMeasured).join('\n'));
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

interface Report {
  readonly setup: SetupTimes;
  readonly throughput: readonly SizedResult[];
  readonly plainQuality: readonly SizedResult[];
  readonly inflate: InflateOutcome | undefined;
  readonly shape: WorkloadShape;
  readonly revision: string;
  /** Watcher and function figures, when measured. */
  readonly system?: SystemFigures;
  /** The simulator's figures, when measured. */
  readonly sim?: SimFigures;
}

/** Peak heap in use over a size's timed runs: from the GC trace, else the largest heapTotal seen. */
function peakHeap(m: SizedResult): { mb: number; exact: boolean } {
  if (typeof m.peaks !== 'string') return { mb: Math.max(...m.peaks.usedMB), exact: true };
  return { mb: m.memory.maxHeapTotalMB, exact: false };
}

function mark(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

function print(json: boolean, report: Report): void {
  if (json) {
    console.log(
      JSON.stringify(
        {
          region: BENCH_REGION,
          node: process.version,
          revision: report.revision,
          setup: report.setup,
          targets: TARGETS,
          karpenterReference: KARPENTER_REFERENCE,
          throughput: report.throughput.map((m) => ({
            ...m,
            podsPerSecond: m.size / (m.bestMs / 1000),
            peakHeapUsedMB: peakHeap(m).mb,
            peakHeapExact: peakHeap(m).exact,
          })),
          plainQuality: report.plainQuality,
          inflate: report.inflate ?? null,
          system: report.system ?? null,
          sim: simJson(report.sim),
        },
        null,
        2,
      ),
    );
    return;
  }
  const out: string[] = [];
  const s = report.setup;
  out.push(
    `podlift scheduler benchmark — ${BENCH_REGION}, ${s.instanceTypes} instance types, Node ${process.version}, revision ${report.revision}`,
    `setup (once, not in the figures): import bundled data ${num(s.importMs)} ms (tsx transpile + JSON parse), ` +
      `loadBundledCatalog ${num(s.loadCatalogMs)} ms, resolveInstanceTypes ${num(s.resolveInstanceTypesMs)} ms`,
    '',
    `1. Throughput — workload "${report.shape}"${report.shape === 'karpenter' ? " (Karpenter's makeDiversePods)" : ''}, one NodePool (linux, spot + on-demand, no limits)`,
  );
  const refByPods = new Map(KARPENTER_REFERENCE.points.map((p) => [p.pods, p.seconds]));
  out.push(
    formatTable(
      [
        'pods',
        'runs',
        'best ms',
        'pods/s',
        'rate target',
        'Karpenter s',
        'new nodes',
        'scheduled',
        'unsched',
        '$/h',
        'cost/LB',
        'peak heap MB',
        'heap target',
        'max RSS MB',
      ],
      report.throughput.map((m) => {
        const rate = m.size / (m.bestMs / 1000);
        const heap = peakHeap(m);
        const ref = refByPods.get(m.size);
        return [
          num(m.size),
          String(m.runsMs.length),
          num(m.bestMs),
          num(rate),
          mark(rate >= TARGETS.podsPerSecond),
          ref === undefined ? '—' : num(ref, 1),
          num(m.plan.newNodes),
          num(m.plan.scheduled),
          num(m.plan.unschedulable),
          num(m.plan.costPerHour, 2),
          num(m.plan.costRatio, 3),
          `${num(heap.mb)}${heap.exact ? '' : '*'}`,
          mark(heap.mb < TARGETS.peakHeapMB),
          num(m.memory.maxRssMB),
        ];
      }),
    ),
    '',
    `  targets: 20,000 pods in under 2 s on this 2-core machine (rate target: ≥ ${num(TARGETS.podsPerSecond)} pods/s at every size),`,
    `           peak heap under ${TARGETS.peakHeapMB} MB.`,
    `  Karpenter reference (${KARPENTER_REFERENCE.note}): about ${KARPENTER_REFERENCE.podsPerSecond} pods/s; ` +
      KARPENTER_REFERENCE.points.map((p) => `${num(p.pods)} pods in ${p.seconds} s`).join(', ') +
      " (Go, fake cloud provider with 400 instance types, Karpenter's own machine).",
    `  runs: a warm-up on ${num(Math.min(1000, report.throughput[0]?.size ?? 1000))} pods of the same shape, then up to 3 timed runs while they fit the ` +
      `budget; best shown. Only schedule() is timed.`,
    "  peak heap: largest V8 heap in use during any timed run, from the child process's --trace-gc log " +
      '(heap use only grows between collections, so the peak is the largest "before" size); * = heapTotal ' +
      'after the run instead (no trace). max RSS: the whole child process (catalog, pods, code), from getrusage.',
  );
  const unsched = report.throughput.filter((m) => m.plan.unschedulable > 0);
  if (unsched.length > 0) {
    out.push('  unschedulable by kind:');
    for (const m of unsched) {
      const kinds = Object.entries(m.plan.unschedulableByKind)
        .map(([kind, { count, reason }]) => `${kind} ${num(count)} ("${reason}")`)
        .join('; ');
      out.push(`    ${num(m.size)}: ${kinds}`);
    }
  }

  out.push(
    '',
    '2. Packing against the cpu + memory LP relaxation (lower-bound.ts; a loose yardstick — the configuration-LP bound is section 6)',
    formatTable(
      [
        'workload',
        'pods',
        'new nodes',
        '$/h',
        'LB $/h',
        'cost/LB',
        'target',
        'LB mix',
        '1-type $/h',
        'cost/1-type',
        'ms',
      ],
      [
        ...report.plainQuality.map((m) =>
          qualityRow(`plain`, m, mark(m.plan.costRatio <= TARGETS.plainCostRatio)),
        ),
        ...report.throughput.map((m) => qualityRow(report.shape, m, '(none)')),
        ...(report.inflate
          ? [
              [
                'inflate.yaml',
                num(report.inflate.pods),
                num(report.inflate.newNodes),
                num(report.inflate.costPerHour, 4),
                num(report.inflate.bound.cost, 4),
                num(report.inflate.costRatio, 3),
                '(none)',
                formatMix(report.inflate.bound.mix),
                `${num(report.inflate.singleType.cost, 4)} (${formatMix(report.inflate.singleType.mix)})`,
                num(report.inflate.singleTypeRatio, 3),
                num(report.inflate.ms),
              ],
            ]
          : []),
      ],
    ),
    '',
    `  target: plain pods ≤ ${TARGETS.plainCostRatio.toFixed(2)}. The bound ignores pod indivisibility, max pods per node and ` +
      'topology rules, so constrained workloads sit above it by construction; cost and bound cover scheduled pods only.',
    '  1-type: not a bound — the cheapest fractional fleet of one type that holds the largest pod (cpu, memory and max pods ' +
      'per node all respected); a mixed-type plan can beat it.',
  );
  if (report.inflate)
    out.push(`  inflate.yaml launches: ${report.inflate.instanceTypes.join(', ') || 'nothing'}`);
  else out.push('  inflate.yaml: examples/inflate.yaml not found, skipped');
  if (report.system) out.push(...formatSystemFigures(report.system));
  console.log(out.join('\n'));
}

function qualityRow(label: string, m: SizedResult, target: string): string[] {
  return [
    label,
    num(m.size),
    num(m.plan.newNodes),
    num(m.plan.costPerHour, 2),
    num(m.plan.bound.cost, 2),
    num(m.plan.costRatio, 3),
    target,
    formatMix(m.plan.bound.mix),
    `${num(m.plan.singleType.cost, 2)} (${formatMix(m.plan.singleType.mix)})`,
    num(m.plan.singleTypeRatio, 3),
    num(m.bestMs),
  ];
}

function formatMix(mix: readonly { name: string; count: number }[]): string {
  return mix.map((t) => `${num(t.count, 1)}× ${t.name}`).join(' + ');
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
