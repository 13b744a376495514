/**
 * How podlift's Node programs that ship as one file are bundled: the CLI (cli/build.mjs) and the
 * watcher's container image (watcher/build.mjs). esbuild options, to be spread under each
 * program's entry and output. The Lambda functions have their own definition
 * (infra/parts/function-bundle.ts), as they target the Lambda runtime's Node 22 and ship source
 * maps.
 */
export const NODE_ESM_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  // engines.node in package.json: both programs run on any supported Node.
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // client-node and Powertools publish ESM under `module`; ESM output keeps their imports static.
  mainFields: ['module', 'main'],
  // Bundled CommonJS dependencies (client-node's) `require` Node built-ins, which an ESM bundle
  // lacks (TOOLCHAIN pitfall 14: `Dynamic require of "node:https"`).
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
};
