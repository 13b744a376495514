import { BundledCatalog, type BundledCatalogOptions, type SpotAdvice } from './bundled-catalog';
import instanceTypesJson from './data/instance-types.json' with { type: 'json' };
import pricesJson from './data/prices.json' with { type: 'json' };
import type { Catalog, InstanceTypeInfo } from './instance-type';

/**
 * The instance catalog bundled with podlift (shared/core/catalog/data, see its README): 1,363 EC2 instance
 * types, Linux on-demand prices for 28 regions and the Spot Instance Advisor's savings for 26.
 * It lets the simulator, the CLI and tests plan without an AWS account; the live EC2 adapter
 * builds the same {@link Catalog} from DescribeInstanceTypes and the pricing API.
 *
 * This module imports the JSON into the module graph, so whatever bundles it carries the whole
 * catalog (the CLI does, to start from one file). The Lambda functions do not import it: they
 * read the same data from a compressed file beside their bundle, on first use
 * (shared/aws/catalog/bundled-catalog-asset.ts).
 */

export {
  type BundledCatalogOptions,
  isUnknownRegionError,
  type SpotAdvice,
  UnknownRegionError,
} from './bundled-catalog';

/** The directory of the JSON files, as named in validation errors. */
export const BUNDLED_CATALOG_DATA_DIR = 'shared/core/catalog/data';

let bundled: BundledCatalog | undefined;

/** Validates the JSON once, on first use. */
function data(): BundledCatalog {
  bundled ??= new BundledCatalog(instanceTypesJson, pricesJson, {
    instanceTypes: `${BUNDLED_CATALOG_DATA_DIR}/instance-types.json`,
    prices: `${BUNDLED_CATALOG_DATA_DIR}/prices.json`,
  });
  return bundled;
}

/** Every instance type of the bundled catalog (the 1,363 complete records; partial ones are skipped). */
export function bundledInstanceTypes(): readonly InstanceTypeInfo[] {
  return data().instanceTypes();
}

/** The regions the bundled data has on-demand prices for, sorted. */
export function bundledRegions(): string[] {
  return data().regions();
}

/** The Spot Instance Advisor snapshot for `region` by type; empty for regions it does not cover (us-gov-*). */
export function bundledSpotAdvisor(region: string): ReadonlyMap<string, SpotAdvice> {
  return data().spotAdvisor(region);
}

/**
 * The bundled {@link Catalog} of `region` (see {@link BundledCatalog.catalog}).
 *
 * Without options the same Catalog object is returned on every call, so instance types resolved
 * from it stay memoised.
 *
 * @throws UnknownRegionError for a region without bundled prices.
 * @throws ValidationError for a malformed spot price override.
 */
export function loadBundledCatalog(region: string, options?: BundledCatalogOptions): Catalog {
  return data().catalog(region, options);
}
