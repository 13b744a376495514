import { describe, expect, it } from 'vitest';
import { type DeploymentState, deploymentRollout } from '../../../shared/core/install/rollout-status';

/**
 * Cases of kubectl's TestDeploymentStatusViewerStatus (staging/src/k8s.io/kubectl/pkg/
 * polymorphichelpers/rollout_status_test.go): generation, replicas and the answer.
 */
function deployment(
  generation: number,
  observedGeneration: number,
  replicas: number,
  status: { replicas: number; updated: number; available: number },
  conditions: DeploymentState['status'] extends infer S
    ? S extends { conditions?: infer C }
      ? C
      : never
    : never = [],
): DeploymentState {
  return {
    metadata: { name: 'foo', generation },
    spec: { replicas },
    status: {
      observedGeneration,
      replicas: status.replicas,
      updatedReplicas: status.updated,
      availableReplicas: status.available,
      conditions,
    },
  };
}

describe('deploymentRollout', () => {
  it.each([
    [
      deployment(0, 1, 1, { replicas: 1, updated: 0, available: 1 }),
      'progressing',
      'Waiting for deployment "foo" rollout to finish: 0 out of 1 new replicas have been updated...',
    ],
    [
      deployment(1, 1, 1, { replicas: 2, updated: 1, available: 2 }),
      'progressing',
      'Waiting for deployment "foo" rollout to finish: 1 old replicas are pending termination...',
    ],
    [
      deployment(1, 1, 2, { replicas: 2, updated: 2, available: 1 }),
      'progressing',
      'Waiting for deployment "foo" rollout to finish: 1 of 2 updated replicas are available...',
    ],
    [
      deployment(1, 1, 2, { replicas: 2, updated: 2, available: 2 }),
      'done',
      'deployment "foo" successfully rolled out',
    ],
    [
      deployment(2, 1, 2, { replicas: 2, updated: 2, available: 2 }),
      'progressing',
      'Waiting for deployment spec update to be observed...',
    ],
  ])('%#: %s', (d, state, message) => {
    expect(deploymentRollout(d)).toEqual({ state, message });
  });

  it('fails when the Progressing condition says the deadline passed', () => {
    const d = deployment(1, 1, 1, { replicas: 1, updated: 1, available: 0 }, [
      { type: 'Progressing', reason: 'ProgressDeadlineExceeded' },
    ]);
    expect(deploymentRollout(d)).toEqual({
      state: 'failed',
      message: 'deployment "foo" exceeded its progress deadline',
    });
  });

  it('does not fail on another Progressing reason', () => {
    const d = deployment(1, 1, 1, { replicas: 1, updated: 1, available: 1 }, [
      { type: 'Progressing', reason: 'NewReplicaSetAvailable' },
    ]);
    expect(deploymentRollout(d).state).toBe('done');
  });

  it('reads a Deployment the controller has not touched as not rolled out', () => {
    expect(deploymentRollout({ metadata: { name: 'foo', generation: 1 } }).state).toBe('progressing');
  });
});
