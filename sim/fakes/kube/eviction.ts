/**
 * The `pods/{name}/eviction` subresource, checking in the order of the real handler,
 * `EvictionREST.Create` in kubernetes pkg/registry/core/pod/storage/eviction.go: the name, the
 * pod, then — unless the pod is Pending, terminal or already terminating — the one
 * PodDisruptionBudget selecting it, judged by the budget's stored `.status` and decremented
 * (`checkAndDecrement`), and only then the delete with the caller's preconditions. So a uid
 * that no longer matches is a 409 only when the budget let the eviction through (having spent a
 * disruption on it); a budget that allows nothing answers 429 first.
 */

import { disruptionAllowedCondition } from './disruption';
import type { KubeObject } from './kube-object';
import { formatKubeTime, isJsonObject } from './kube-object';
import { labelSelectorObjectMatches } from './selectors';
import type { FakeServerVersion } from './server-version';
import { isAtLeast } from './server-version';
import type { StatusBody, StatusDetails } from './status';
import { badRequest, failureStatus, KubeApiError, successStatus } from './status';
import type { DeletePreconditions, KubeStore } from './store';

/** The message of a 429 eviction refusal. */
export const evictionBlockedMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

/**
 * Evicts pod `name` in `namespace` as `POST …/pods/{name}/eviction` with body `eviction` does
 * on a server of `version`. Returns the Success Status (code 201).
 */
