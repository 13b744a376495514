import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { type BundledCatalog, isUnknownRegionError } from '../../core/catalog/bundled-catalog';
import type { Catalog, InstanceTypeInfo } from '../../core/catalog/instance-type';
import { CloudError } from '../../core/model/errors';
import type { InstanceCatalogPort } from '../../core/ports/cloud';
import type { Clock } from '../../core/ports/time';
import { bundledCatalogOnce } from './bundled-catalog-asset';
import { describeInstanceTypes } from './instance-types';
import { fetchOnDemandPrices, pricingApiServes } from './on-demand-prices';
import { describeSpotPrices, type SpotPrices } from './spot-prices';
import { describeZoneOfferings, type ZoneOfferings } from './zone-offerings';

/**
 * Where the live catalog reports what it had to work around. Powertools' Logger fits (`fields`
 * is required because an optional one would not match its overloads).
 */
export interface CatalogLogger {
  warn(message: string, fields: Readonly<Record<string, unknown>>): void;
}

/** How long each part of the catalog is trusted before it is fetched again, in ms. */
export interface CatalogRefreshPeriods {
  /** DescribeInstanceTypes. */
  readonly instanceTypes: number;
  /** DescribeInstanceTypeOfferings. */
  readonly offerings: number;
  /** DescribeSpotPriceHistory. */
  readonly spotPrices: number;
  /** Pricing API GetProducts. */
  readonly onDemandPrices: number;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Karpenter's periods: its instance-type controller refreshes types and offerings every 12 h
 * (`pkg/controllers/providers/instancetype/controller.go`, RequeueAfter 12h) and its pricing
 * controller refreshes spot and on-demand prices every 12 h
 * (`pkg/controllers/providers/pricing/controller.go`, RequeueAfter 12h).
 */
export const DEFAULT_CATALOG_REFRESH_PERIODS: CatalogRefreshPeriods = {
  instanceTypes: 12 * HOUR_MS,
  offerings: 12 * HOUR_MS,
  spotPrices: 12 * HOUR_MS,
  onDemandPrices: 12 * HOUR_MS,
};

/**
 * How soon a part that failed to refresh is tried again while an older copy is served
 * (Karpenter's DefaultTTL for AWS reads, `pkg/cache/cache.go`).
 */
export const DEFAULT_CATALOG_RETRY_MS = 60 * 1000;

/** Options of {@link LiveInstanceCatalog}. */
export interface LiveInstanceCatalogOptions {
  /** The region the EC2 client talks to; also the Pricing API's `regionCode` filter. */
  readonly region: string;
  readonly ec2: EC2Client;
  /** A client for the Pricing endpoint `pricingEndpointRegion(region)` names (us-east-1 for most regions). */
  readonly pricing: PricingClient;
  readonly clock: Clock;
  readonly logger: CatalogLogger;
  /** @default DEFAULT_CATALOG_REFRESH_PERIODS (12 h each) */
  readonly refreshPeriods?: Partial<CatalogRefreshPeriods>;
  /** @default DEFAULT_CATALOG_RETRY_MS (1 minute) */
  readonly retryAfterFailureMs?: number;
  /**
   * No route to the Pricing API (Karpenter's `--isolated-vpc`): on-demand prices come from the
   * bundled table only.
   * @default false
   */
  readonly isolatedVpc?: boolean;
  /**
   * The bundled catalog, asked for on the first refresh (not at construction: a function that
   * never reads the catalog never loads it).
   * @default bundledCatalogOnce: the compressed file beside the function bundle, or the
   * repository's data when running from source
   */
  readonly bundled?: () => BundledCatalog;
}

type SourceName = keyof CatalogRefreshPeriods;

const ALL_SOURCES: readonly SourceName[] = ['instanceTypes', 'offerings', 'spotPrices', 'onDemandPrices'];

interface SourceValues {
  instanceTypes: readonly InstanceTypeInfo[];
  offerings: ZoneOfferings;
  spotPrices: SpotPrices;
  onDemandPrices: ReadonlyMap<string, number>;
}

interface SourceState<T> {
  value: T | undefined;
  /** When `value` was fetched; -Infinity while it is missing or a fallback. */
  fetchedAt: number;
  /** Not tried again before this time after a failure, while a value is held. */
  retryAt: number;
}

type SourceStates = { [K in SourceName]: SourceState<SourceValues[K]> };

interface Refresh {
  readonly sources: ReadonlySet<SourceName>;
  readonly promise: Promise<Catalog>;
}

/**
 * The region's {@link Catalog}, live from EC2 and the Pricing API: DescribeInstanceTypes
 * (mapped like the bundled catalog), DescribeInstanceTypeOfferings (`typeZones`, `zones`),
 * DescribeSpotPriceHistory (`prices.spot`) and GetProducts (`prices.onDemand`).
 *
 * Made once in a Lambda's module scope, so warm invocations share its cache. Each part is
 * refreshed when older than its period ({@link DEFAULT_CATALOG_REFRESH_PERIODS}) on the injected
 * clock; concurrent callers share one in-flight refresh. `catalog()` returns the same object
 * until a refresh replaces something, then a new one, so `resolveInstanceTypes` stays memoised.
 *
 * Failures: a part that fails keeps its last good value (a warning is logged, and it is tried
 * again after `retryAfterFailureMs`); with no last good value `catalog()` throws a
 * {@link CloudError}. On-demand prices never fail: types the Pricing API does not price, or every
 * type when it is unreachable, get the bundled price (as Karpenter keeps its generated static
 * prices), and GovCloud and isolated VPCs use the bundled prices only.
 */
export class LiveInstanceCatalog implements InstanceCatalogPort {
  private readonly region: string;
  private readonly ec2: EC2Client;
  private readonly pricing: PricingClient;
  private readonly clock: Clock;
  private readonly logger: CatalogLogger;
  private readonly periods: CatalogRefreshPeriods;
  private readonly retryAfterFailureMs: number;
  private readonly isolatedVpc: boolean;
  private readonly bundled: () => BundledCatalog;
  private readonly states: SourceStates = {
    instanceTypes: { value: undefined, fetchedAt: -Infinity, retryAt: -Infinity },
    offerings: { value: undefined, fetchedAt: -Infinity, retryAt: -Infinity },
    spotPrices: { value: undefined, fetchedAt: -Infinity, retryAt: -Infinity },
    onDemandPrices: { value: undefined, fetchedAt: -Infinity, retryAt: -Infinity },
  };
  private current: Catalog | undefined;
  private inFlight: Refresh | undefined;
  private bundledOnDemand: ReadonlyMap<string, number> | undefined;

