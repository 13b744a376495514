/** Which market an instance is bought in, as CreateFleet's `Lifecycle` spells it. */
export type CapacityType = 'spot' | 'on-demand';

/**
 * Selects capacity pools (instance type × Availability Zone × capacity type). An omitted
 * field matches every value.
 */
export interface PoolSelector {
  readonly instanceType?: string;
  readonly availabilityZone?: string;
  readonly capacityType?: CapacityType;
}

/** One capacity pool a fleet override resolves to. */
export interface Pool {
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly capacityType: CapacityType;
}

interface CapacityRule {
  readonly selector: PoolSelector;
  readonly instances: number;
}

interface ScoreRule {
  readonly selector: PoolSelector;
  readonly score: number;
}

interface InjectedLaunchError {
  readonly selector: PoolSelector;
  readonly code: string;
  readonly message: string | undefined;
  remaining: number;
}

/** The error codes AWS returns per override when it cannot launch in a pool. */
export const FLEET_ERROR_MESSAGES: Readonly<Record<string, (pool: Pool) => string>> = {
  InsufficientInstanceCapacity: (pool) =>
    pool.capacityType === 'spot'
      ? 'There is no Spot capacity available that matches your request.'
      : `We currently do not have sufficient ${pool.instanceType} capacity in the Availability Zone you requested (${pool.availabilityZone}). Our system will be working on provisioning additional capacity. You can currently get ${pool.instanceType} capacity by not specifying an Availability Zone in your request or choosing a different Availability Zone.`,
  UnfulfillableCapacity: () =>
    'Unable to fulfill capacity due to your request configuration. Please adjust your request and try again.',
  MaxSpotInstanceCountExceeded: () => 'Max spot instance count exceeded',
  VcpuLimitExceeded: () =>
    'You have requested more vCPU capacity than your current vCPU limit of 0 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.',
  InsufficientFreeAddressesInSubnet: () =>
    'There are not enough free addresses in subnet to satisfy the requested number of instances.',
};

function selects(selector: PoolSelector, pool: Pool): boolean {
  return (
    (selector.instanceType === undefined || selector.instanceType === pool.instanceType) &&
    (selector.availabilityZone === undefined || selector.availabilityZone === pool.availabilityZone) &&
    (selector.capacityType === undefined || selector.capacityType === pool.capacityType)
  );
}

/**
 * How much EC2 has to give, per pool: a ceiling on concurrently live instances (default
 * unlimited), how deep its spare capacity is (the score price-capacity-optimized ranks by),
 * launch errors injected for the next N attempts on matching pools, and the account's vCPU
 * quotas per capacity type.
 */
export class FleetCapacity {
  private readonly rules: CapacityRule[] = [];
  private readonly scores: ScoreRule[] = [];
  private readonly injected: InjectedLaunchError[] = [];
  private readonly vcpuLimits: { spot: number; 'on-demand': number } = {
    spot: Infinity,
    'on-demand': Infinity,
  };

  /** @param seed varies the capacity scores of pools no {@link setCapacityScore} covers */
  constructor(private readonly seed = 1) {}

  /**
   * Caps the live (not terminated) instances in the matching pools at `instances` each.
   * Later calls win over earlier ones for the pools they both match; `Infinity` lifts a cap.
   */
  setCapacity(selector: PoolSelector, instances: number): void {
    this.rules.push({ selector, instances });
  }

  /** The live-instance ceiling of `pool`. */
  capacityOf(pool: Pool): number {
    for (let i = this.rules.length - 1; i >= 0; i -= 1) {
      const rule = this.rules[i]!;
      if (selects(rule.selector, pool)) return rule.instances;
    }
    return Infinity;
  }

  /**
   * Sets how deep the spare capacity of the matching pools is, in [0, 1], 1 the deepest (the
   * lowest interruption likelihood). Later calls win. Pools without a score get one from
   * {@link seededCapacityScore}, so the fake's price-capacity-optimized choice is deterministic
   * without being the cheapest pool.
   */
  setCapacityScore(selector: PoolSelector, score: number): void {
    this.scores.push({ selector, score });
  }

  /** The spare-capacity score of `pool` (see {@link setCapacityScore}). */
  capacityScoreOf(pool: Pool): number {
    for (let i = this.scores.length - 1; i >= 0; i -= 1) {
      const rule = this.scores[i]!;
      if (selects(rule.selector, pool)) return rule.score;
    }
    return seededCapacityScore(this.seed, pool);
  }

  /**
   * Makes the next `times` launch attempts in matching pools fail with `code` (default
   * `InsufficientInstanceCapacity`, i.e. an ICE), whatever the capacity says.
   */
  injectLaunchError(
    selector: PoolSelector,
    code = 'InsufficientInstanceCapacity',
    times = 1,
    message?: string,
  ): void {
    this.injected.push({ selector, code, message, remaining: times });
  }

