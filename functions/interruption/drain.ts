import { decideDrainStart } from '../../shared/core/termination/decide';
import { loadClusterSnapshot } from '../cluster-snapshot';
import type { Invocation } from '../invocation';
import type { LoopRuntime } from '../runtime';
import { executeTermination } from '../termination/execute';

/**
 * Begins the drain of the named NodeClaims that are being deleted and whose drain has not begun
 * (core/termination `decideDrainStart`): the termination time, the taint, the evictions and
 * `Drained` Unknown, as termination's first run for them would. Termination's runs carry on from
 * there (the evicted pods' hints, its schedule) and take the steps only its identity may. Every
 * step is idempotent, so a termination run at the same moment only repeats them. A failure is
 * logged and left to termination: the NodeClaims are deleted already, and a record delivered
 * again would find them deleting.
 */
export async function startDrains(
  runtime: LoopRuntime,
  invocation: Invocation,
  nodeClaims: ReadonlySet<string>,
): Promise<void> {
  if (nodeClaims.size === 0) return;
  try {
    const { snapshot } = await loadClusterSnapshot(runtime.ports, invocation, runtime.unavailable, {
      catalog: false,
      pendingPods: false,
    });
    const actions = decideDrainStart(snapshot, nodeClaims);
    for (const action of actions) await executeTermination(runtime, invocation, action);
  } catch (error) {
    invocation.log.warn("starting the drain failed; termination's next run drains", {
      nodeClaims: [...nodeClaims],
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
