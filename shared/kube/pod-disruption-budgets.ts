import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { LabelSelectorRequirement } from '../core/model/label-selector';
import type { PodDisruptionBudget } from '../core/state/cluster-state';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { POD_DISRUPTION_BUDGETS } from './kube-resources';
import { listAllPages } from './list-pages';

/** Every PodDisruptionBudget in the cluster. */
export async function readPodDisruptionBudgets(api: KubeApi): Promise<PodDisruptionBudget[]> {
  const policy = await api.policy();
  try {
    const budgets = await listAllPages((cont, limit) =>
      policy.listPodDisruptionBudgetForAllNamespaces({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
    return budgets.map(toPodDisruptionBudget);
  } catch (error) {
    throw kubeError(
      error,
      'listing PodDisruptionBudgets',
      'poddisruptionbudgets.policy',
      POD_DISRUPTION_BUDGETS,
    );
  }
}

/**
 * The core view of a policy/v1 PodDisruptionBudget, typed or as the wire's JSON (the field
 * names are the same): what it selects, its limits and the disruption controller's status.
 */
export function toPodDisruptionBudget(budget: V1PodDisruptionBudget): PodDisruptionBudget {
  const spec = budget.spec ?? {};
  const status = budget.status;
  const selector = spec.selector;
  return {
    namespace: budget.metadata?.namespace ?? 'default',
    name: budget.metadata?.name ?? '',
    ...(selector
      ? {
          selector: {
            ...(selector.matchLabels ? { matchLabels: selector.matchLabels } : {}),
            ...(selector.matchExpressions
              ? {
                  matchExpressions: selector.matchExpressions.map(
                    (e): LabelSelectorRequirement => ({
                      key: e.key,
                      operator: e.operator as LabelSelectorRequirement['operator'],
                      ...(e.values ? { values: e.values } : {}),
                    }),
                  ),
                }
              : {}),
          },
        }
      : {}),
    ...(spec.minAvailable !== undefined ? { minAvailable: spec.minAvailable } : {}),
    ...(spec.maxUnavailable !== undefined ? { maxUnavailable: spec.maxUnavailable } : {}),
    ...(spec.unhealthyPodEvictionPolicy
      ? { unhealthyPodEvictionPolicy: spec.unhealthyPodEvictionPolicy }
      : {}),
    disruptionsAllowed: status?.disruptionsAllowed ?? 0,
    currentHealthy: status?.currentHealthy ?? 0,
    desiredHealthy: status?.desiredHealthy ?? 0,
    expectedPods: status?.expectedPods ?? 0,
  };
}
