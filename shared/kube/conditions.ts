import type { Condition } from '../core/model/nodeclaim';
import type { ConditionUpdate } from '../core/ports/cluster';

/** RFC 3339 with second precision, as the API server renders metav1.Time. */
export function kubeTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19)}Z`;
}

/**
 * `existing` with `updates` applied the way metav1 conditions work (apimachinery
 * meta.SetStatusCondition): a condition of a new type is appended with lastTransitionTime now;
 * one whose status changes gets lastTransitionTime now; one whose status stays keeps its
 * lastTransitionTime while its reason, message and observedGeneration are refreshed.
 */
export function setConditions(
  existing: readonly Condition[],
  updates: readonly ConditionUpdate[],
  nowMs: number,
  observedGeneration?: number,
): Condition[] {
  const out = [...existing];
  for (const u of updates) {
    const index = out.findIndex((c) => c.type === u.type);
    const previous = index >= 0 ? out[index] : undefined;
    const next: Condition = {
      type: u.type,
      status: u.status,
      reason: u.reason ?? (u.status === 'True' ? u.type : 'Unknown'),
      message: u.message ?? '',
      lastTransitionTime:
        previous && previous.status === u.status && previous.lastTransitionTime
          ? previous.lastTransitionTime
          : kubeTime(nowMs),
      ...(observedGeneration !== undefined
        ? { observedGeneration }
        : previous?.observedGeneration !== undefined
          ? { observedGeneration: previous.observedGeneration }
          : {}),
    };
    if (index >= 0) out[index] = next;
    else out.push(next);
  }
  return out;
}
