import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { BundledCatalog } from '../../core/catalog/bundled-catalog';
import { PodliftError } from '../../core/model/errors';

/**
 * The bundled instance catalog as the Lambda functions carry it: not in their JavaScript (1.5 MB
 * of JSON turned into object literals that every cold start would parse and build), but as one
 * brotli-compressed file beside `index.mjs`, read and validated on first use. Only a catalog
 * refresh needs it (the fields DescribeInstanceTypes lacks, the prices the Pricing API lacks),
 * so a function that never reads the catalog (termination) never loads it, and its bundle is
 * built without the file (infra/parts/function-bundle.ts).
 */

/** The file name of the compressed catalog beside a function's `index.mjs`. */
export const BUNDLED_CATALOG_ASSET = 'catalog.json.br';

/** The two JSON documents of shared/core/catalog/data, parsed. */
export interface BundledCatalogJson {
  readonly instanceTypes: unknown;
  readonly prices: unknown;
}

/** The catalog file is missing or unreadable. */
export class BundledCatalogAssetError extends PodliftError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BundledCatalogAssetError';
  }
}

/**
 * The file's bytes: the two documents in one JSON object, brotli quality 9. Quality 11 saves
 * another 28 KB (66 KB instead of 94 KB) but takes 3.7 s instead of 0.1 s on this machine;
 * decompressing either takes ~2 ms.
 */
export function encodeBundledCatalogAsset(json: BundledCatalogJson): Buffer {
  const text = JSON.stringify({ instanceTypes: json.instanceTypes, prices: json.prices });
  return brotliCompressSync(text, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
    },
  });
}

/**
 * The catalog in `bytes` (as {@link encodeBundledCatalogAsset} wrote them), validated.
 * @param file where the bytes came from, named in errors.
 */
export function decodeBundledCatalogAsset(bytes: Uint8Array, file: string): BundledCatalog {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(brotliDecompressSync(bytes).toString('utf8'));
  } catch (error) {
    throw new BundledCatalogAssetError(`reading the bundled instance catalog ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  return new BundledCatalog(json.instanceTypes, json.prices, {
    instanceTypes: `${file} (instanceTypes)`,
    prices: `${file} (prices)`,
  });
}

/** Where {@link readBundledCatalog} looks. */
export interface BundledCatalogLocations {
  /** The compressed file: beside the running bundle. */
  readonly asset: string;
  /** The source JSON: the repository's data folder, when running from source (tests, simulator). */
  readonly sourceDir: string;
}

/**
 * Beside this module: inside a function bundle that is the bundle's directory (where the
 * stack puts the file); from source it is shared/aws/catalog, which has no such file, and
 * `sourceDir` is the repository's copy of the data. In a bundle `sourceDir` points outside the
 * deployment package and does not exist, so a bundle without its file fails instead of
 * finding the data some other way.
 */
export const DEFAULT_BUNDLED_CATALOG_LOCATIONS: BundledCatalogLocations = {
  asset: fileURLToPath(new URL(BUNDLED_CATALOG_ASSET, import.meta.url)),
  sourceDir: fileURLToPath(new URL('../../core/catalog/data/', import.meta.url)),
};

/**
 * Reads the bundled catalog: the compressed file if it exists, else the source JSON.
 * @throws BundledCatalogAssetError naming both places when neither exists.
 */
export function readBundledCatalog(
  locations: BundledCatalogLocations = DEFAULT_BUNDLED_CATALOG_LOCATIONS,
): BundledCatalog {
  if (existsSync(locations.asset))
    return decodeBundledCatalogAsset(readFileSync(locations.asset), locations.asset);
  const instanceTypesFile = `${locations.sourceDir}instance-types.json`;
  const pricesFile = `${locations.sourceDir}prices.json`;
  if (!existsSync(instanceTypesFile) || !existsSync(pricesFile)) {
    throw new BundledCatalogAssetError(
      `reading the bundled instance catalog: ${locations.asset} does not exist, nor does ${instanceTypesFile} ` +
        '(a function bundle must be built with its catalog file, see infra/parts/function-bundle.ts)',
    );
  }
  return new BundledCatalog(
    JSON.parse(readFileSync(instanceTypesFile, 'utf8')),
    JSON.parse(readFileSync(pricesFile, 'utf8')),
    { instanceTypes: instanceTypesFile, prices: pricesFile },
  );
}

let loaded: BundledCatalog | undefined;

/**
 * The process's bundled catalog from the default locations, read on the first call and kept
 * (a failure is not kept: the next call tries again).
 */
export function bundledCatalogOnce(): BundledCatalog {
  loaded ??= readBundledCatalog();
  return loaded;
}
