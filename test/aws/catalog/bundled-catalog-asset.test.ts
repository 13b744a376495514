import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLED_CATALOG_ASSET,
  decodeBundledCatalogAsset,
  encodeBundledCatalogAsset,
  readBundledCatalog,
} from '../../../shared/aws/catalog/bundled-catalog-asset';
import { bundledInstanceTypes, loadBundledCatalog } from '../../../shared/core/catalog/bundled';

const DATA = new URL('../../../shared/core/catalog/data/', import.meta.url);
const json = {
  instanceTypes: JSON.parse(readFileSync(new URL('instance-types.json', DATA), 'utf8')),
  prices: JSON.parse(readFileSync(new URL('prices.json', DATA), 'utf8')),
};
const dir = mkdtempSync(join(tmpdir(), 'podlift-catalog-asset-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled catalog file', () => {
  it('holds the same catalog as the JSON, in a tenth of its size', () => {
    const bytes = encodeBundledCatalogAsset(json);
    const catalog = decodeBundledCatalogAsset(bytes, BUNDLED_CATALOG_ASSET);

    expect(bytes.length).toBeLessThan(JSON.stringify(json).length / 10);
    expect(catalog.instanceTypes()).toEqual(bundledInstanceTypes());
    expect(catalog.catalog('eu-west-1')).toEqual(loadBundledCatalog('eu-west-1'));
  });

  it('is read from beside the bundle before the source data', () => {
    const asset = join(dir, BUNDLED_CATALOG_ASSET);
    const trimmed = { ...json.instanceTypes, instanceTypes: json.instanceTypes.instanceTypes.slice(0, 3) };
    writeFileSync(asset, encodeBundledCatalogAsset({ instanceTypes: trimmed, prices: json.prices }));

    const catalog = readBundledCatalog({ asset, sourceDir: DATA.pathname });

    expect(catalog.instanceTypes()).toHaveLength(3);
  });

  it('falls back to the source data when there is no file (running from source)', () => {
    const catalog = readBundledCatalog({ asset: join(dir, 'missing.br'), sourceDir: DATA.pathname });

    expect(catalog.instanceTypes()).toHaveLength(bundledInstanceTypes().length);
  });

  it('names both places when neither exists', () => {
    expect(() =>
      readBundledCatalog({ asset: join(dir, 'missing.br'), sourceDir: `${dir}/nowhere/` }),
    ).toThrow(`${join(dir, 'missing.br')} does not exist, nor does ${dir}/nowhere/instance-types.json`);
  });

  it('names the file when it is not brotli, and the part and field when a record is malformed', () => {
    expect(() => decodeBundledCatalogAsset(Buffer.from('not brotli'), '/var/task/catalog.json.br')).toThrow(
      /reading the bundled instance catalog \/var\/task\/catalog\.json\.br: Error: /,
    );
    const [first, ...rest] = json.instanceTypes.instanceTypes;
    const broken = { ...json.instanceTypes, instanceTypes: [{ ...first, vcpu: 'two' }, ...rest] };
    expect(() =>
      decodeBundledCatalogAsset(
        encodeBundledCatalogAsset({ instanceTypes: broken, prices: json.prices }),
        '/var/task/catalog.json.br',
      ),
    ).toThrow(/\/var\/task\/catalog\.json\.br \(instanceTypes\)[\s\S]*instanceTypes\.0\.vcpu/);
  });
});
