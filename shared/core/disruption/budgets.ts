import { durationMs } from '../model/duration';
import type { NodePool } from '../model/nodepool';
import { parseCron, withinWindow } from './cron';

/** Why a node is disrupted, as budgets name reasons. */
export type DisruptionReason = 'Empty' | 'Drifted' | 'Underutilized';

/**
 * How many more nodes of `pool` may be disrupted now for `reason` (kubernetes-sigs/karpenter
 * pkg/apis/v1/nodepool.go `GetAllowedDisruptionsByReason`): the smallest of the budgets that
 * are active and apply to the reason — a count, or a percentage of the pool's nodes rounded up
 * — minus the nodes already being disrupted. No active budget: no limit but the default 10 %
 * applies through the NodePool's defaults. A budget whose schedule cannot be read blocks (0),
 * as Karpenter treats a bad schedule.
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
      try {
        const window = durationMs(budget.duration ?? '0s') ?? 0;
        if (!withinWindow(parseCron(budget.schedule), window, now)) continue;
      } catch {
        return 0;
      }
    }
    const percent = /^(\d+)%$/.exec(budget.nodes);
    const limit = percent ? Math.ceil((poolNodes * Number(percent[1])) / 100) : Number(budget.nodes);
    allowed = Math.min(allowed, Number.isFinite(limit) ? limit : 0);
  }
  return Math.max(0, allowed - disrupting);
}
