/**
 * PodDisruptionBudget arithmetic, as the disruption controller computes it, and a stand-in for
 * that controller which keeps every budget's `.status` current after each pod or budget change.
 */
import type { TimerHandle, Timers } from '../../../shared/core/ports/time';
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
 * How long a pod the eviction subresource approved stays out of a budget's currentHealthy while
 * it has not been deleted (`DeletionTimeout` in kubernetes pkg/controller/disruption/disruption.go).
 */
export const DELETION_TIMEOUT_MS = 120_000;

/**
 * The budget over `pods` (any pods; the ones it selects and that are not terminal count).
 * expectedPods comes from {@link expectedPodsAnnotation} when set, else from the selected pods.
 * A pod named in `disrupted` (approved for eviction, not yet deleted) is not healthy, as in the
 * controller's `countHealthyPods`; nothing is allowed while no pod is expected (`updatePdbStatus`).
 */
export function computeBudget(
  budget: KubeObject,
  pods: readonly KubeObject[],
  disrupted: ReadonlySet<string> = new Set(),
): DisruptionBudget {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  const selected = pods.filter((pod) => {
    const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
    return budgetSelects(budget, pod) && !terminalPhases.has(String(phase));
  });
  const declared = budget.metadata.annotations?.[expectedPodsAnnotation];
  const expectedPods = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : selected.length;
  const currentHealthy = selected.filter(
    (pod) => isPodHealthy(pod) && !disrupted.has(pod.metadata.name ?? ''),
  ).length;
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
    disruptionsAllowed: expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy),
  };
}

/** The `status.disruptedPods` the controller keeps, and when it must look again. */
interface DisruptedPods {
  readonly kept: Record<string, string>;
  /** When the earliest kept entry expires (ms since the epoch). */
  readonly recheckAt?: number;
}

/**
 * The controller's `buildDisruptedPodMap`: an entry stays while its pod exists, is not being
 * deleted and was approved less than {@link DELETION_TIMEOUT_MS} ago.
 */
function keptDisruptedPods(budget: KubeObject, pods: readonly KubeObject[], now: number): DisruptedPods {
  const status = isJsonObject(budget.status) ? budget.status : {};
  const listed = isJsonObject(status.disruptedPods) ? status.disruptedPods : {};
  const kept: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const at = listed[name];
    if (pod.metadata.deletionTimestamp || typeof at !== 'string') continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expires < now) continue;
    kept[name] = at;
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
  }
  return recheckAt === undefined ? { kept } : { kept, recheckAt };
}

/** The budget of `budget` over the pods it selects in `store` (scanned without copying). */
export function budgetInStore(
  store: KubeStore,
  budget: KubeObject,
): DisruptionBudget & { readonly disrupted: DisruptedPods } {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  const labelSelector = labelSelectorToString(spec.selector);
  const pods: KubeObject[] = [];
  if (labelSelector !== undefined) {
    store.scan('pods', { namespace: budget.metadata.namespace, labelSelector }, (pod) => pods.push(pod));
  }
  const disrupted = keptDisruptedPods(budget, pods, store.clock.now());
  return { ...computeBudget(budget, pods, new Set(Object.keys(disrupted.kept))), disrupted };
}

/**
 * The DisruptionAllowed condition for `allowed` (`pdbhelper.UpdateDisruptionAllowedCondition`),
 * keeping `lastTransitionTime` from `conditions` while the status stays the same.
 */
export function disruptionAllowedCondition(
  conditions: unknown,
  allowed: boolean,
  observedGeneration: number,
  now: number,
): Record<string, unknown> {
  const status = allowed ? 'True' : 'False';
  const old = (Array.isArray(conditions) ? conditions : []).find(
    (c) => isJsonObject(c) && c.type === 'DisruptionAllowed',
  );
  const lastTransitionTime =
    isJsonObject(old) && old.status === status && typeof old.lastTransitionTime === 'string'
      ? old.lastTransitionTime
      : formatKubeTime(new Date(now));
  return {
    type: 'DisruptionAllowed',
    status,
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration,
    lastTransitionTime,
  };
}

/**
 * Keeps `.status` of every PodDisruptionBudget current (observedGeneration, disruptionsAllowed,
 * currentHealthy, desiredHealthy, expectedPods, disruptedPods, the DisruptionAllowed condition),
 * recomputing a budget whenever it changes or a pod it selects (before or after the change)
 * changes, and again on `timers` when an approved eviction's pod outlives
 * {@link DELETION_TIMEOUT_MS} (the controller's recheck). Returns the stop function.
 */
export function maintainDisruptionBudgetStatus(store: KubeStore, timers?: Timers): () => void {
  const pods = store.resolve('pods');
  const budgets = store.resolve('poddisruptionbudgets.policy');
  const rechecks = new Map<string, TimerHandle>();
  const sync = (stale: KubeObject) => {
    // Re-read: the event may be older than the budget's current state.
    const budget = store.find(budgets, stale.metadata.name ?? '', stale.metadata.namespace);
    if (!budget) return;
    const computed = budgetInStore(store, budget);
    const status = nextStatus(budget, computed, store.clock.now());
    if (!jsonEqual(status, budget.status)) store.updateStatus(budgets, { ...budget, status });
    const key = `${budget.metadata.namespace}/${budget.metadata.name}`;
    const previous = rechecks.get(key);
    if (previous) timers?.clearTimeout(previous);
    rechecks.delete(key);
    const { recheckAt } = computed.disrupted;
    if (timers && recheckAt !== undefined) {
      // One past the expiry: an entry expires once its deadline is strictly before now.
      const handle = timers.setTimeout(
        () => {
          rechecks.delete(key);
          sync(budget);
        },
        recheckAt - store.clock.now() + 1,
      );
      rechecks.set(key, handle);
    }
  };
  // A status write leaves the budget as it was, except an eviction's new disruptedPods entry,
  // whose expiry the controller must schedule (it resyncs on every budget update).
  const inputs = (budget: KubeObject | undefined) => [
    budget?.spec,
    budget?.metadata.annotations,
    isJsonObject(budget?.status) ? budget.status.disruptedPods : undefined,
  ];
  const unsubscribe = store.subscribe((event: StoredEvent) => {
    if (event.resource === budgets) {
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
  return () => {
    unsubscribe();
    for (const handle of rechecks.values()) timers?.clearTimeout(handle);
    rechecks.clear();
  };
}

function nextStatus(
  budget: KubeObject,
  computed: ReturnType<typeof budgetInStore>,
  now: number,
): Record<string, unknown> {
  const previous = isJsonObject(budget.status) ? budget.status : {};
  const generation = budget.metadata.generation ?? 1;
  const { kept } = computed.disrupted;
  return {
    observedGeneration: generation,
    disruptionsAllowed: computed.disruptionsAllowed,
    currentHealthy: computed.currentHealthy,
    desiredHealthy: computed.desiredHealthy,
    expectedPods: computed.expectedPods,
    ...(Object.keys(kept).length > 0 ? { disruptedPods: kept } : {}),
    conditions: [
      disruptionAllowedCondition(previous.conditions, computed.disruptionsAllowed > 0, generation, now),
    ],
  };
}