  constructor(options: LiveInstanceCatalogOptions) {
    this.region = options.region;
    this.ec2 = options.ec2;
    this.pricing = options.pricing;
    this.clock = options.clock;
    this.logger = options.logger;
    this.periods = { ...DEFAULT_CATALOG_REFRESH_PERIODS, ...options.refreshPeriods };
    this.retryAfterFailureMs = options.retryAfterFailureMs ?? DEFAULT_CATALOG_RETRY_MS;
    this.isolatedVpc = options.isolatedVpc ?? false;
    this.bundled = options.bundled ?? bundledCatalogOnce;
  }

  /** The cached catalog, refreshing the parts older than their period first. */
  async catalog(): Promise<Catalog> {
    if (this.inFlight !== undefined) return this.inFlight.promise;
    const due = this.dueSources();
    if (due.length === 0 && this.current !== undefined) return this.current;
    return this.start(due).promise;
  }

  /** Fetches every part now (joining a full refresh already under way). */
  async refresh(): Promise<Catalog> {
    // A partial refresh under way would leave some parts unrefreshed: wait for it, then force all.
    while (this.inFlight !== undefined && this.inFlight.sources.size < ALL_SOURCES.length) {
      await this.inFlight.promise.catch(() => undefined);
    }
    return (this.inFlight ?? this.start(ALL_SOURCES)).promise;
  }

  private dueSources(): SourceName[] {
    const now = this.clock.now();
    return ALL_SOURCES.filter((name) => {
      const state = this.states[name];
      if (state.value === undefined) return true;
      return now >= state.fetchedAt + this.periods[name] && now >= state.retryAt;
    });
  }

  private start(sources: readonly SourceName[]): Refresh {
    const refresh: Refresh = {
      sources: new Set(sources),
      promise: this.load(sources).finally(() => {
        if (this.inFlight === refresh) this.inFlight = undefined;
      }),
    };
    this.inFlight = refresh;
    return refresh;
  }

  private async load(sources: readonly SourceName[]): Promise<Catalog> {
    const now = this.clock.now();
    const results = await Promise.allSettled(sources.map((name) => this.fetch(name, now)));
    let changed = false;
    const missing: CloudError[] = [];
    results.forEach((result, i) => {
      const name = sources[i];
      const state = this.states[name];
      if (result.status === 'fulfilled') {
        changed ||= result.value;
        return;
      }
      const error =
        result.reason instanceof CloudError
          ? result.reason
          : new CloudError(
              `refreshing ${name} in ${this.region}: ${String(result.reason)}`,
              undefined,
              false,
              {
                cause: result.reason,
              },
            );
      state.retryAt = now + this.retryAfterFailureMs;
      if (state.value !== undefined) {
        this.logger.warn('instance catalog: refresh failed, keeping the last good data', {
          region: this.region,
          part: name,
          fetchedAt: Number.isFinite(state.fetchedAt) ? new Date(state.fetchedAt).toISOString() : undefined,
          error: error.message,
          code: error.code,
        });
      } else {
        missing.push(error);
      }
    });
    if (missing.length > 0) {
      const [first] = missing;
      throw new CloudError(
        `loading the instance catalog for ${this.region}: ${missing.map((e) => e.message).join('; ')}`,
        first.code,
        missing.every((e) => e.retryable),
        { cause: first },
      );
    }
    if (changed || this.current === undefined) this.current = this.build();
    return this.current;
  }

