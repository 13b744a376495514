import type { DeletePodOptions, EvictionOutcome, PodRef } from '../core/ports/cluster';
import type { ApiStatus } from './api-errors';
import { apiStatus, isApiNotFound, kubeError } from './api-errors';
import { EvictionBlockedError } from './eviction-blocked-error';
import type { KubeApi } from './kube-api';
import { EVICTIONS, PODS } from './kube-resources';
import { ResourceNotServedError } from './resource-not-served-error';

/**
 * Evicts a pod through the policy/v1 Eviction subresource, so PodDisruptionBudgets are honoured.
 * 404 (and 409 for a `uid` that no longer matches) means the pod is already gone: success.
 * A server older than 1.22 refuses the policy/v1 body with a 400: a ResourceNotServedError.
 *
 * With a `uid`, the pod is read first and a different uid under the name counts as gone without
 * an eviction: the real handler judges the budget before the uid precondition
 * (`EvictionREST.Create`, kubernetes pkg/registry/core/pod/storage/eviction.go), so a budgeted
 * replacement would answer 429 ("blocked") instead of 409, or have the budget spend a
 * disruption on it before refusing. The precondition still guards the moment between the two.
 * @throws EvictionBlockedError when a PodDisruptionBudget does not allow it now (429), naming
 *   the budget the API server reported, or when more than one budget selects the pod (500);
 *   CloudError for anything else.
 */
export async function evictPod(api: KubeApi, pod: PodRef): Promise<EvictionOutcome> {
  const core = await api.core();
  const key = `${pod.namespace}/${pod.name}`;
  if (pod.uid && (await currentUid(api, pod)) !== pod.uid) return 'gone';
  try {
    await core.createNamespacedPodEviction({
      name: pod.name,
      namespace: pod.namespace,
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod.name, namespace: pod.namespace },
        ...(pod.uid ? { deleteOptions: { preconditions: { uid: pod.uid } } } : {}),
      },
    });
    return 'evicted';
  } catch (error) {
    const status = apiStatus(error);
    if (isApiNotFound(error) || (status?.code === 409 && pod.uid)) return 'gone';
    if (
      status?.code === 400 &&
      /no kind "Eviction" is registered for version "policy\/v1"/.test(status.message ?? '')
    ) {
      // A server older than 1.22 cannot decode a policy/v1 Eviction.
      throw new ResourceNotServedError(EVICTIONS, `evicting pod ${key}`, { cause: error });
    }
    if (status?.code === 429 && isDisruptionBudgetRefusal(status)) {
      throw new EvictionBlockedError(key, blockingBudget(status), budgetDetail(status), { cause: error });
    }
    if (status?.code === 500 && /more than one PodDisruptionBudget/i.test(status.message ?? '')) {
      throw new EvictionBlockedError(key, undefined, status.message ?? 'more than one PodDisruptionBudget', {
        cause: error,
      });
    }
    throw kubeError(error, `evicting pod ${key}`, `pod ${key}`, PODS);
  }
}

/** The uid of the pod now called `pod.name`, or undefined when there is none. */
async function currentUid(api: KubeApi, pod: PodRef): Promise<string | undefined> {
  const core = await api.core();
  const key = `${pod.namespace}/${pod.name}`;
  try {
    const current = await core.readNamespacedPod({ name: pod.name, namespace: pod.namespace });
    return current.metadata?.uid;
  } catch (error) {
    if (isApiNotFound(error)) return undefined;
    throw kubeError(error, `reading pod ${key} before evicting it`, `pod ${key}`, PODS);
  }
}

/**
 * Deletes a pod without regard for disruption budgets (for pods that are not running, or before
 * the node's termination time), with `options.gracePeriodSeconds` instead of the pod's own grace
 * period when given (in the DeleteOptions body, as kubectl sends it). Returns false
 * when it was already gone.
 */
export async function deletePod(api: KubeApi, pod: PodRef, options: DeletePodOptions = {}): Promise<boolean> {
  const core = await api.core();
  const key = `${pod.namespace}/${pod.name}`;
  const grace = options.gracePeriodSeconds;
  try {
    await core.deleteNamespacedPod({
      name: pod.name,
      namespace: pod.namespace,
      ...(pod.uid || grace !== undefined
        ? {
            body: {
              ...(pod.uid ? { preconditions: { uid: pod.uid } } : {}),
              ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
            },
          }
        : {}),
    });
    return true;
  } catch (error) {
    if (isApiNotFound(error) || (apiStatus(error)?.code === 409 && pod.uid)) return false;
    throw kubeError(error, `deleting pod ${key}`, `pod ${key}`, PODS);
  }
}

/**
 * A 429 from the eviction subresource is a budget refusal when it says so (a DisruptionBudget
 * cause, or the "disruption budget" message); a plain 429 is API throttling.
 */
function isDisruptionBudgetRefusal(status: ApiStatus): boolean {
  return (
    status.causes.some((c) => c.reason === 'DisruptionBudget') ||
    /disruption budget/i.test(status.message ?? '')
  );
}

/** "The disruption budget web needs 2 healthy pods and has 2 currently" → `web`. */
function blockingBudget(status: ApiStatus): string | undefined {
  for (const cause of status.causes) {
    const m = /disruption budget (\S+)/i.exec(cause.message ?? '');
    if (cause.reason === 'DisruptionBudget' && m) return m[1];
  }
  return undefined;
}

function budgetDetail(status: ApiStatus): string {
  return (
    status.causes.find((c) => c.reason === 'DisruptionBudget')?.message ??
    status.message ??
    'the disruption budget does not allow it'
  );
}
