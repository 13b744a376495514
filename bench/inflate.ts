import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readPlanInput } from '../cli/plan-input';
import { Requirements } from '../shared/core/model/requirements';
import { schedulingInputFor } from '../shared/core/scheduling/plan-capacity';
import { schedule } from '../shared/core/scheduling/scheduler';
import type { BenchEnvironment } from './environment';
import { pricedTypes } from './lower-bound';
import { type PlanSummary, summarisePlan } from './measure';

/** The getting-started example: 10 × 1 cpu `inflate` pods and its NodePool (m5, m5d, c5, c5d, c4, r4). */
export const INFLATE_EXAMPLE = fileURLToPath(new URL('../examples/inflate.yaml', import.meta.url));

/** The inflate plan with the instance types it launches, or undefined when the example is absent. */
export interface InflateOutcome extends PlanSummary {
  readonly pods: number;
  readonly instanceTypes: readonly string[];
  readonly ms: number;
}

/**
 * Plans examples/inflate.yaml as `podlift plan` would and bounds it against the offerings its
 * NodePool allows (its limits are not part of the bound; they do not bind for 10 cpu).
 */
export function planInflate(env: BenchEnvironment): InflateOutcome | undefined {
  if (!existsSync(INFLATE_EXAMPLE)) return undefined;
  const input = readPlanInput(readFileSync(INFLATE_EXAMPLE, 'utf8'), INFLATE_EXAMPLE);
  // planCapacity in two steps, so that only the scheduler is timed, as for the other figures.
  const schedulingInput = schedulingInputFor(input, env.catalog);
  const start = performance.now();
  const result = schedule(schedulingInput);
  const ms = performance.now() - start;
  const pool = input.nodePools[0];
  const priced = pricedTypes(
    schedulingInput.instanceTypes.get(pool.name) ?? [],
    Requirements.from(pool.template.requirements),
  );
  return {
    ...summarisePlan(result, priced),
    pods: input.pods.length,
    instanceTypes: result.nodeClaims.map((c) => `${c.instanceType} (${c.capacityType})`),
    ms,
  };
}
