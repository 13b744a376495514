import { type Filter, type PricingClient, paginateGetProducts } from '@aws-sdk/client-pricing';
import { CloudError } from '../../core/model/errors';
import { cloudErrorFrom } from '../aws-error';

/**
 * Linux on-demand prices from the AWS Price List Query API, read as Karpenter's pricing provider
 * reads them (aws/karpenter-provider-aws `pkg/providers/pricing/pricing.go`).
 */

/**
 * The region whose Pricing endpoint serves `region`, as Karpenter's `pricing.NewAPI` picks it:
 * the API only has endpoints in us-east-1, eu-central-1, ap-south-1 (and cn-northwest-1 for
 * the China partition), and any of them answers for every region of its partition.
 */
export function pricingEndpointRegion(region: string): string {
  if (region.startsWith('ap-')) return 'ap-south-1';
  if (region.startsWith('cn-')) return 'cn-northwest-1';
  if (region.startsWith('eu-')) return 'eu-central-1';
  return 'us-east-1';
}

/** Whether the Pricing API serves the region at all: not in AWS GovCloud (Karpenter keeps its static prices there). */
export function pricingApiServes(region: string): boolean {
  return !region.startsWith('us-gov-');
}

/** The price list's currency in the region's partition. */
export function pricingCurrency(region: string): 'USD' | 'CNY' {
  return region.startsWith('cn-') ? 'CNY' : 'USD';
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The instance type and hourly price of one GetProducts `PriceList` entry (a JSON string:
 * product.attributes.instanceType, terms.OnDemand.*.priceDimensions.*.pricePerUnit.<currency>),
 * or undefined when it is not JSON, names no instance type or has no non-zero price. When an
 * entry has several dimensions the last non-zero one wins, as in Karpenter.
 */
export function onDemandPriceOf(
  priceListItem: string,
  currency: string,
): { readonly instanceType: string; readonly price: number } | undefined {
  let item: unknown;
  try {
    item = JSON.parse(priceListItem);
  } catch {
    return undefined;
  }
  if (!isRecord(item) || !isRecord(item.product) || !isRecord(item.product.attributes)) return undefined;
  const instanceType = item.product.attributes.instanceType;
  if (typeof instanceType !== 'string' || instanceType === '') return undefined;
  const terms = isRecord(item.terms) && isRecord(item.terms.OnDemand) ? item.terms.OnDemand : {};
  let price: number | undefined;
  for (const term of Object.values(terms)) {
    const dimensions = isRecord(term) && isRecord(term.priceDimensions) ? term.priceDimensions : {};
    for (const dimension of Object.values(dimensions)) {
      const perUnit = isRecord(dimension) && isRecord(dimension.pricePerUnit) ? dimension.pricePerUnit : {};
      const value = perUnit[currency];
      const parsed = typeof value === 'string' ? Number.parseFloat(value) : Number.NaN;
      if (Number.isFinite(parsed) && parsed > 0) price = parsed;
    }
  }
  return price === undefined ? undefined : { instanceType, price };
}

/** What {@link fetchOnDemandPrices} found. */
export interface OnDemandPriceList {
  /** Instance type → price per hour in the partition's currency. */
  readonly prices: ReadonlyMap<string, number>;
  /** Price list entries that could not be read (not JSON, no instance type, no price). */
  readonly unreadable: number;
}

/** Filters every query shares: Linux, no pre-installed software, used capacity, on-demand. */
function commonFilters(region: string): Filter[] {
  return [
    { Type: 'TERM_MATCH', Field: 'regionCode', Value: region },
    { Type: 'TERM_MATCH', Field: 'serviceCode', Value: 'AmazonEC2' },
    { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
    { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
    { Type: 'TERM_MATCH', Field: 'capacitystatus', Value: 'Used' },
    { Type: 'TERM_MATCH', Field: 'marketoption', Value: 'OnDemand' },
  ];
}

async function queryPrices(
  pricing: PricingClient,
  filters: Filter[],
  currency: string,
): Promise<{ prices: Map<string, number>; unreadable: number }> {
  const prices = new Map<string, number>();
  let unreadable = 0;
  const pages = paginateGetProducts(
    { client: pricing, pageSize: 100 },
    { ServiceCode: 'AmazonEC2', Filters: filters },
  );
  for await (const page of pages) {
    for (const item of page.PriceList ?? []) {
      const entry = onDemandPriceOf(item, currency);
      if (entry === undefined) unreadable += 1;
      else prices.set(entry.instanceType, entry.price);
    }
  }
  return { prices, unreadable };
}

/**
 * Linux on-demand prices of `region`, paged through GetProducts. Two queries, as Karpenter
 * makes: shared-tenancy "Compute Instance" products, and bare-metal types, which the price list
 * files under "Compute Instance (bare metal)" with tenancy Dedicated.
 *
 * @throws CloudError when the Pricing API fails or returns no shared-tenancy price for the region
 */
export async function fetchOnDemandPrices(
  pricing: PricingClient,
  region: string,
): Promise<OnDemandPriceList> {
  const doing = `getting on-demand prices for ${region} from the Pricing API`;
  const currency = pricingCurrency(region);
  let shared: Awaited<ReturnType<typeof queryPrices>>;
  let metal: Awaited<ReturnType<typeof queryPrices>>;
  try {
    [shared, metal] = await Promise.all([
      queryPrices(
        pricing,
        [
          ...commonFilters(region),
          { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Shared' },
          { Type: 'TERM_MATCH', Field: 'productFamily', Value: 'Compute Instance' },
        ],
        currency,
      ),
      queryPrices(
        pricing,
        [
          ...commonFilters(region),
          { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Dedicated' },
          { Type: 'TERM_MATCH', Field: 'productFamily', Value: 'Compute Instance (bare metal)' },
        ],
        currency,
      ),
    ]);
  } catch (error) {
    throw cloudErrorFrom(doing, error);
  }
  if (shared.prices.size === 0) {
    throw new CloudError(`${doing}: the price list has no Linux shared-tenancy price`, undefined, true);
  }
  return {
    prices: new Map([...shared.prices, ...metal.prices]),
    unreadable: shared.unreadable + metal.unreadable,
  };
}
