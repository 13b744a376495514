#!/usr/bin/env node
// The package's `bin`. Runs the prebuilt bundle (`npm ci` builds it through the `prepare`
// script) when it is up to date with the sources; otherwise the TypeScript CLI through tsx's
// loader, so a fresh clone or an edited source needs no build step.
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBundle } from './bundle.mjs';

const bundle = freshBundle(resolve(dirname(fileURLToPath(import.meta.url)), '..'));
if (bundle !== undefined) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../sim/cli/podlift.ts');
}
