import { z } from 'zod';
import { HOURS_PER_MONTH, type SavingsEstimate } from '../shared/core/savings/estimate-savings';

/**
 * `podlift savings --json`: the documented output, a schema so tests hold the command to it.
 * Every money figure is USD, rounded to 4 decimals per hour and 2 per month.
 */

const money = z.number();
const node = z
  .object({
    instanceType: z.string(),
    capacityType: z.enum(['spot', 'on-demand', 'reserved']),
    zone: z.string().optional(),
    hourlyPrice: money,
    pods: z.number().int().nonnegative(),
  })
  .strict();

/** The JSON `podlift savings --json` prints. */
export const SavingsJsonSchema = z
  .object({
    source: z.string(),
    region: z.string(),
    /** Pods compared: running on today's priced nodes (not DaemonSet or mirror pods). */
    pods: z.number().int().nonnegative(),
    /** Pending pods today: in neither side's cost. */
    pendingPods: z.number().int().nonnegative(),
    today: z
      .object({
        nodes: z.array(node.extend({ name: z.string(), capacityTypeFrom: z.string() }).strict()),
        excludedNodes: z.array(z.object({ name: z.string(), reason: z.string() }).strict()),
        hourlyCost: money,
        monthlyCost: money,
      })
      .strict(),
    podlift: z
      .object({
        nodePools: z.array(z.string()),
        /** True when the cluster had no NodePool podlift could plan with: Karpenter's general-purpose one was used. */
        defaultNodePool: z.boolean(),
        nodes: z.array(node.extend({ nodePool: z.string() }).strict()),
        hourlyCost: money,
        monthlyCost: money,
      })
      .strict(),
    lowerBound: z
      .object({
        hourlyCost: money,
        monthlyCost: money,
        /** False when column generation stopped early: still a bound, maybe a loose one. */
        converged: z.boolean(),
        /** The LP's fractional fleet. */
        mix: z.array(z.object({ instanceType: z.string(), count: z.number() }).strict()),
      })
      .strict(),
    saving: z
      .object({
        hourly: money,
        monthly: money,
        /** Of today's cost; 0 when today costs nothing. */
        percent: z.number(),
        /** today − lower bound: no plan saves more. */
        atMostHourly: money,
        atMostMonthly: money,
      })
      .strict(),
    constraints: z.array(
      z
        .object({
          kind: z.enum([
            'unschedulable',
            'large-requests',
            'anti-affinity',
            'pod-disruption-budget',
            'do-not-disrupt',
          ]),
          count: z.number().int().positive(),
          pods: z.array(z.string()),
          detail: z.string(),
        })
        .strict(),
    ),
  })
  .strict();

/** The value of {@link SavingsJsonSchema}. */
export type SavingsJson = z.infer<typeof SavingsJsonSchema>;

/** Where the estimate was made: the snapshot's source, region and pending pods. */
export interface SavingsContext {
  readonly source: string;
  readonly region: string;
  readonly pendingPods: number;
}

/** The estimate as its JSON value (money rounded). */
export function savingsToJson(estimate: SavingsEstimate, context: SavingsContext): SavingsJson {
  const { current, plan, bound } = estimate;
  return {
    source: context.source,
    region: context.region,
    pods: estimate.pods,
    pendingPods: context.pendingPods,
    today: {
      nodes: current.priced.map((n) => ({
        name: n.name,
        instanceType: n.instanceType,
        capacityType: n.capacityType,
        capacityTypeFrom: n.capacityTypeFrom,
        ...(n.zone !== undefined ? { zone: n.zone } : {}),
        hourlyPrice: hourly(n.price),
        pods: n.pods,
      })),
      excludedNodes: current.excluded.map((e) => ({ name: e.name, reason: e.reason })),
      hourlyCost: hourly(current.cost),
      monthlyCost: monthly(current.cost),
    },
    podlift: {
      nodePools: [...estimate.nodePools.names],
      defaultNodePool: estimate.nodePools.defaulted,
      nodes: plan.nodes.map((n) => ({
        nodePool: n.nodePool,
        instanceType: n.instanceType,
        capacityType: n.capacityType,
        zone: n.zone,
        hourlyPrice: hourly(n.price),
        pods: n.pods,
      })),
      hourlyCost: hourly(plan.cost),
      monthlyCost: monthly(plan.cost),
    },
    lowerBound: {
      hourlyCost: hourly(bound.cost),
      monthlyCost: monthly(bound.cost),
      converged: !bound.timedOut,
      mix: bound.mix.map((m) => ({ instanceType: m.name, count: Math.round(m.count * 1000) / 1000 })),
    },
    saving: {
      hourly: hourly(estimate.savingPerHour),
      monthly: monthly(estimate.savingPerHour),
      percent: current.cost > 0 ? Math.round((1000 * estimate.savingPerHour) / current.cost) / 10 : 0,
      atMostHourly: hourly(estimate.maxSavingPerHour),
      atMostMonthly: monthly(estimate.maxSavingPerHour),
    },
    constraints: estimate.constraints.map((c) => ({
      kind: c.kind,
      count: c.count,
      pods: [...c.pods],
      detail: c.detail,
    })),
  };
}

function hourly(dollars: number): number {
  return Math.round(dollars * 10_000) / 10_000;
}

function monthly(dollarsPerHour: number): number {
  return Math.round(dollarsPerHour * HOURS_PER_MONTH * 100) / 100;
}
