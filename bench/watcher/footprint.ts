import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** What the watcher process held while it listed and started watching a cluster. */
export interface WatcherFootprint {
  readonly pods: number;
  readonly nodes: number;
  /** Average JSON size of a pod as the server lists it. */
  readonly podBytes: number;
  /** `--max-old-space-size` the watcher ran with, or undefined for Node's default. */
  readonly maxOldSpaceMB: number | undefined;
  /** Start to every resource listed and watched (/readyz ready). */
  readonly syncMs: number;
  /** Largest RSS during the sync (getrusage's high-water mark). */
  readonly maxRssMB: number;
  /** Largest V8 heap in use sampled every 20 ms during the sync. */
  readonly peakHeapUsedMB: number;
  /** After the sync and a full collection: what the watcher keeps. */
  readonly steadyRssMB: number;
  readonly steadyHeapUsedMB: number;
}

const PODS_PER_NODE = 10;

/**
 * Seeds the fake API server with `pods` running pods (10 a node, as full as EKS serves them) in a
 * process of its own (footprint-server.ts), then starts the watcher, bundled as its image bundles it, in a
 * fresh `node` and reports its memory and initial sync time.
 */
export async function measureWatcherFootprint(
  pods: number,
  maxOldSpaceMB?: number,
): Promise<WatcherFootprint> {
  const nodes = Math.ceil(pods / PODS_PER_NODE);
  const dir = mkdtempSync(join(tmpdir(), 'podlift-watcher-footprint-'));
  const server = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL('footprint-server.ts', import.meta.url)),
      JSON.stringify({ nodes, podsPerNode: PODS_PER_NODE }),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  try {
    const bundle = join(dir, 'watcher-footprint.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('footprint-child.ts', import.meta.url))],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      mainFields: ['module', 'main'],
      banner: {
        js: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    const [url, podBytes] = await serverReady(server);
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        ...(maxOldSpaceMB !== undefined ? [`--max-old-space-size=${maxOldSpaceMB}`] : []),
        bundle,
        url,
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const line = child.stdout.split('\n').find((l) => l.startsWith('FOOTPRINT '));
    if (child.status !== 0 || line === undefined)
      throw new Error(
        `watcher footprint at ${pods} pods: exit ${child.status ?? child.signal}\n${child.stderr.slice(-2000)}`,
      );
    const m = JSON.parse(line.slice('FOOTPRINT '.length)) as Omit<
      WatcherFootprint,
      'pods' | 'nodes' | 'maxOldSpaceMB'
    >;
    return {
      pods: nodes * PODS_PER_NODE,
      nodes,
      podBytes,
      maxOldSpaceMB,
      syncMs: m.syncMs,
      maxRssMB: m.maxRssMB,
      peakHeapUsedMB: m.peakHeapUsedMB,
      steadyRssMB: m.steadyRssMB,
      steadyHeapUsedMB: m.steadyHeapUsedMB,
    };
  } finally {
    server.stdin?.end();
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function serverReady(server: ChildProcess): Promise<[string, number]> {
  let buffered = '';
  server.stdout?.setEncoding('utf8');
  for await (const chunk of server.stdout ?? []) {
    buffered += chunk;
    const match = /READY (\S+) (\d+)/.exec(buffered);
    if (match) return [match[1] as string, Number(match[2])];
  }
  const [code] = await once(server, 'exit');
  throw new Error(`the footprint bench's API server exited (${code}) before it was ready`);
}
