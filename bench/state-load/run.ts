import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseGcTrace, runPeaks } from '../gc-trace';
import { formatTable, num } from '../table';
import type { ClusterShape } from './cluster-objects';
import {
  type InvocationMeasurement,
  LEADING_FORCED_GCS,
  measureInvocations,
  STATE_LOAD_KINDS,
  type StateLoadKind,
} from './invocation';

/**
 * `npm run bench:state`: how long one control-loop invocation takes to read the cluster, and the
 * heap it needs, against a fake API server (its own process, over loopback HTTP) holding
 * 1,000 nodes / 10,000 pods and 5,000 nodes / 50,000 pods. Targets: ≤ 1.5 s and ≤ 512 MB at
 * 10,000 pods. Each cluster size is measured in a fresh Node process with `--expose-gc
 * --trace-gc`, so heap figures are exact per run (gc-trace.ts).
 */

const RESULT_MARKER = 'STATE-LOAD-RESULT ';
const RUNS = 4;
const TARGET = { pods: 10_000, seconds: 1.5, heapMB: 512 };
const SHAPES: readonly ClusterShape[] = [
  { nodes: 1_000, podsPerNode: 10, pendingPods: 100 },
  { nodes: 5_000, podsPerNode: 10, pendingPods: 100 },
];

interface Result extends InvocationMeasurement {
  readonly shape: ClusterShape;
  readonly objects: number;
  readonly peakHeapMB: readonly number[] | string;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      kind: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const kinds = (values.kind?.split(',') ?? [...STATE_LOAD_KINDS]) as StateLoadKind[];
  const kind = kinds[0];
  if (!kinds.every((k) => STATE_LOAD_KINDS.includes(k))) {
    console.error(
      `bench:state: --kind ${JSON.stringify(values.kind)}: expected one of ${STATE_LOAD_KINDS.join(', ')}`,
    );
    return 2;
  }
  if (values.child !== undefined) {
    const m = await measureInvocations(values.child, kind, RUNS);
    process.stdout.write(`${RESULT_MARKER}${JSON.stringify(m)}\n`);
    return 0;
  }
  const results: Result[] = [];
  for (const shape of SHAPES) for (const k of kinds) results.push(await measureShape(shape, k));
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else console.log(report(results));
  return 0;
}

/** Seeds a server process for `shape` and measures `kind` against it from a fresh process. */
async function measureShape(shape: ClusterShape, kind: StateLoadKind): Promise<Result> {
  const tsx = import.meta.resolve('tsx');
  process.stderr.write(`bench:state: seeding ${shape.nodes} nodes…\n`);
  const server = spawn(
    process.execPath,
    ['--import', tsx, fileURLToPath(new URL('server.ts', import.meta.url)), JSON.stringify(shape)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  try {
    const [url, objects] = await ready(server);
    process.stderr.write(`bench:state: ${kind}, ${shape.nodes} nodes, ${RUNS} invocations…\n`);
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--trace-gc',
        '--import',
        tsx,
        fileURLToPath(import.meta.url),
        '--child',
        url,
        '--kind',
        kind,
      ],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    const line = child.stdout.split('\n').find((l) => l.startsWith(RESULT_MARKER));
    if (child.status !== 0 || line === undefined) {
      throw new Error(
        `measuring ${kind} at ${shape.nodes} nodes: exit ${child.status ?? child.signal}\n${child.stderr}`,
      );
    }
    const m = JSON.parse(line.slice(RESULT_MARKER.length)) as InvocationMeasurement;
    const peaks = runPeaks(parseGcTrace(child.stdout), m.runsMs.length, LEADING_FORCED_GCS);
    return { ...m, shape, objects, peakHeapMB: typeof peaks === 'string' ? peaks : peaks.usedMB };
  } finally {
    server.stdin?.end();
    server.kill();
  }
}

/** The server's URL and object count, once it printed READY. */
async function ready(server: ChildProcess): Promise<[string, number]> {
  let buffered = '';
  server.stdout?.setEncoding('utf8');
  for await (const chunk of server.stdout ?? []) {
    buffered += chunk;
    const match = /READY (\S+) (\d+)/.exec(buffered);
    if (match) return [match[1], Number(match[2])];
  }
  const [code] = await once(server, 'exit');
  throw new Error(`the bench's API server exited (${code}) before it was ready`);
}

function report(results: readonly Result[]): string {
  const rows = results.map((r) => {
    const pods = r.shape.nodes * r.shape.podsPerNode + r.shape.pendingPods;
    const warm = r.runsMs.slice(1);
    const peak = typeof r.peakHeapMB === 'string' ? r.peakHeapMB : num(Math.max(...r.peakHeapMB));
    const target =
      // The target is set at 10,000 bound pods; the shapes add 100 pending ones.
      r.shape.nodes * r.shape.podsPerNode <= TARGET.pods
        ? Math.max(...r.runsMs) <= TARGET.seconds * 1000 &&
          typeof r.peakHeapMB !== 'string' &&
          Math.max(...r.peakHeapMB) <= TARGET.heapMB
          ? 'met'
          : 'MISSED'
        : '—';
    const cpu = `${num(r.cpuMs[0])} / ${num(Math.min(...r.cpuMs.slice(1)))}`;
    return [
      r.kind,
      num(r.shape.nodes),
      num(pods),
      num(r.runsMs[0]),
      num(Math.min(...warm)),
      cpu,
      peak,
      target,
    ];
  });
  return [
    `State load — one invocation against a fake API server over loopback HTTP (${RUNS} invocations per size, one container)`,
    formatTable(
      [
        'invocation',
        'nodes',
        'pods',
        'cold ms',
        'warm ms (best)',
        'CPU ms cold / warm',
        'peak heap MB',
        `≤ ${TARGET.seconds} s, ≤ ${TARGET.heapMB} MB at ${num(TARGET.pods)}`,
      ],
      rows,
    ),
  ].join('\n');
}

process.exitCode = await main();
