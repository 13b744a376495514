import { type BundleFigures, measureBundles } from './functions/bundles';
import { formatTable, num } from './table';
import {
  type BatchingSettings,
  type ChurnOutcome,
  ISSUE_CHURN,
  PLAIN_WINDOW,
  quantile,
  runWatcherChurn,
} from './watcher/churn';
import { measureWatcherFootprint, type WatcherFootprint } from './watcher/footprint';

/** Which system figures to measure. */
export interface SystemParts {
  readonly churn: boolean;
  readonly footprint: boolean;
  readonly bundles: boolean;
  /** Pod counts of the footprint runs. */
  readonly watcherPods: readonly number[];
  /** `--max-old-space-size` of the footprint runs, as the Deployment sets it. */
  readonly watcherHeapMB: number | undefined;
}

/** The watcher and function figures `npm run bench` prints after the scheduler's. */
export interface SystemFigures {
  readonly churn?: readonly { readonly label: string; readonly outcome: ChurnOutcome }[];
  readonly footprint?: readonly WatcherFootprint[];
  readonly bundles?: readonly BundleFigures[];
}

/** Targets from the issue: hint latency, PutEvents, bundle size and init. */
export const SYSTEM_TARGETS = {
  /** PutEvents a minute under churn before the leading edge (the measured 13–15; 12 here). */
  putEventsPerMinuteBefore: 15,
  bundleBytes: 1024 * 1024,
  initMs: 300,
};

const CHURN_VARIANTS: readonly { label: string; settings: Partial<BatchingSettings> }[] = [
  { label: 'before: 1 s idle, 10 s max (both)', settings: PLAIN_WINDOW },
  {
    label: 'pods: leading edge + 4 s max; capacity 10 s, own calls',
    settings: { capacityRidesAlong: false },
  },
  { label: 'now: the same, capacity riding along', settings: {} },
];

/** Measures the parts asked for, printing progress to stderr. */
export async function systemFigures(parts: SystemParts): Promise<SystemFigures> {
  const progress = (m: string) => process.stderr.write(`bench: ${m}\n`);
  const figures: {
    churn?: SystemFigures['churn'];
    footprint?: WatcherFootprint[];
    bundles?: BundleFigures[];
  } = {};
  if (parts.churn) {
    progress('watcher under churn (virtual clock)…');
    figures.churn = await Promise.all(
      CHURN_VARIANTS.map(async ({ label, settings }) => ({
        label,
        outcome: await runWatcherChurn({ settings, rate: ISSUE_CHURN, seconds: 120 }),
      })),
    );
  }
  if (parts.footprint) {
    figures.footprint = [];
    for (const pods of parts.watcherPods) {
      progress(`watcher footprint at ${num(pods)} pods…`);
      figures.footprint.push(await measureWatcherFootprint(pods, parts.watcherHeapMB));
    }
  }
  if (parts.bundles) {
    progress('function bundles (esbuild) and cold imports…');
    figures.bundles = await measureBundles();
  }
  return figures;
}

/** The figures as the text `npm run bench` prints. */
export function formatSystemFigures(f: SystemFigures): string[] {
  const out: string[] = [];
  if (f.churn) {
    const r = ISSUE_CHURN;
    out.push(
      '',
      `3. Watcher hints under churn — ${r.podsMarkedPerSecond} pods marked unschedulable, ${r.podsDeletedPerSecond} bound pods deleted, ` +
        `${r.nodesChangedPerSecond} nodes changed per second, spread over each second; the real watcher on a virtual clock, 120 s after a 20 s warm-up`,
      formatTable(
        [
          'batching',
          'hint p50 ms',
          'hint p99 ms',
          'hint max ms',
          'PutEvents/min',
          'PodsPending/min',
          'CapacityChanged/min',
        ],
        f.churn.map(({ label, outcome: o }) => [
          label,
          num(quantile(o.hintLatenciesMs, 0.5)),
          num(quantile(o.hintLatenciesMs, 0.99)),
          num(quantile(o.hintLatenciesMs, 1)),
          num(o.putEventsPerMinute, 1),
          num(o.eventsPerMinute.PodsPending, 1),
          num(o.eventsPerMinute.CapacityChanged, 1),
        ]),
      ),
      '  hint: from the pod marked Unschedulable to the PutEvents call carrying it (the bus and function start come after).',
    );
  }
  if (f.footprint) {
    out.push(
      '',
      '4. Watcher footprint — the bundled watcher in a fresh node against the fake API server (own process), pods ~4.7 KB of JSON each as EKS lists them',
      formatTable(
        [
          'pods',
          'nodes',
          'heap flag',
          'initial sync s',
          'max RSS MiB',
          'peak heap MiB',
          'steady RSS MiB',
          'steady heap MiB',
        ],
        f.footprint.map((m) => [
          num(m.pods),
          num(m.nodes),
          m.maxOldSpaceMB === undefined ? 'default' : `--max-old-space-size=${m.maxOldSpaceMB}`,
          num(m.syncMs / 1000, 1),
          num(m.maxRssMB),
          num(m.peakHeapUsedMB),
          num(m.steadyRssMB),
          num(m.steadyHeapUsedMB),
        ]),
      ),
      '  initial sync: start to every resource listed and watched; peak heap sampled every 20 ms; steady: after a full GC.',
    );
  }
  if (f.bundles) {
    const kb = (b: number) => num(b / 1024);
    out.push(
      '',
      "5. Function bundles — the stack's bundling (infra/parts/function-bundle.ts); init = import in a fresh node with the functions' NODE_OPTIONS (min / median of 7, round-robin over the bundles)",
      formatTable(
        [
          'function',
          '@aws-sdk',
          'KB',
          'gzip KB',
          'size target',
          'init min ms',
          'init median ms',
          'init target',
          'catalog file KB',
          'first catalog read ms',
          'largest parts (KB)',
        ],
        f.bundles.map((b) => [
          b.fn,
          b.sdk,
          kb(b.bytes),
          kb(b.gzipBytes),
          b.bytes <= SYSTEM_TARGETS.bundleBytes ? 'met' : 'MISSED',
          num(b.initMinMs),
          num(b.initMedianMs),
          b.initMinMs <= SYSTEM_TARGETS.initMs ? 'met' : 'MISSED',
          b.catalogAssetBytes > 0 ? kb(b.catalogAssetBytes) : '-',
          b.catalogReadMs === undefined ? '-' : num(b.catalogReadMs),
          b.contributors
            .slice(0, 5)
            .map((c) => `${c.name} ${kb(c.bytes)}`)
            .join(', '),
        ]),
      ),
      "  targets: ≤ 1 MB minified where the SDK allows, ≤ 300 ms init. bundled = the stack's; external = @aws-sdk left to the runtime.",
      '  catalog file: the bundled instance types and prices, brotli, beside index.mjs; read on the first catalog refresh (in this process, min).',
    );
  }
  return out;
}
