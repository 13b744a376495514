import {
  ExpiredNextTokenException,
  type Filter,
  type GetProductsCommandInput,
  type GetProductsCommandOutput,
  InternalErrorException,
  InvalidNextTokenException,
  InvalidParameterException,
  NotFoundException,
  PricingServiceException,
  ThrottlingException,
} from '@aws-sdk/client-pricing';
import type { Clock } from '../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from './fake-service';
import { listingKey, PageRequestError, paginate } from './pagination';
import { type ModeledExceptionClass, ServiceErrorFactory } from './service-error';

/** One EC2 on-demand price to seed. Attributes default to what podlift filters on. */
export interface OnDemandPriceSeed {
  readonly instanceType: string;
  readonly regionCode: string;
  /** USD per hour. */
  readonly usdPerHour: number;
  /** @default 'Linux' */
  readonly operatingSystem?: string;
  /** @default 'Shared' */
  readonly tenancy?: string;
  /** @default 'NA' */
  readonly preInstalledSw?: string;
  /** @default 'Used' */
  readonly capacitystatus?: string;
  /** @default 'No License required' */
  readonly licenseModel?: string;
  /** Extra product attributes, e.g. vcpu or memory. */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** Options of `FakePricing`. */
export interface FakePricingOptions {
  readonly clock: Clock;
  readonly prices?: readonly OnDemandPriceSeed[];
}

const modeled = (type: unknown) => type as ModeledExceptionClass;

const MODELED: Readonly<Record<string, ModeledExceptionClass>> = {
  InvalidParameterException: modeled(InvalidParameterException),
  InvalidNextTokenException: modeled(InvalidNextTokenException),
  ExpiredNextTokenException: modeled(ExpiredNextTokenException),
  NotFoundException: modeled(NotFoundException),
  InternalErrorException: modeled(InternalErrorException),
  ThrottlingException: modeled(ThrottlingException),
};

/** Region code → the `location` attribute the price list uses. */
const LOCATIONS: Readonly<Record<string, string>> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-1': 'US West (N. California)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'EU (Ireland)',
  'eu-central-1': 'EU (Frankfurt)',
  'ap-south-1': 'Asia Pacific (Mumbai)',
  'ap-southeast-1': 'Asia Pacific (Singapore)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
};

interface Product {
  readonly sku: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly usdPerHour: number;
}

/**
 * The AWS Price List Query API for AmazonEC2: GetProducts returns each matching product as a
 * JSON string shaped like the real price list (product.attributes, terms.OnDemand.*.
 * priceDimensions.*.pricePerUnit.USD), in pages of at most 100. `setUnreachable(true)` makes
 * it fail like an endpoint that cannot be resolved, to exercise the bundled-price fallback.
 */
export class FakePricing extends FakeAwsService {
  readonly clientName = 'PricingClient';

  protected readonly throttlingErrorName = 'ThrottlingException';
  protected readonly errors = new ServiceErrorFactory(PricingServiceException, MODELED, {
    InternalErrorException: { fault: 'server', httpStatusCode: 500 },
  });
  protected readonly operations = { GetProducts: this.getProducts };

  private readonly products: Product[] = [];

  constructor(options: FakePricingOptions) {
    super(options.clock);
    for (const price of options.prices ?? []) this.addOnDemandPrice(price);
  }

  /** Seeds one product; not logged. */
  addOnDemandPrice(seed: OnDemandPriceSeed): void {
    const sku = `SKU${(this.products.length + 1).toString(36).toUpperCase().padStart(13, '0')}`;
    this.products.push({
      sku,
      usdPerHour: seed.usdPerHour,
      attributes: {
        servicecode: 'AmazonEC2',
        productFamily: 'Compute Instance',
        instanceType: seed.instanceType,
        instanceFamily: 'General purpose',
        regionCode: seed.regionCode,
        location: LOCATIONS[seed.regionCode] ?? seed.regionCode,
        locationType: 'AWS Region',
        operatingSystem: seed.operatingSystem ?? 'Linux',
        tenancy: seed.tenancy ?? 'Shared',
        preInstalledSw: seed.preInstalledSw ?? 'NA',
        capacitystatus: seed.capacitystatus ?? 'Used',
        licenseModel: seed.licenseModel ?? 'No License required',
        marketoption: 'OnDemand',
        operation: 'RunInstances',
        usagetype: `BoxUsage:${seed.instanceType}`,
        ...seed.attributes,
      },
    });
  }

