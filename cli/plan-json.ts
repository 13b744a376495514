import { z } from 'zod';
import { CAPACITY_TYPES } from '../shared/core/model/capacity-type';
import { podKey } from '../shared/core/model/pod';
import type { SchedulingResult } from '../shared/core/scheduling/types';

/**
 * The JSON `podlift plan --output json` prints. Stable: fields are only ever added. Prices are
 * USD per hour rounded to 4 decimals; `summary.hourlyCost` is the sum of the rounded
 * `hourlyPrice`s, so the numbers a reader adds up agree with it.
 */
export const PlanJsonSchema = z
  .object({
    /** AWS region the prices and instance types are for. */
    region: z.string(),
    /** NodeClaims to create, in the order the scheduler opened them. */
    nodeClaims: z.array(
      z
        .object({
          nodePool: z.string(),
          /** The option expected to launch: the cheapest available one. */
          instanceType: z.string(),
          /** Every instance type the NodeClaim may launch as, cheapest first. */
          instanceTypeOptions: z.array(z.string()).min(1),
          capacityType: z.enum(CAPACITY_TYPES as [string, ...string[]]),
          zone: z.string(),
          /**
           * For capacity type `reserved`: the capacity reservations it may launch into (of its
           * instance type options, in its zones), sorted; absent for other capacity types.
           */
          capacityReservationIds: z.array(z.string()).min(1).optional(),
          /** USD per hour of `instanceType` in `zone` at `capacityType`. */
          hourlyPrice: z.number().nonnegative(),
          /** `namespace/name` of the pods it is sized for. */
          pods: z.array(z.string()),
        })
        .strict(),
    ),
    /** Pending pods placed on existing Nodes, by node name. */
    existingNodes: z.array(z.object({ node: z.string(), pods: z.array(z.string()).min(1) }).strict()),
    /** Pods no NodePool or Node can take, with why. */
    unschedulable: z.array(z.object({ pod: z.string(), reason: z.string() }).strict()),
    summary: z
      .object({
        /** Pods placed, on existing Nodes and new NodeClaims together. */
        pods: z.number().int().nonnegative(),
        /** NodeClaims to create. */
        nodeClaims: z.number().int().nonnegative(),
        /** USD per hour of all new NodeClaims. */
        hourlyCost: z.number().nonnegative(),
      })
      .strict(),
  })
  .strict();

/** `podlift plan --output json`, as a value. */
export type PlanJson = z.infer<typeof PlanJsonSchema>;

/** Rounds USD to 4 decimals (a hundredth of a cent), the precision of EC2 price lists. */
export function roundPrice(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

/** The plan as the documented JSON value. */
export function planToJson(region: string, result: SchedulingResult): PlanJson {
  const nodeClaims = result.nodeClaims.map((c) => ({
    nodePool: c.nodePool,
    instanceType: c.instanceType,
    instanceTypeOptions: c.instanceTypeOptions.map((o) => o.name),
    capacityType: c.capacityType,
    zone: c.zone,
    ...(c.reservationIds === undefined || c.reservationIds.length === 0
      ? {}
      : { capacityReservationIds: [...c.reservationIds] }),
    hourlyPrice: roundPrice(c.price),
    pods: c.pods.map(podKey),
  }));
  const existingNodes = result.placements
    .filter((p) => p.pods.length > 0)
    .map((p) => ({ node: p.node, pods: p.pods.map(podKey) }))
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const placed =
    nodeClaims.reduce((n, c) => n + c.pods.length, 0) + existingNodes.reduce((n, p) => n + p.pods.length, 0);
  return {
    region,
    nodeClaims,
    existingNodes,
    unschedulable: result.unschedulable.map((u) => ({ pod: podKey(u.pod), reason: u.reason })),
    summary: {
      pods: placed,
      nodeClaims: nodeClaims.length,
      hourlyCost: roundPrice(nodeClaims.reduce((sum, c) => sum + c.hourlyPrice, 0)),
    },
  };
}

/** `podlift plan --output json`: the plan, pretty-printed, newline-terminated. */
export function formatPlanJson(region: string, result: SchedulingResult): string {
  return `${JSON.stringify(planToJson(region, result), null, 2)}\n`;
}
