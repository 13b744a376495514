import { VALIDATION_DELAY_MS } from '../../shared/core/disruption/methods';
import { type BoundPoint, cheapestOptionsRatio, floorRatio } from './bound';

/**
 * The soak's running cost against the configuration-LP bound, split by phase, and what the
 * disruption it took cost in evictions: the figures issue-level targets are stated in ("settled
 * cost ÷ bound", "evictions per hour").
 */

/** The disruption function's schedule: it decides once a minute. */
const DISRUPTION_SCHEDULE_MS = 60_000;

/**
 * How long after a change the cluster is still settling: the NodePool's consolidateAfter (no node
 * is Consolidatable before it) plus one disruption cycle — the next scheduled run and its 15 s
 * validation. A point later than that after the last change is settled.
 */
export function settleWindowMs(consolidateAfterMs: number): number {
  return consolidateAfterMs + DISRUPTION_SCHEDULE_MS + VALIDATION_DELAY_MS;
}

/**
 * Whether the cluster was settled at `atMs`: no change within `windowMs` before it. A change at
 * the point's own time came after it (the soak measures before it takes the step).
 */
export function phaseAt(
  atMs: number,
  changesMs: readonly number[],
  windowMs: number,
): 'settling' | 'settled' {
  const last = changesMs.filter((c) => c < atMs).reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  return atMs - last < windowMs ? 'settling' : 'settled';
}

/** Cost ÷ bound over the points of one phase (those with a bound). */
export interface PhaseFigures {
  /** Points with a bound. */
  readonly points: number;
  readonly mean?: number;
  readonly max?: number;
  /**
   * The mean of the points' floors (bound.ts `floorRatio`): what the run could not have gone
   * under at these points from where it stood. Absent when no point has one.
   */
  readonly floor?: number;
  /**
   * The mean had EC2 launched every NodeClaim's cheapest option (bound.ts
   * `cheapestOptionsRatio`): what is left of the gap is the plan's and the disruption's.
   */
  readonly cheapestOptions?: number;
}

/** What a soak's cost report says. */
export interface CostReport {
  readonly settling: PhaseFigures;
  readonly settled: PhaseFigures;
  readonly whole: PhaseFigures;
  /** Evictions podlift made (the Eviction API, accepted), per simulated hour. */
  readonly evictionsPerHour: number;
  /** Nodes taken by voluntary disruption (consolidation, emptiness, drift), per simulated hour. */
  readonly disruptedNodesPerHour: number;
  /** $/h the voluntary disruptions saved, summed, per eviction; absent without evictions. */
  readonly savedPerEviction?: number;
}

/** What {@link costReport} reads. */
export interface CostReportInput {
  readonly points: readonly BoundPoint[];
  /** Simulated times of the changes the soak made (every step but a plain wait). */
  readonly changesMs: readonly number[];
  readonly windowMs: number;
  readonly simulatedMs: number;
  readonly evictions: number;
  readonly disruptedNodes: number;
  /** $/h saved by the voluntary disruptions, summed over the run. */
  readonly savedDollarsPerHour: number;
}

/** The cost report of one soak. */
export function costReport(input: CostReportInput): CostReport {
  const ratios = input.points.flatMap((p) =>
    p.bound !== undefined && p.bound > 0
      ? [
          {
            phase: phaseAt(p.atMs, input.changesMs, input.windowMs),
            ratio: p.dollarsPerHour / p.bound,
            floor: floorRatio(p),
            cheapestOptions: cheapestOptionsRatio(p),
          },
        ]
      : [],
  );
  const mean = (values: readonly (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length === 0 ? undefined : known.reduce((sum, v) => sum + v, 0) / known.length;
  };
  const figures = (
    list: readonly { ratio: number; floor: number | undefined; cheapestOptions: number | undefined }[],
  ): PhaseFigures => {
    if (list.length === 0) return { points: 0 };
    const floor = mean(list.map((r) => r.floor));
    const cheapestOptions = mean(list.map((r) => r.cheapestOptions));
    return {
      points: list.length,
      mean: mean(list.map((r) => r.ratio)),
      max: Math.max(...list.map((r) => r.ratio)),
      ...(floor !== undefined ? { floor } : {}),
      ...(cheapestOptions !== undefined ? { cheapestOptions } : {}),
    };
  };
  const hours = input.simulatedMs / 3_600_000;
  return {
    settling: figures(ratios.filter((r) => r.phase === 'settling')),
    settled: figures(ratios.filter((r) => r.phase === 'settled')),
    whole: figures(ratios),
    evictionsPerHour: hours > 0 ? input.evictions / hours : 0,
    disruptedNodesPerHour: hours > 0 ? input.disruptedNodes / hours : 0,
    ...(input.evictions > 0 ? { savedPerEviction: input.savedDollarsPerHour / input.evictions } : {}),
  };
}

/** The report as the soak prints it. */
export function formatCostReport(report: CostReport): string {
  const phase = (name: string, f: PhaseFigures) =>
    f.points === 0
      ? `  ${name}: no point`
      : `  ${name}: mean ${f.mean?.toFixed(2)}, max ${f.max?.toFixed(2)} over ${f.points} point(s)${
          f.floor === undefined ? '' : `; floor ${f.floor.toFixed(2)}`
        }${f.cheapestOptions === undefined ? '' : `; at cheapest options ${f.cheapestOptions.toFixed(2)}`}`;
  return [
    'cost ÷ bound by phase (settled: no change for consolidateAfter + one disruption cycle;',
    'floor: the mean the run could not go under, counting the instances it could not shed yet;',
    "at cheapest options: the mean had EC2 launched each NodeClaim's cheapest option):",
    phase('settling', report.settling),
    phase('settled', report.settled),
    phase('whole run', report.whole),
    `evictions per hour: ${report.evictionsPerHour.toFixed(1)}; nodes disrupted voluntarily per hour: ${report.disruptedNodesPerHour.toFixed(1)}`,
    `saved per eviction: ${report.savedPerEviction === undefined ? 'no eviction' : `$${report.savedPerEviction.toFixed(4)}/h`}`,
  ].join('\n');
}

/** One run of a side-by-side comparison: the strategy's name, its report and its trace digest. */
export interface ComparedRun {
  readonly name: string;
  readonly report: CostReport;
  readonly digest: string;
}

/**
 * The runs' figures side by side, one row a strategy (issue 23's baseline measured in the same
 * run): settled and whole-run cost ÷ bound, the same at the NodeClaims' cheapest options,
 * evictions and voluntarily disrupted nodes per hour, and the trace digest that proves each run
 * replays exactly.
 */
export function formatCostComparison(runs: readonly ComparedRun[]): string {
  const ratio = (f: PhaseFigures) =>
    f.mean === undefined || f.max === undefined
      ? 'no point'
      : `${f.mean.toFixed(2)} (max ${f.max.toFixed(2)})`;
  const cheapest = (f: PhaseFigures) => f.cheapestOptions?.toFixed(2) ?? '-';
  return [
    'strategy   | settled ÷ bound | whole ÷ bound | at cheapest options: settled, whole | evictions/h | nodes disrupted/h | digest',
    ...runs.map(
      (r) =>
        `${r.name.padEnd(10)} | ${ratio(r.report.settled)} | ${ratio(r.report.whole)} | ${cheapest(r.report.settled)}, ${cheapest(r.report.whole)} | ${r.report.evictionsPerHour.toFixed(1)} | ${r.report.disruptedNodesPerHour.toFixed(1)} | ${r.digest.slice(0, 16)}`,
    ),
  ].join('\n');
}