  getProducts(input: GetProductsCommandInput): OperationOutput<GetProductsCommandOutput> {
    if (input.ServiceCode === undefined || input.ServiceCode === '') {
      throw this.fail('InvalidParameterException', 'Input validation error: ServiceCode is required');
    }
    for (const filter of input.Filters ?? []) {
      if (filter.Field === undefined || filter.Value === undefined || filter.Type === undefined) {
        throw this.fail(
          'InvalidParameterException',
          'Input validation error: every filter needs Type, Field and Value',
        );
      }
    }
    const matching = this.products.filter(
      (product) =>
        product.attributes.servicecode === input.ServiceCode &&
        (input.Filters ?? []).every((filter) => matchesFilter(product, filter)),
    );
    try {
      const page = paginate(
        matching,
        input,
        { defaultSize: 100, min: 1, max: 100 },
        listingKey('GetProducts', input),
      );
      return {
        FormatVersion: input.FormatVersion ?? 'aws_v1',
        PriceList: page.items.map((product) => JSON.stringify(priceListEntry(product))),
        NextToken: page.nextToken,
      };
    } catch (error) {
      if (!(error instanceof PageRequestError)) throw error;
      if (error.reason === 'invalid-token')
        throw this.fail('InvalidNextTokenException', 'The next token is invalid.');
      throw this.fail('InvalidParameterException', `Input validation error: ${error.message}`);
    }
  }
}

/** TERM_MATCH compares case-insensitively; the other filter types compare exactly. */
function matchesFilter(product: Product, filter: Filter): boolean {
  const field = Object.keys(product.attributes).find(
    (key) => key.toLowerCase() === filter.Field?.toLowerCase(),
  );
  const actual = field === undefined ? undefined : product.attributes[field];
  const wanted = filter.Value ?? '';
  switch (filter.Type) {
    case 'TERM_MATCH':
      return actual?.toLowerCase() === wanted.toLowerCase();
    case 'EQUALS':
      return actual === wanted;
    case 'CONTAINS':
      return actual?.includes(wanted) ?? false;
    case 'ANY_OF':
      return wanted.split(',').some((value) => value.trim() === actual);
    case 'NONE_OF':
      return !wanted.split(',').some((value) => value.trim() === actual);
    default:
      return false;
  }
}

function priceListEntry(product: Product) {
  const offerTermCode = 'JRTCKXETXF';
  const rateCode = `${product.sku}.${offerTermCode}.6YS6EN2CT7`;
  return {
    product: {
      productFamily: product.attributes.productFamily,
      attributes: product.attributes,
      sku: product.sku,
    },
    serviceCode: product.attributes.servicecode,
    terms: {
      OnDemand: {
        [`${product.sku}.${offerTermCode}`]: {
          priceDimensions: {
            [rateCode]: {
              unit: 'Hrs',
              endRange: 'Inf',
              description: `$${product.usdPerHour} per On Demand ${product.attributes.operatingSystem} ${product.attributes.instanceType} Instance Hour`,
              appliesTo: [],
              rateCode,
              beginRange: '0',
              pricePerUnit: { USD: product.usdPerHour.toFixed(10) },
            },
          },
          sku: product.sku,
          effectiveDate: '2026-07-01T00:00:00Z',
          offerTermCode,
          termAttributes: {},
        },
      },
    },
    version: '20260701000000',
    publicationDate: '2026-07-01T00:00:00Z',
  };
}
