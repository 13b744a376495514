/**
 * Whether a Deployment has rolled out, as `kubectl rollout status` decides it (kubernetes
 * staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go,
 * `DeploymentStatusViewer.Status`): the controller has observed the current generation, every
 * replica runs the current template, no old replica is left and every updated one is available.
 */

/** The fields of a Deployment the decision reads (apps/v1 JSON). */
export interface DeploymentState {
  readonly metadata: { readonly name?: string; readonly generation?: number };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly replicas?: number;
    readonly updatedReplicas?: number;
    readonly availableReplicas?: number;
    readonly conditions?: readonly {
      readonly type: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
  };
}

/** The outcome: done, still rolling (with kubectl's message), or failed for good. */
export type Rollout =
  | { readonly state: 'done'; readonly message: string }
  | { readonly state: 'progressing'; readonly message: string }
  | { readonly state: 'failed'; readonly message: string };

/** The rollout state of `deployment`. */
export function deploymentRollout(deployment: DeploymentState): Rollout {
  const name = deployment.metadata.name ?? '';
  const status = deployment.status ?? {};
  if ((deployment.metadata.generation ?? 0) > (status.observedGeneration ?? 0)) {
    return { state: 'progressing', message: 'Waiting for deployment spec update to be observed...' };
  }
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return {
      state: 'failed',
      message: `deployment "${name}" exceeded its progress deadline${progressing.message ? `: ${progressing.message}` : ''}`,
    };
  }
  const wanted = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  if (updated < wanted) {
    return {
      state: 'progressing',
      message: `Waiting for deployment "${name}" rollout to finish: ${updated} out of ${wanted} new replicas have been updated...`,
    };
  }
  const total = status.replicas ?? 0;
  if (total > updated) {
    return {
      state: 'progressing',
      message: `Waiting for deployment "${name}" rollout to finish: ${total - updated} old replicas are pending termination...`,
    };
  }
  const available = status.availableReplicas ?? 0;
  if (available < updated) {
    return {
      state: 'progressing',
      message: `Waiting for deployment "${name}" rollout to finish: ${available} of ${updated} updated replicas are available...`,
    };
  }
  return { state: 'done', message: `deployment "${name}" successfully rolled out` };
}
