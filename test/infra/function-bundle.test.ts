import { execFile, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FUNCTION_NODE_OPTIONS,
  FUNCTIONS_READING_THE_CATALOG,
  functionBuildOptions,
  writeCatalogAsset,
} from '../../infra/parts/function-bundle';
import { BUNDLED_CATALOG_ASSET } from '../../shared/aws/catalog/bundled-catalog-asset';
import { bundledInstanceTypes, loadBundledCatalog } from '../../shared/core/catalog/bundled';
import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { nodeManifest } from '../../sim/world/builders/node-manifests';

/**
 * One function bundle built with the stack's own bundling definition, and a probe bundled the
 * same way that reads the catalog file beside it, each loaded in a fresh node from an .mjs
 * runner (`node -e` would define a global `require` and hide a missing banner).
 */

let dir: string;
let metafile: Metafile;
let provisioner: string;
let probe: string;
let kubeProbe: string;

/** Left out of the bundles by `alias` (infra/parts/bundle-shims). */
const LEFT_OUT =
  /node_modules\/(whatwg-url|tr46|ws|socks|socks-proxy-agent|hpagent|openid-client|jsonpath-plus|tar-fs|tar-stream)\//;

function runNode(script: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: FUNCTION_NODE_OPTIONS, ...env },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podlift-function-bundle-'));
  const options = functionBuildOptions('provisioner', join(dir, 'provisioner'), { metafile: true });
  const result = await build(options);
  metafile = result.metafile as Metafile;
  provisioner = options.outfile;
  if (FUNCTIONS_READING_THE_CATALOG.has('provisioner')) writeCatalogAsset(join(dir, 'provisioner'));
  const probeOptions = functionBuildOptions(
    { entry: new URL('./fixtures/catalog-probe.ts', import.meta.url).pathname },
    join(dir, 'probe'),
  );
  await build(probeOptions);
  probe = probeOptions.outfile;
  writeCatalogAsset(join(dir, 'probe'));
  const kubeProbeOptions = functionBuildOptions(
    { entry: new URL('./fixtures/kube-probe.ts', import.meta.url).pathname },
    join(dir, 'kube-probe'),
  );
  await build(kubeProbeOptions);
  kubeProbe = kubeProbeOptions.outfile;
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a function bundle', () => {
  it('leaves the catalog data and the packages no function reaches out of its JavaScript', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.some((path) => path.includes('node_modules/@kubernetes/client-node/'))).toBe(true);
    expect(inputs.filter((path) => path.includes('catalog/data/'))).toEqual([]);
    expect(inputs.filter((path) => LEFT_OUT.test(path))).toEqual([]);
    expect(inputs.some((path) => path.endsWith('bundle-shims/whatwg-url.ts'))).toBe(true);
    // A field of every record in instance-types.json that no code reads.
    expect(readFileSync(provisioner, 'utf8')).not.toContain('spotAdvisorListed');
  });

  it('carries the compressed catalog beside index.mjs', () => {
    expect(existsSync(join(dir, 'provisioner', BUNDLED_CATALOG_ASSET))).toBe(true);
    expect(FUNCTIONS_READING_THE_CATALOG.has('termination')).toBe(false);
  });

  it('loads in a fresh node without node_modules and exports its handler', () => {
    const runner = join(dir, 'load-provisioner.mjs');
    writeFileSync(
      runner,
      `const m = await import(${JSON.stringify(pathToFileURL(provisioner).href)});\n` +
        'process.stdout.write(typeof m.handler);\n',
    );
    const child = runNode(runner, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('function');
  });
});

describe('the catalog file beside a bundle', () => {
  it('answers from the file the way the bundled JSON does', () => {
    const child = runNode(probe);
    expect(child.status, child.stderr).toBe(0);
    const answer = JSON.parse(child.stdout);
    expect(answer.types).toBe(bundledInstanceTypes().length);
    expect(answer.m5Large).toEqual(bundledInstanceTypes().find((t) => t.name === 'm5.large'));
    expect(answer.m5LargeUsEast1).toBe(loadBundledCatalog('us-east-1').prices.onDemand.get('m5.large'));
  });

  it('is required: without it the bundle fails, naming the file', () => {
    const bare = join(dir, 'probe-without-catalog');
    mkdirSync(bare);
    copyFileSync(probe, join(bare, 'index.mjs'));
    const child = runNode(join(bare, 'index.mjs'));
    expect(child.status).not.toBe(0);
    expect(child.stderr).toContain(`${join(bare, BUNDLED_CATALOG_ASSET)} does not exist`);
  });
});

describe('client-node in a bundle', () => {
  it('still reads and writes through a fake API server on the paths the functions take', async () => {
    const server = await startFakeKubeApiServer({ requireToken: 'probe-token' });
    try {
      server.store.seed('nodes', nodeManifest({ name: 'probe-node' }));
      const { stdout } = await promisify(execFile)(process.execPath, [kubeProbe, server.url, 'probe-token'], {
        env: { ...process.env, NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
      });
      const answer = JSON.parse(stdout);
      expect(answer.version).toMatchObject({ major: expect.any(Number), minor: expect.any(Number) });
      expect(answer.nodes).toEqual([
        { name: 'probe-node', labels: expect.objectContaining({ 'podlift.sh/probed': 'yes' }) },
      ]);
      expect(answer.nodeClaims).toBe(0);
      expect(server.store.get('nodes', 'probe-node').metadata.labels).toMatchObject({
        'podlift.sh/probed': 'yes',
      });
    } finally {
      await server.close();
    }
  });
});
