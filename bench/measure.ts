import { CPU, MEMORY } from '../shared/core/model/resources';
import { schedule } from '../shared/core/scheduling/scheduler';
import type { SchedulingResult } from '../shared/core/scheduling/types';
import { type BenchEnvironment, schedulingInput } from './environment';
import { type LowerBound, lowerBound, type PricedType, singleTypeReference } from './lower-bound';
import { podKind, type WorkloadShape, workload } from './workload';

/** What one scheduling result amounts to. */
export interface PlanSummary {
  readonly newNodes: number;
  readonly scheduled: number;
  readonly unschedulable: number;
  /** Unschedulable pods per workload kind, with the first reason seen for that kind. */
  readonly unschedulableByKind: Readonly<Record<string, { count: number; reason: string }>>;
  /** USD per hour of the expected instance types of the new NodeClaims. */
  readonly costPerHour: number;
  /** LP lower bound for the cpu and memory of the scheduled pods (see lower-bound.ts). */
  readonly bound: LowerBound;
  /** costPerHour / bound.cost. */
  readonly costRatio: number;
  /** The single-type yardstick for the scheduled pods (see lower-bound.ts); not a bound. */
  readonly singleType: LowerBound;
  /** costPerHour / singleType.cost. */
  readonly singleTypeRatio: number;
}

/** Counts, cost and packing ratio of a result; the bound covers only the pods that were placed. */
export function summarisePlan(result: SchedulingResult, priced: readonly PricedType[]): PlanSummary {
  let scheduled = 0;
  let cpu = 0;
  let memory = 0;
  let costPerHour = 0;
  const largest = { cpu: 0, memory: 0 };
  const count = (pods: readonly { requests: Readonly<Record<string, number>> }[]) => {
    for (const p of pods) {
      const c = p.requests[CPU] ?? 0;
      const m = p.requests[MEMORY] ?? 0;
      cpu += c;
      memory += m;
      largest.cpu = Math.max(largest.cpu, c);
      largest.memory = Math.max(largest.memory, m);
    }
    scheduled += pods.length;
  };
  for (const claim of result.nodeClaims) {
    count(claim.pods);
    costPerHour += claim.price;
  }
  for (const placement of result.placements) count(placement.pods);
  const unschedulableByKind: Record<string, { count: number; reason: string }> = {};
  for (const { pod, reason } of result.unschedulable) {
    const kind = podKind(pod);
    const entry = unschedulableByKind[kind];
    if (entry) entry.count++;
    else unschedulableByKind[kind] = { count: 1, reason };
  }
  const bound = lowerBound(priced, { cpu, memory });
  const singleType = singleTypeReference(priced, { cpu, memory, pods: scheduled, largest });
  return {
    newNodes: result.nodeClaims.length,
    scheduled,
    unschedulable: result.unschedulable.length,
    unschedulableByKind,
    costPerHour,
    bound,
    costRatio: bound.cost > 0 ? costPerHour / bound.cost : Number.NaN,
    singleType,
    singleTypeRatio: singleType.cost > 0 ? costPerHour / singleType.cost : Number.NaN,
  };
}

/** One size of one workload shape to time. */
export interface MeasureTask {
  readonly shape: WorkloadShape;
  readonly size: number;
  /** Timed runs (at most 3) continue while their total stays within this many seconds. */
  readonly budgetSeconds: number;
}

/** Timings and heap figures of one task, plus the plan it produced. */
export interface Measurement {
  readonly shape: WorkloadShape;
  readonly size: number;
  /** The warm-up: the same shape at min(size, 1000) pods, untimed in the figures. */
  readonly warmup: { readonly size: number; readonly ms: number };
  readonly runsMs: readonly number[];
  readonly bestMs: number;
  readonly plan: PlanSummary;
  readonly memory: {
    /** heapUsed after a full GC with the catalog, instance types and pods loaded, before any run. */
    readonly baselineUsedMB: number;
    /** Largest heapTotal (heap V8 has committed) read right after a timed run, before any GC. */
    readonly maxHeapTotalMB: number;
    /** Peak resident set size of the whole process (getrusage ru_maxrss). */
    readonly maxRssMB: number;
    /** Whether global.gc was available (node --expose-gc), so the baseline is after a full GC. */
    readonly gcExposed: boolean;
  };
}

const MB = 1024 * 1024;
const MAX_RUNS = 3;

/**
 * Times `schedule` on a task's workload: a warm-up on a smaller workload of the same shape so
 * the JIT has compiled the scheduler, then up to three timed runs, each preceded by a full GC
 * when one can be forced. A further run starts only if the runs so far plus one more are
 * expected to fit the budget; there is always at least one. Only the `schedule` call is
 * timed; building pods, the catalog and the instance types is not.
 */
export function measure(env: BenchEnvironment, task: MeasureTask): Measurement {
  const gc = (globalThis as { gc?: () => void }).gc;
  const pods = workload(task.shape, task.size);
  const warmupSize = Math.min(task.size, 1000);
  const warmupPods = workload(task.shape, warmupSize, 7);
  const warmupInput = schedulingInput(env, warmupPods);
  gc?.();
  let start = performance.now();
  schedule(warmupInput);
  const warmupMs = performance.now() - start;
  const input = schedulingInput(env, pods);
  gc?.();
  const baselineUsedMB = process.memoryUsage().heapUsed / MB;

  const runsMs: number[] = [];
  let plan: PlanSummary | undefined;
  let maxHeapTotalMB = 0;
  while (runsMs.length < MAX_RUNS) {
    // Forced GCs bracket each run, so a --trace-gc log can be cut into runs (see gc-trace.ts).
    gc?.();
    start = performance.now();
    const result = schedule(input);
    const ms = performance.now() - start;
    maxHeapTotalMB = Math.max(maxHeapTotalMB, process.memoryUsage().heapTotal / MB);
    gc?.();
    runsMs.push(ms);
    // Summarised now so no result stays alive into the next run's heap figures.
    plan ??= summarisePlan(result, env.priced);
    const spent = runsMs.reduce((a, b) => a + b, 0);
    if (spent + ms > task.budgetSeconds * 1000) break;
  }
  return {
    shape: task.shape,
    size: task.size,
    warmup: { size: warmupSize, ms: warmupMs },
    runsMs,
    bestMs: Math.min(...runsMs),
    plan: plan!,
    memory: {
      baselineUsedMB,
      maxHeapTotalMB,
      maxRssMB: (process.resourceUsage().maxRSS * 1024) / MB,
      gcExposed: gc !== undefined,
    },
  };
}
