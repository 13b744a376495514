/**
 * The `pods/{name}/eviction` subresource: a pod is deleted unless that would violate the one
 * PodDisruptionBudget selecting it, in which case the answer is 429 with the real server's message.
 */

import { budgetInStore, budgetSelects, isPodHealthy } from './disruption';
import type { KubeObject } from './kube-object';
import { isJsonObject } from './kube-object';
import type { FakeServerVersion } from './server-version';
import { isAtLeast } from './server-version';
import type { StatusBody } from './status';
import { badRequest, failureStatus, KubeApiError, successStatus } from './status';
import type { DeletePreconditions, KubeStore } from './store';

/** The message of a 429 eviction refusal. */
export const evictionBlockedMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

/**
 * Evicts pod `name` in `namespace` as `POST …/pods/{name}/eviction` with body `eviction` does.
 * Pods that are Pending, Succeeded, Failed or already terminating ignore budgets. A healthy pod
 * needs `disruptionsAllowed > 0`; an unhealthy one needs the budget to be met (the default
 * `IfHealthyBudget` policy) unless `unhealthyPodEvictionPolicy: AlwaysAllow`. More than one
 * matching budget is a 500, as on the real server; a policy/v1 body before 1.22 is a 400.
 * Returns the Success Status (code 201).
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
  const pod = store.get('pods', name, namespace);
  const meta = isJsonObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest('name in URL does not match name in Eviction object');
  }
  const deleteOptions = isJsonObject(body.deleteOptions) ? body.deleteOptions : {};
  const preconditions = (
    isJsonObject(deleteOptions.preconditions) ? deleteOptions.preconditions : undefined
  ) as DeletePreconditions | undefined;
  if (!budgetsApply(pod)) {
    store.delete('pods', name, { namespace, preconditions });
    return successStatus(201);
  }
  const budgets = store
    .list('poddisruptionbudgets.policy', { namespace })
    .items.filter((budget) => budgetSelects(budget, pod));
  if (budgets.length > 1) {
    throw new KubeApiError(
      failureStatus(
        500,
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      ),
    );
  }
  const [budget] = budgets;
  if (budget) {
    const computed = budgetInStore(store, budget);
    const spec = isJsonObject(budget.spec) ? budget.spec : {};
    const allowed = isPodHealthy(pod)
      ? computed.disruptionsAllowed > 0
      : spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
        computed.currentHealthy >= computed.desiredHealthy;
    if (!allowed) {
      throw new KubeApiError(
        failureStatus(429, evictionBlockedMessage, 'TooManyRequests', {
          causes: [
            {
              reason: 'DisruptionBudget',
              message: `The disruption budget ${budget.metadata.name} needs ${computed.desiredHealthy} healthy pods and has ${computed.currentHealthy} currently`,
            },
          ],
        }),
      );
    }
  }
  store.delete('pods', name, { namespace, preconditions });
  return successStatus(201);
}

/** Budgets are ignored for pods that are not running or are already terminating. */
function budgetsApply(pod: KubeObject): boolean {
  const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
  return (
    !pod.metadata.deletionTimestamp && phase !== 'Pending' && phase !== 'Succeeded' && phase !== 'Failed'
  );
}
