import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import {
  BUNDLED_CATALOG_ASSET,
  encodeBundledCatalogAsset,
} from '../../shared/aws/catalog/bundled-catalog-asset';
import type { FunctionName } from '../../shared/core/contracts/routing';

/**
 * The one definition of how a function is bundled: the stack's NodejsFunctions
 * (./functions.ts maps it onto aws-cdk-lib's BundlingOptions, which
 * `aws-lambda-nodejs/lib/bundling.ts` Bundling.buildEsbuildArgs turns into esbuild flags),
 * `npm run bench -- --parts bundles` and the bundle test all read it from here.
 */

/** The repository root: entries, lock file and esbuild are found from here. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The createRequire banner: bundled CommonJS dependencies (client-node) `require` Node built-ins. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/** esbuild's options for a function bundle, in esbuild's own terms. */
export interface FunctionBundleOptions {
  readonly platform: 'node';
  readonly format: 'esm';
  /** The Lambda runtime's Node (the stack's `Runtime.NODEJS_22_X`). */
  readonly target: 'node22';
  readonly mainFields: readonly string[];
  readonly minify: boolean;
  readonly sourcemap: boolean;
  readonly sourcesContent: boolean;
  /** JavaScript put first in the bundle. */
  readonly banner: string;
  /** Package → absolute path of the module bundled in its place. */
  readonly alias: Readonly<Record<string, string>>;
  /** Packages left to the runtime: none, the SDK included (see PodliftFunctions). */
  readonly external: readonly string[];
}

/** How every function is bundled. */
export const FUNCTION_BUNDLE: FunctionBundleOptions = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // client-node and Powertools publish ESM under `module`; ESM output keeps their imports static.
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  banner: ESM_REQUIRE_BANNER,
  // Each stand-in says in its own file why its package is never reached from a function.
  alias: Object.fromEntries(
    [
      // node-fetch 2 only falls back to whatwg-url (and its 259 KB tr46) when Node has no URL.
      'whatwg-url',
      // client-node's index imports every feature; these serve proxies, OIDC, Azure and GCP auth
      // providers, exec/attach/port-forward and cp, none of which the functions use.
      'socks-proxy-agent',
      'hpagent',
      'openid-client',
      'jsonpath-plus',
      'isomorphic-ws',
      'tar-fs',
    ].map((pkg) => [pkg, join(REPO_ROOT, 'infra', 'parts', 'bundle-shims', `${pkg}.ts`)]),
  ),
  external: [],
};

/**
 * Node's options in every function's environment: stack traces through the source maps, as
 * the bundle is minified. The bench imports bundles with them too, since loading the map is
 * part of a cold start.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/** The entry of a function's bundle. */
export function functionEntry(name: FunctionName): string {
  return join(REPO_ROOT, 'functions', name, 'handler.ts');
}

/** What a caller of {@link functionBuildOptions} may change. */
export interface FunctionBuildVariant {
  /** Replaces {@link FunctionBundleOptions.external} (the bench's what-if of leaving the SDK to the runtime). */
  readonly external?: readonly string[];
  /** Ask esbuild for its inputs and outputs. @default false */
  readonly metafile?: boolean;
}

/**
 * esbuild's build options for `name`'s bundle into `outdir/index.mjs`, as NodejsFunction runs
 * it; `name` may also be the path of another entry to bundle the same way (the bundle test's
 * catalog probe).
 */
export function functionBuildOptions(
  name: FunctionName | { readonly entry: string },
  outdir: string,
  variant: FunctionBuildVariant = {},
): BuildOptions & { outfile: string } {
  const b = FUNCTION_BUNDLE;
  return {
    entryPoints: [typeof name === 'string' ? functionEntry(name) : name.entry],
    outfile: join(outdir, 'index.mjs'),
    bundle: true,
    platform: b.platform,
    format: b.format,
    target: b.target,
    mainFields: [...b.mainFields],
    minify: b.minify,
    sourcemap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    banner: { js: b.banner },
    alias: { ...b.alias },
    external: [...(variant.external ?? b.external)],
    metafile: variant.metafile ?? false,
    logLevel: 'warning',
  };
}

/**
 * The functions that read the instance catalog, and so carry the compressed bundled catalog
 * beside their `index.mjs` (shared/aws/catalog/bundled-catalog-asset.ts): the provisioner, and
 * interruption and disruption, which launch replacements through it. Termination reads the
 * cluster and its instances only (functions/termination/loop.ts loads its snapshot with
 * `catalog: false`) and never launches, so its bundle goes without.
 */
export const FUNCTIONS_READING_THE_CATALOG: ReadonlySet<FunctionName> = new Set<FunctionName>([
  'provisioner',
  'interruption',
  'disruption',
]);

/**
 * Writes the compressed bundled catalog, made from shared/core/catalog/data (the one copy of
 * the data), into `dir`; its path.
 */
export function writeCatalogAsset(dir: string): string {
  const data = join(REPO_ROOT, 'shared', 'core', 'catalog', 'data');
  const bytes = encodeBundledCatalogAsset({
    instanceTypes: JSON.parse(readFileSync(join(data, 'instance-types.json'), 'utf8')),
    prices: JSON.parse(readFileSync(join(data, 'prices.json'), 'utf8')),
  });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, BUNDLED_CATALOG_ASSET);
  writeFileSync(file, bytes);
  return file;
}
