import { type BudgetSchedule, budgetActive, parseBudgetSchedule } from '../model/budget-schedule';
import { durationMs } from '../model/duration';
import type { NodePool } from '../model/nodepool';

/** Why a node is disrupted, as budgets name reasons. */
export type DisruptionReason = 'Empty' | 'Drifted' | 'Underutilized';

/**
 * How many more nodes of `pool` may be disrupted now for `reason` (kubernetes-sigs/karpenter
 * pkg/apis/v1/nodepool.go `GetAllowedDisruptionsByReason`): the smallest of the budgets that
 * are active and apply to the reason — a count, or a percentage of the pool's nodes rounded up
 * — minus the nodes already being disrupted. No active budget: no limit but the default 10 %
 * applies through the NodePool's defaults. A schedule is active as `Budget.IsActive` decides
 * (model/budget-schedule.ts). A NodePool whose schedule cannot be read does not validate, so
 * none reaches here; should one, it blocks (0), as Karpenter's `GetAllowedDisruptions` fails
 * closed.
 */
export function allowedDisruptions(
  pool: NodePool,
  reason: DisruptionReason,
  poolNodes: number,
  disrupting: number,
  now: number,
): number {
  let allowed = Number.POSITIVE_INFINITY;
  for (const budget of pool.disruption.budgets) {
    if (budget.reasons && !budget.reasons.includes(reason)) continue;
    if (budget.schedule) {
      let schedule: BudgetSchedule;
      try {
        schedule = parseBudgetSchedule(budget.schedule);
      } catch {
        return 0;
      }
      if (!budgetActive(schedule, durationMs(budget.duration ?? '0s') ?? 0, now)) continue;
    }
    const percent = /^(\d+)%$/.exec(budget.nodes);
    const limit = percent ? Math.ceil((poolNodes * Number(percent[1])) / 100) : Number(budget.nodes);
    allowed = Math.min(allowed, Number.isFinite(limit) ? limit : 0);
  }
  return Math.max(0, allowed - disrupting);
}
