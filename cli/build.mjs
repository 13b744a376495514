#!/usr/bin/env node
/**
 * Bundles the CLI into one ESM file, so `podlift` starts without compiling TypeScript:
 *   node cli/build.mjs [--outdir dist/cli]
 * Writes `podlift.mjs` and `inputs.json` (the project files the bundle was built from, which
 * bin/podlift.mjs checks so an edited source never runs through a stale bundle). Run by npm's
 * `prepare` script, which npm also runs on `npm ci` and `npm install` of the repository.
 * Dependencies are bundled too: loading js-yaml, zod and the catalog from one file is faster than
 * resolving them module by module. The esbuild options are the watcher's too (bin/esm-bundle.mjs).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NODE_ESM_BUNDLE } from '../bin/esm-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    outdir: { type: 'string', default: resolve(root, 'dist/cli') },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write('usage: node cli/build.mjs [--outdir dist/cli]\n');
  process.exit(0);
}

// esbuild is a devDependency: an install without them (`npm ci --omit=dev`) still works, and
// bin/podlift.mjs then runs the sources through tsx.
let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  process.stdout.write('esbuild is not installed: the CLI bundle is not built (podlift runs through tsx)\n');
  process.exit(0);
}

const outdir = resolve(values.outdir);
await mkdir(outdir, { recursive: true });
const outfile = resolve(outdir, 'podlift.mjs');
// HiGHS loads its WebAssembly from beside its own module: it stays in node_modules, a runtime dependency.
const result = await build({
  ...NODE_ESM_BUNDLE,
  entryPoints: [resolve(root, 'sim/cli/podlift.ts')],
  outfile,
  external: ['highs'],
});
// Paths relative to the repository root; node_modules is left out (it changes only by npm,
// which runs `prepare` again).
const inputs = Object.keys(result.metafile.inputs)
  .map((input) => relative(root, resolve(process.cwd(), input)))
  .filter((input) => !input.split(/[\\/]/).includes('node_modules'))
  .sort();
await writeFile(resolve(outdir, 'inputs.json'), `${JSON.stringify(inputs)}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(
  `${relative(process.cwd(), outfile)}: ${(bytes / 1024).toFixed(0)} KiB, ${inputs.length} sources\n`,
);