  /** Consumes and returns the injected error for an attempt in `pool`, if any. */
  takeInjectedError(pool: Pool): { code: string; message: string } | undefined {
    const index = this.injected.findIndex((entry) => entry.remaining > 0 && selects(entry.selector, pool));
    if (index < 0) return undefined;
    const entry = this.injected[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.injected.splice(index, 1);
    return { code: entry.code, message: entry.message ?? fleetErrorMessage(entry.code, pool) };
  }

  /** Sets the account's running-vCPU quota for spot and/or on-demand instances. */
  setVcpuLimit(limits: { readonly spot?: number; readonly onDemand?: number }): void {
    if (limits.spot !== undefined) this.vcpuLimits.spot = limits.spot;
    if (limits.onDemand !== undefined) this.vcpuLimits['on-demand'] = limits.onDemand;
  }

  vcpuLimit(capacityType: CapacityType): number {
    return this.vcpuLimits[capacityType];
  }

  /** Forgets capacity caps, scores, injected errors and quotas. */
  reset(): void {
    this.rules.length = 0;
    this.scores.length = 0;
    this.injected.length = 0;
    this.vcpuLimits.spot = Infinity;
    this.vcpuLimits['on-demand'] = Infinity;
  }
}

/** The message AWS pairs with a per-override fleet error code. */
export function fleetErrorMessage(code: string, pool: Pool): string {
  return (
    FLEET_ERROR_MESSAGES[code]?.(pool) ??
    `The fleet could not launch ${pool.instanceType} in ${pool.availabilityZone}: ${code}`
  );
}

/**
 * A pool's spare-capacity score when none was set: FNV-1a of the seed, type and zone, mixed
 * with MurmurHash3's finaliser (so pools one character apart score apart), in [0, 1). Stable
 * across runs, unrelated to price.
 */
export function seededCapacityScore(
  seed: number,
  pool: Pick<Pool, 'instanceType' | 'availabilityZone'>,
): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}/${pool.instanceType}/${pool.availabilityZone}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

/** Capacity scores are compared in this many tiers: within a tier, price decides. */
const CAPACITY_TIERS = 4;

/** A candidate the fleet may launch into, with what the allocation strategies look at. */
export interface RankedPool {
  /** Position of the override in the request, for stable ordering. */
  readonly index: number;
  /** Hourly price per unit of weighted capacity. */
  readonly pricePerUnit: number;
  /** Instances the pool can still launch right now (may be `Infinity`). */
  readonly available: number;
  /** The override's Priority; lower is preferred; undefined is least preferred. */
  readonly priority: number | undefined;
  /** How deep the pool's spare capacity is, in [0, 1]; see {@link FleetCapacity.setCapacityScore}. */
  readonly capacityScore: number;
}

/**
 * The order in which an instant fleet tries its pools, per allocation strategy:
 * - `lowest-price` (spot and on-demand default): cheapest first, whether or not it has capacity,
 *   so an exhausted cheap pool shows up as an error even when a dearer pool fulfils the request;
 * - `price-capacity-optimized`: pools with capacity, those with the deepest spare capacity
 *   (highest capacity-score tier) first and the cheapest among them, then the exhausted ones.
 *   EC2 documents it so ("identifies the pools with the highest capacity availability ... then
 *   requests Spot Instances from the lowest priced of these pools"): not the cheapest pool;
 * - `capacity-optimized`: most available capacity first;
 * - `capacity-optimized-prioritized`: pools with capacity by priority, then the rest;
 * - `prioritized` (on-demand): by Priority.
 * `diversified` is treated as `lowest-price`.
 */
export function allocationOrder<T extends RankedPool>(pools: readonly T[], strategy: string): T[] {
  const byIndex = (a: T, b: T) => a.index - b.index;
  const byPrice = (a: T, b: T) => a.pricePerUnit - b.pricePerUnit || byIndex(a, b);
  const byPriority = (a: T, b: T) =>
    (a.priority ?? Number.MAX_SAFE_INTEGER) - (b.priority ?? Number.MAX_SAFE_INTEGER) || byIndex(a, b);
  const hasCapacity = (pool: T) => pool.available > 0;
  const capacityFirst = (order: (a: T, b: T) => number) => [
    ...pools.filter(hasCapacity).sort(order),
    ...pools.filter((pool) => !hasCapacity(pool)).sort(order),
  ];
  const tier = (pool: T) => Math.min(CAPACITY_TIERS - 1, Math.floor(pool.capacityScore * CAPACITY_TIERS));
  const byCapacityThenPrice = (a: T, b: T) => tier(b) - tier(a) || byPrice(a, b);
  switch (strategy) {
    case 'price-capacity-optimized':
      return capacityFirst(byCapacityThenPrice);
    case 'capacity-optimized':
      return [...pools].sort((a, b) => b.available - a.available || byPrice(a, b));
    case 'capacity-optimized-prioritized':
      return capacityFirst(byPriority);
    case 'prioritized':
      return [...pools].sort(byPriority);
    default:
      return [...pools].sort(byPrice);
  }
}