  /** Fetches one part and stores it; whether its value changed. Throws what the fetch threw. */
  private async fetch(name: SourceName, now: number): Promise<boolean> {
    switch (name) {
      case 'instanceTypes': {
        const known = new Map(
          this.bundled()
            .instanceTypes()
            .map((info) => [info.name, info]),
        );
        const { types, skipped } = await describeInstanceTypes(this.ec2, known);
        if (skipped.length > 0) {
          this.logger.warn('instance catalog: skipped instance types EC2 describes incompletely', {
            region: this.region,
            instanceTypes: skipped.slice(0, 20),
            count: skipped.length,
          });
        }
        this.store('instanceTypes', types, now);
        return true;
      }
      case 'offerings':
        this.store('offerings', await describeZoneOfferings(this.ec2), now);
        return true;
      case 'spotPrices':
        this.store('spotPrices', await describeSpotPrices(this.ec2, now), now);
        return true;
      case 'onDemandPrices':
        return this.fetchOnDemand(now);
    }
  }

  private store<K extends SourceName>(name: K, value: SourceValues[K], now: number): void {
    const state = this.states[name];
    state.value = value;
    state.fetchedAt = now;
    state.retryAt = -Infinity;
  }

  /**
   * Live prices over the bundled ones (a type the Pricing API does not price keeps its bundled
   * price). When the API fails the bundled table is used until it answers; that is not an error.
   * Whether the stored prices changed.
   */
  private async fetchOnDemand(now: number): Promise<boolean> {
    const bundled = this.bundledOnDemandPrices();
    if (this.isolatedVpc || !pricingApiServes(this.region)) {
      this.store('onDemandPrices', bundled, now);
      return true;
    }
    const state = this.states.onDemandPrices;
    try {
      const { prices, unreadable } = await fetchOnDemandPrices(this.pricing, this.region);
      if (unreadable > 0) {
        this.logger.warn('instance catalog: ignored unreadable Pricing API entries', {
          region: this.region,
          count: unreadable,
        });
      }
      this.store('onDemandPrices', new Map([...bundled, ...prices]), now);
      return true;
    } catch (error) {
      const cloudError = error instanceof CloudError ? error : undefined;
      const fallback = state.value === undefined;
      this.logger.warn(
        fallback
          ? 'instance catalog: Pricing API unavailable, using bundled on-demand prices'
          : 'instance catalog: Pricing API unavailable, keeping the last on-demand prices',
        {
          region: this.region,
          error: cloudError?.message ?? String(error),
          code: cloudError?.code,
        },
      );
      // A fallback is a value but not a fetch: it stays due, so the API is asked again after the retry delay.
      if (fallback) state.value = bundled;
      state.retryAt = now + this.retryAfterFailureMs;
      return fallback;
    }
  }

  /** The bundled on-demand table of the region; us-east-1's for a region podlift has no data for (as Karpenter does). */
  private bundledOnDemandPrices(): ReadonlyMap<string, number> {
    if (this.bundledOnDemand === undefined) {
      try {
        this.bundledOnDemand = this.bundled().catalog(this.region).prices.onDemand;
      } catch (error) {
        if (!isUnknownRegionError(error)) throw error;
        this.logger.warn('instance catalog: no bundled prices for the region, falling back to us-east-1', {
          region: this.region,
        });
        this.bundledOnDemand = this.bundled().catalog('us-east-1').prices.onDemand;
      }
    }
    return this.bundledOnDemand;
  }

  private build(): Catalog {
    const { instanceTypes, offerings, spotPrices, onDemandPrices } = this.states;
    // load() throws before build() whenever a part has never been loaded.
    if (
      instanceTypes.value === undefined ||
      offerings.value === undefined ||
      spotPrices.value === undefined ||
      onDemandPrices.value === undefined
    ) {
      throw new CloudError(
        `building the instance catalog for ${this.region}: a part is missing`,
        undefined,
        true,
      );
    }
    return {
      region: this.region,
      zones: offerings.value.zones,
      types: instanceTypes.value,
      prices: { onDemand: onDemandPrices.value, spot: spotPrices.value },
      typeZones: offerings.value.typeZones,
    };
  }
}
