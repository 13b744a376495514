/**
 * PodDisruptionBudget arithmetic, as the disruption controller computes it, and a stand-in for
 * that controller which keeps every budget's `.status` current after each pod or budget change.
 */
import type { KubeObject } from './kube-object';
import { formatKubeTime, isJsonObject, jsonEqual } from './kube-object';
import { labelSelectorObjectMatches, labelSelectorToString } from './selectors';
import type { KubeStore, StoredEvent } from './store';

/** What a budget allows right now. */
export interface DisruptionBudget {
  readonly expectedPods: number;
  readonly desiredHealthy: number;
  readonly currentHealthy: number;
  readonly disruptionsAllowed: number;
}

const terminalPhases = new Set(['Succeeded', 'Failed']);

/** Running, Ready and not being deleted: what counts towards a budget's currentHealthy. */
export function isPodHealthy(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const status = isJsonObject(pod.status) ? pod.status : {};
  if (status.phase !== 'Running') return false;
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True');
}

/** Whether `budget` selects `pod` (same namespace, selector matches its labels). */
export function budgetSelects(budget: KubeObject, pod: KubeObject): boolean {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  return (
    budget.metadata.namespace === pod.metadata.namespace &&
    labelSelectorObjectMatches(spec.selector, pod.metadata.labels)
  );
}

/**
 * An int-or-percent scaled against `total`, rounding up (`intstr.GetScaledValueFromIntOrPercent(…, true)`).
 * An unparsable value scales to `fallback`, so that a broken budget blocks evictions, as the real
 * controller's fail-safe does.
 */
function scaled(value: unknown, total: number, fallback: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value))
    return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return fallback;
}

/**
 * Annotation on a PodDisruptionBudget that fixes its expectedPods. The real disruption
 * controller reads expectedPods from the scale of the pods' owners (Deployment, StatefulSet…);
 * this fake runs no workload controllers, so an evicted pod is never replaced and, without the
 * annotation, expectedPods is simply the number of selected non-terminal pods.
 */
export const expectedPodsAnnotation = 'sim.podlift.dev/expected-pods';

/**
 * The budget over `pods` (any pods; the ones it selects and that are not terminal count).
 * expectedPods comes from {@link expectedPodsAnnotation} when set, else from the selected pods.
 */
export function computeBudget(budget: KubeObject, pods: readonly KubeObject[]): DisruptionBudget {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  const selected = pods.filter((pod) => {
    const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
    return budgetSelects(budget, pod) && !terminalPhases.has(String(phase));
  });
  const declared = budget.metadata.annotations?.[expectedPodsAnnotation];
  const expectedPods = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : selected.length;
  const currentHealthy = selected.filter(isPodHealthy).length;
  let desiredHealthy = 0;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods, 0));
  } else if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    desiredHealthy = scaled(spec.minAvailable, expectedPods, expectedPods);
  }
  return {
    expectedPods,
    desiredHealthy,
    currentHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}

/** The budget of `budget` over the pods it selects in `store` (scanned without copying). */
export function budgetInStore(store: KubeStore, budget: KubeObject): DisruptionBudget {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  const labelSelector = labelSelectorToString(spec.selector);
  const pods: KubeObject[] = [];
  if (labelSelector !== undefined) {
    store.scan('pods', { namespace: budget.metadata.namespace, labelSelector }, (pod) => pods.push(pod));
  }
  return computeBudget(budget, pods);
}

/**
 * Keeps `.status` of every PodDisruptionBudget current (observedGeneration, disruptionsAllowed,
 * currentHealthy, desiredHealthy, expectedPods, the DisruptionAllowed condition), recomputing
 * a budget whenever it changes or a pod it selects (before or after the change) changes.
 * Returns the stop function.
 */
export function maintainDisruptionBudgetStatus(store: KubeStore): () => void {
  const pods = store.resolve('pods');
  const budgets = store.resolve('poddisruptionbudgets.policy');
  const sync = (stale: KubeObject) => {
    // Re-read: the event may be older than the budget's current state.
    const budget = store.find(budgets, stale.metadata.name ?? '', stale.metadata.namespace);
    if (!budget) return;
    const status = nextStatus(budget, budgetInStore(store, budget), store);
    if (!jsonEqual(status, budget.status)) store.updateStatus(budgets, { ...budget, status });
  };
  const inputs = (budget: KubeObject | undefined) => [budget?.spec, budget?.metadata.annotations];
  return store.subscribe((event: StoredEvent) => {
    if (event.resource === budgets) {
      // A status-only change (this function's own writes included) leaves the budget as it was.
      const changed = !jsonEqual(inputs(event.previous), inputs(event.object));
      if (event.type !== 'DELETED' && changed) sync(event.object);
      return;
    }
    if (event.resource !== pods) return;
    for (const budget of store.list(budgets, { namespace: event.object.metadata.namespace }).items) {
      if (budgetSelects(budget, event.object) || (event.previous && budgetSelects(budget, event.previous)))
        sync(budget);
    }
  });
}

function nextStatus(
  budget: KubeObject,
  computed: DisruptionBudget,
  store: KubeStore,
): Record<string, unknown> {
  const previous = isJsonObject(budget.status) ? budget.status : {};
  const allowed = computed.disruptionsAllowed > 0 ? 'True' : 'False';
  const conditions = Array.isArray(previous.conditions) ? previous.conditions : [];
  const old = conditions.find((c) => isJsonObject(c) && c.type === 'DisruptionAllowed');
  const lastTransitionTime =
    isJsonObject(old) && old.status === allowed && typeof old.lastTransitionTime === 'string'
      ? old.lastTransitionTime
      : formatKubeTime(new Date(store.clock.now()));
  return {
    observedGeneration: budget.metadata.generation ?? 1,
    disruptionsAllowed: computed.disruptionsAllowed,
    currentHealthy: computed.currentHealthy,
    desiredHealthy: computed.desiredHealthy,
    expectedPods: computed.expectedPods,
    conditions: [
      {
        type: 'DisruptionAllowed',
        status: allowed,
        reason: allowed === 'True' ? 'SufficientPods' : 'InsufficientPods',
        message: '',
        observedGeneration: budget.metadata.generation ?? 1,
        lastTransitionTime,
      },
    ],
  };
}
