import type { KubeObject } from '../../fakes/kube';
import { expectedPodsAnnotation } from '../../fakes/kube';

/** Options of {@link podDisruptionBudgetManifest}. */
export interface PodDisruptionBudgetManifestOptions {
  readonly name: string;
  /** The budget selects pods labelled `app=<app>`. */
  readonly app: string;
  /** Default `default`. */
  readonly namespace?: string;
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
  readonly unhealthyPodEvictionPolicy?: string;
  /** Stands in for the workload's replicas (the fake API server's annotation). */
  readonly expectedPods?: number;
}

/** A policy/v1 PodDisruptionBudget over the pods labelled `app=<app>`. */
export function podDisruptionBudgetManifest(options: PodDisruptionBudgetManifestOptions): KubeObject {
  const { minAvailable, maxUnavailable, unhealthyPodEvictionPolicy } = options;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: options.name,
      namespace: options.namespace ?? 'default',
      ...(options.expectedPods !== undefined
        ? { annotations: { [expectedPodsAnnotation]: String(options.expectedPods) } }
        : {}),
    },
    spec: {
      selector: { matchLabels: { app: options.app } },
      ...(minAvailable !== undefined ? { minAvailable } : {}),
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
      ...(unhealthyPodEvictionPolicy !== undefined ? { unhealthyPodEvictionPolicy } : {}),
    },
  };
}
