import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aws_lambda_nodejs as nodejs } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { FUNCTION_BUNDLE } from '../../infra/parts/function-bundle';
import { functionBundling } from '../../infra/parts/functions';
import { BUNDLED_CATALOG_ASSET } from '../../shared/aws/catalog/bundled-catalog-asset';

const dir = mkdtempSync(join(tmpdir(), 'podlift-function-bundling-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('functionBundling (the NodejsFunctions’ bundling options)', () => {
  it('says what the shared definition says, aliases included', () => {
    const b = FUNCTION_BUNDLE;
    const bundling = functionBundling(undefined);

    expect(bundling).toMatchObject({
      format: nodejs.OutputFormat.ESM,
      target: b.target,
      mainFields: b.mainFields,
      minify: b.minify,
      sourceMap: b.sourcemap,
      sourcesContent: b.sourcesContent,
      banner: b.banner,
      externalModules: b.external,
      forceDockerBundling: false,
    });
    expect(Object.keys(b.alias)).toContain('whatwg-url');
    expect(bundling.esbuildArgs?.['--alias']).toEqual(
      Object.entries(b.alias).map(([pkg, path]) => `${pkg}=${path}`),
    );
    expect(bundling.commandHooks).toBeUndefined();
  });

  it('copies the catalog file beside the bundle after bundling, whatever the paths hold', () => {
    const source = join(dir, "it's here", 'catalog.json.br');
    mkdirSync(join(dir, "it's here"));
    writeFileSync(source, 'catalog bytes');
    const output = join(dir, 'asset output $HOME');
    mkdirSync(output);

    const commands = functionBundling(source).commandHooks?.afterBundling(dir, output) ?? [];
    for (const command of commands) {
      const run = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
    }

    expect(commands).toHaveLength(1);
    expect(readFileSync(join(output, BUNDLED_CATALOG_ASSET), 'utf8')).toBe('catalog bytes');
  });
});
