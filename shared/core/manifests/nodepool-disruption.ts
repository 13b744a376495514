import * as z from 'zod';
import { budgetScheduleProblem } from '../model/budget-schedule';

/**
 * spec.disruption of a NodePool and the durations Karpenter's NodePool CRD accepts: when a
 * node may be consolidated or expired, and the budgets that bound how many nodes are
 * disrupted at once.
 */

// Patterns from the CRD.
/** A duration in hours, minutes and seconds, or `Never` (expireAfter, consolidateAfter). */
export const DURATION_OR_NEVER = /^(([0-9]+(s|m|h))+|Never)$/;
const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;
const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
const BUDGET_SCHEDULE =
  /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$/;

const budget = z.strictObject({
  nodes: z
    .string()
    .regex(BUDGET_NODES, 'must be a count ("5") or a percentage from 0% to 100% ("10%")')
    .optional(),
  schedule: z
    .string()
    .regex(
      BUDGET_SCHEDULE,
      'must be a cron schedule with five fields ("0 9 * * mon-fri") or a macro ("@daily")',
    )
    // What the CRD's pattern lets through but robfig/cron's ParseStandard (Budget.IsActive) refuses.
    .superRefine((schedule, ctx) => {
      const problem = budgetScheduleProblem(schedule);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  duration: z
    .string()
    .regex(BUDGET_DURATION, 'must be a duration in hours and/or minutes ("1h", "30m", "1h30m")')
    .optional(),
  reasons: z
    .array(z.enum(['Underutilized', 'Empty', 'Drifted']))
    .max(50)
    .superRefine((reasons, ctx) => {
      reasons.forEach((reason, i) => {
        if (reasons.indexOf(reason) !== i) {
          ctx.addIssue({ code: 'custom', message: `duplicate reason "${reason}"`, path: [i] });
        }
      });
    })
    .optional(),
});

/** What {@link DURATION_OR_NEVER} accepts, said in an issue. */
export const durationMessage =
  'must be a duration in hours, minutes and seconds ("720h", "30m", "1h30m") or "Never"';

/** spec.disruption: consolidation policy and delay, and the disruption budgets. */
export const disruption = z.strictObject({
  // Required by the CRD whenever spec.disruption is written: only an absent disruption block defaults it.
  consolidateAfter: z.string().regex(DURATION_OR_NEVER, durationMessage),
  consolidationPolicy: z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced']).optional(),
  budgets: z
    .array(budget)
    .max(50)
    .superRefine((budgets, ctx) => {
      budgets.forEach((b, i) => {
        if ((b.schedule === undefined) !== (b.duration === undefined)) {
          ctx.addIssue({
            code: 'custom',
            message: "'schedule' must be set with 'duration'",
            path: [i, b.schedule === undefined ? 'schedule' : 'duration'],
          });
        }
      });
    })
    .optional(),
});