export function evictPod(
  store: KubeStore,
  namespace: string,
  name: string,
  eviction: unknown,
  version: FakeServerVersion,
): StatusBody {
  const body = isJsonObject(eviction) ? eviction : {};
  if (body.apiVersion === 'policy/v1' && !isAtLeast(version, 1, 22)) {
    // policy/v1 Eviction arrived in 1.22 (kubernetes#100724); older servers fail to decode it.
    throw badRequest(
      'Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "policy/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    );
  }
  const meta = isJsonObject(body.metadata) ? body.metadata : {};
  if (meta.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const deleteOptions = isJsonObject(body.deleteOptions) ? body.deleteOptions : {};
  const preconditions = (
    isJsonObject(deleteOptions.preconditions) ? deleteOptions.preconditions : {}
  ) as DeletePreconditions;
  const grace =
    typeof deleteOptions.gracePeriodSeconds === 'number' ? deleteOptions.gracePeriodSeconds : undefined;
  const pod = store.get('pods', name, namespace);
  if (canIgnoreBudgets(pod)) {
    deleteEvicted(store, pod, preconditions, grace);
    return successStatus(201);
  }
  const budgets = store
    .list('poddisruptionbudgets.policy', { namespace })
    .items.filter((budget) =>
      labelSelectorObjectMatches(
        isJsonObject(budget.spec) ? budget.spec.selector : undefined,
        pod.metadata.labels,
      ),
    );
  if (budgets.length > 1) {
    // Returned as the result, not raised as an error: a Status with code 500 and no reason.
    const status = failureStatus(
      500,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
    delete status.reason;
    throw new KubeApiError(status);
  }
  const [budget] = budgets;
  // An unready pod the budget can spare is deleted without spending a disruption, but only at
  // the resourceVersion judged, so that it cannot become ready meanwhile.
  const spareUnready = budget !== undefined && !isPodReady(pod) && canSpareUnready(budget);
  if (budget && !spareUnready) checkAndDecrement(store, budget, name);
  try {
    deleteEvicted(
      store,
      pod,
      spareUnready ? { ...preconditions, resourceVersion: pod.metadata.resourceVersion } : preconditions,
      grace,
    );
  } catch (error) {
    if (budget && spareUnready && preconditions.resourceVersion === undefined && isConflict(error)) {
      throw tooManyRequests(
        10,
        `The disruption budget ${budget.metadata.name} is still being processed by the server.`,
      );
    }
    throw error;
  }
  return successStatus(201);
}

/** Pending, Succeeded or Failed pods, and pods already terminating, skip the budgets (`canIgnorePDB`). */
function canIgnoreBudgets(pod: KubeObject): boolean {
  const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
  return (
    Boolean(pod.metadata.deletionTimestamp) ||
    phase === 'Pending' ||
    phase === 'Succeeded' ||
    phase === 'Failed'
  );
}

/** `podutil.IsPodReady`: the Ready condition is True. */
function isPodReady(pod: KubeObject): boolean {
  const conditions =
    isJsonObject(pod.status) && Array.isArray(pod.status.conditions) ? pod.status.conditions : [];
  return conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True');
}

function budgetStatus(budget: KubeObject): Record<string, unknown> {
  return isJsonObject(budget.status) ? budget.status : {};
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** `AlwaysAllow`, or the default `IfHealthyBudget` with the budget currently met. */
function canSpareUnready(budget: KubeObject): boolean {
  const spec = isJsonObject(budget.spec) ? budget.spec : {};
  if (spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
  const status = budgetStatus(budget);
  return count(status.currentHealthy) >= count(status.desiredHealthy) && count(status.desiredHealthy) > 0;
}

/**
 * `checkAndDecrement`: refuses while the budget's status is older than its spec or allows no
 * disruption, else spends one and records the pod in `status.disruptedPods`, which keeps it out
 * of currentHealthy until it is deleted or two minutes pass.
 */
function checkAndDecrement(store: KubeStore, budget: KubeObject, podName: string): void {
  const status = budgetStatus(budget);
  const budgetName = budget.metadata.name ?? '';
  if (count(status.observedGeneration) < (budget.metadata.generation ?? 1)) {
    throw tooManyRequests(10, `The disruption budget ${budgetName} is still being processed by the server.`);
  }
  const allowed = count(status.disruptionsAllowed);
  if (allowed < 0) {
    throw new KubeApiError(
      failureStatus(
        403,
        `poddisruptionbudget.policy "${budgetName}" is forbidden: pdb disruptions allowed is negative`,
        'Forbidden',
        { name: budgetName, group: 'policy', kind: 'poddisruptionbudget' },
      ),
    );
  }
  if (allowed === 0) {
    throw tooManyRequests(
      0,
      `The disruption budget ${budgetName} needs ${count(status.desiredHealthy)} healthy pods and has ${count(status.currentHealthy)} currently`,
    );
  }
  const now = store.clock.now();
  const disrupted = isJsonObject(status.disruptedPods) ? status.disruptedPods : {};
  store.updateStatus('poddisruptionbudgets.policy', {
    ...budget,
    status: {
      ...status,
      disruptionsAllowed: allowed - 1,
      disruptedPods: { ...disrupted, [podName]: formatKubeTime(new Date(now)) },
      ...(allowed - 1 === 0
        ? {
            conditions: [
              disruptionAllowedCondition(status.conditions, false, count(status.observedGeneration), now),
            ],
          }
        : {}),
    },
  });
}

/** `createTooManyRequestsError` / `NewTooManyRequests` with a DisruptionBudget cause. */
function tooManyRequests(retryAfterSeconds: number, cause: string): KubeApiError {
  const details: StatusDetails = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new KubeApiError(failureStatus(429, evictionBlockedMessage, 'TooManyRequests', details));
}

/**
 * The delete at the end of an eviction. Since 1.31 (PodDisruptionConditions, GA) the handler
 * first writes the pod's DisruptionTarget condition and checks the preconditions in that update
 * (`addConditionAndDeletePod`), so a stale uid or resourceVersion gets that update's Conflict.
 * The fake answers the same Conflict but writes no condition. The delete is a pod delete like any
 * other, with the eviction's `deleteOptions.gracePeriodSeconds`: graceful, so the pod stays
 * Terminating until its kubelet confirms.
 */
function deleteEvicted(
  store: KubeStore,
  pod: KubeObject,
  preconditions: DeletePreconditions,
  gracePeriodSeconds: number | undefined,
): void {
  const name = pod.metadata.name ?? '';
  const current = store.get('pods', name, pod.metadata.namespace);
  const { uid, resourceVersion } = preconditions;
  if (uid && uid !== current.metadata.uid) {
    throw podConflict(
      name,
      `the UID in the precondition (${uid}) does not match the UID in record (${current.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
    throw podConflict(
      name,
      `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`,
    );
  }
  store.delete('pods', name, {
    namespace: pod.metadata.namespace,
    ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
  });
}

/** `errors.NewConflict(schema.GroupResource{Resource: "Pod"}, name, err)`, as the eviction handler builds it. */
function podConflict(name: string, why: string): KubeApiError {
  return new KubeApiError(
    failureStatus(409, `Operation cannot be fulfilled on Pod "${name}": ${why}`, 'Conflict', {
      name,
      kind: 'Pod',
    }),
  );
}

function isConflict(error: unknown): boolean {
  return error instanceof KubeApiError && error.code === 409;
}
