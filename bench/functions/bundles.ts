import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import {
  FUNCTION_NODE_OPTIONS,
  FUNCTIONS_READING_THE_CATALOG,
  functionBuildOptions,
  writeCatalogAsset,
} from '../../infra/parts/function-bundle';
import { decodeBundledCatalogAsset } from '../../shared/aws/catalog/bundled-catalog-asset';

/** The Lambda functions, bundled from `functions/<name>/handler.ts`. */
export const FUNCTIONS = ['provisioner', 'interruption', 'disruption', 'termination'] as const;

/** How the AWS SDK reaches the function: left to the Lambda runtime's copy, or bundled. */
export type SdkMode = 'external' | 'bundled';

/** One function's bundle and its cold import. */
export interface BundleFigures {
  readonly fn: (typeof FUNCTIONS)[number];
  readonly sdk: SdkMode;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** The compressed bundled catalog beside `index.mjs`, bytes; 0 for a function without it. */
  readonly catalogAssetBytes: number;
  /**
   * Its first read (decompress, parse, validate) on the first catalog refresh, ms, min of the
   * runs, in the bench's process; undefined without the file.
   */
  readonly catalogReadMs: number | undefined;
  /** Import of the bundle in a fresh `node`, ms: min and median of the runs. */
  readonly initMinMs: number;
  readonly initMedianMs: number;
  /** Largest contributors to the bundle by package (bytes in the output). */
  readonly contributors: readonly { readonly name: string; readonly bytes: number }[];
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles each function with the stack's own definition (infra/parts/function-bundle.ts, which
 * the NodejsFunctions use: esbuild, ESM, minified, `target node22`, platform node, the
 * createRequire banner, source maps, the alias stand-ins), writes the compressed catalog
 * beside the functions that read it, and times the bundle's import in fresh Node processes
 * started with the functions' NODE_OPTIONS. `bundled` is the stack's configuration; `external`
 * is the what-if of leaving `@aws-sdk/*` to the runtime, resolved from the project's
 * node_modules as the runtime resolves its own copy.
 */
export async function measureBundles(options: { runs?: number } = {}): Promise<BundleFigures[]> {
  const runs = options.runs ?? 7;
  const dir = mkdtempSync(join(tmpdir(), 'podlift-bundles-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const runner = join(dir, 'import-once.mjs');
    // A .mjs runner, not `node -e`: -e defines a global require that hides a missing banner.
    writeFileSync(
      runner,
      [
        'const started = performance.now();',
        'await import(process.argv[2]);',
        "process.stdout.write('INIT ' + (performance.now() - started) + '\\n');",
        '',
      ].join('\n'),
    );
    const built: (Omit<BundleFigures, 'initMinMs' | 'initMedianMs'> & { outfile: string })[] = [];
    for (const sdk of ['external', 'bundled'] as const) {
      for (const fn of FUNCTIONS) {
        const outdir = join(dir, `${fn}-${sdk}`);
        mkdirSync(outdir);
        const options = functionBuildOptions(fn, outdir, {
          metafile: true,
          ...(sdk === 'external' ? { external: ['@aws-sdk/*'] } : {}),
        });
        const result = await build(options);
        const asset = FUNCTIONS_READING_THE_CATALOG.has(fn) ? writeCatalogAsset(outdir) : undefined;
        const code = readFileSync(options.outfile);
        built.push({
          fn,
          sdk,
          outfile: options.outfile,
          bytes: code.length,
          gzipBytes: gzipSync(code).length,
          catalogAssetBytes: asset === undefined ? 0 : statSync(asset).size,
          catalogReadMs: asset === undefined ? undefined : catalogReadTime(asset, runs),
          contributors: contributors(result.metafile ?? { inputs: {}, outputs: {} }),
        });
      }
    }
    // Round-robin over the bundles, so a burst of load on this shared machine slows every
    // bundle's run of that round rather than all runs of one bundle.
    const times = built.map((): number[] => []);
    for (let run = 0; run < runs; run++) {
      built.forEach((b, i) => {
        times[i]?.push(importTime(runner, b.outfile));
      });
    }
    const figures = built.map(({ outfile: _, ...b }, i): BundleFigures => {
      const sorted = [...(times[i] ?? [])].sort((x, y) => x - y);
      return {
        ...b,
        initMinMs: sorted[0] as number,
        initMedianMs: sorted[Math.floor(sorted.length / 2)] as number,
      };
    });
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function catalogReadTime(asset: string, runs: number): number {
  const bytes = readFileSync(asset);
  const times = Array.from({ length: runs }, () => {
    const started = performance.now();
    decodeBundledCatalogAsset(bytes, asset);
    return performance.now() - started;
  });
  return Math.min(...times);
}

function importTime(runner: string, bundle: string): number {
  const child = spawnSync(process.execPath, [runner, pathToFileURL(bundle).href], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  const match = /INIT (\S+)/.exec(child.stdout);
  if (child.status !== 0 || !match)
    throw new Error(
      `importing ${bundle}: exit ${child.status ?? child.signal}\n${child.stderr.slice(-2000)}`,
    );
  return Number(match[1]);
}

/** Output bytes per package (`podlift` for the project's code, `catalog data` for its bundled instance types and prices), largest first. */
export function contributors(metafile: Metafile): { name: string; bytes: number }[] {
  const byName = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const name = packageOf(path);
      byName.set(name, (byName.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...byName].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function packageOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return path.includes('catalog/data/') ? 'catalog data' : 'podlift';
  const rest = path.slice(at + 'node_modules/'.length).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
}
