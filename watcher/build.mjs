#!/usr/bin/env node
/**
 * Bundles the watcher into one ESM file for its container image:
 *   node watcher/build.mjs [--outfile dist/watcher/main.mjs]
 * Everything is bundled (the image carries no node_modules), with the CLI's esbuild options
 * (bin/esm-bundle.mjs).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../bin/esm-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    outfile: { type: 'string', default: resolve(root, 'dist/watcher/main.mjs') },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write('usage: node watcher/build.mjs [--outfile dist/watcher/main.mjs]\n');
  process.exit(0);
}

const outfile = resolve(values.outfile);
const result = await build({ ...NODE_ESM_BUNDLE, entryPoints: [resolve(root, 'watcher/main.ts')], outfile });
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB\n`);
