/**
 * PodDisruptionBudget arithmetic, as the disruption controller computes it, and a stand-in for
 * that controller which keeps every budget's `.status` current after each pod or budget change.
 */
import type { KubeObject } from './kube-object';
import { formatKubeTime, isJsonObject, jsonEqual } from './kube-object';
import { labelSelectorObjectMatches } from './selectors';
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

/** An int-or-percent scaled against `total`, rounding up (`intstr.GetScaledValueFromIntOrPercent(…, true)`). */
function scaled(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+%$/.test(value))
    return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  throw new Error(`invalid int-or-percent value ${JSON.stringify(value)}`);
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
    desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  } else if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    desiredHealthy = scaled(spec.minAvailable, expectedPods);
  }
  return {
    expectedPods,
    desiredHealthy,
    currentHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}

/**
 * Keeps `.status` of every PodDisruptionBudget current (observedGeneration, disruptionsAllowed,
 * currentHealthy, desiredHealthy, expectedPods, the DisruptionAllowed condition), recomputing
 * a namespace's budgets whenever one of its pods or budgets changes. Returns the stop function.
 */
export function maintainDisruptionBudgetStatus(store: KubeStore): () => void {
  const pods = store.resolve('pods');
  const budgets = store.resolve('poddisruptionbudgets.policy');
  const sync = (namespace: string) => {
    const podsInNamespace = store.list(pods, { namespace }).items;
    for (const budget of store.list(budgets, { namespace }).items) {
      const status = nextStatus(budget, computeBudget(budget, podsInNamespace), store);
      if (!jsonEqual(status, budget.status))
        store.updateStatus(budgets, { ...budget, status }, { namespace });
    }
  };
  return store.subscribe((event: StoredEvent) => {
    if (event.resource !== pods && event.resource !== budgets) return;
    if (event.resource === budgets && event.type === 'DELETED') return;
    sync(event.object.metadata.namespace ?? 'default');
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
      : formatKubeTime(store.clock());
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
