import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCloudError } from '../../shared/core/model/errors';
import { EvictionBlockedError, isEvictionBlockedError } from '../../shared/kube/eviction-blocked-error';
import { podManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

function readyPods(app: string, count: number): void {
  for (let i = 1; i <= count; i++)
    h.server.store.seed(
      'pods',
      podManifest({ name: `${app}-${i}`, nodeName: 'n1', ready: true, labels: { app } }),
    );
}

function budget(name: string, app: string, minAvailable: number): void {
  h.server.store.create('poddisruptionbudgets.policy', {
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels: { app } }, minAvailable },
  });
}

describe('KubeCluster.evictPod', () => {
  it('evicts through the policy/v1 Eviction subresource', async () => {
    readyPods('web', 1);
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'web-1' })).toBe('evicted');
    // Deleted gracefully: Terminating until its kubelet confirms.
    expect(h.server.store.get('pods', 'web-1').metadata.deletionTimestamp).toBeDefined();
    expect(h.server.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/api/v1/namespaces/default/pods/web-1/eviction',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-1', namespace: 'default' } },
      status: 201,
    });
  });

  it('throws EvictionBlockedError naming the PodDisruptionBudget on 429', async () => {
    readyPods('web', 2);
    budget('web-pdb', 'web', 2);
    const error = await rejectionOf(h.cluster.evictPod({ namespace: 'default', name: 'web-1' }));
    expect(isEvictionBlockedError(error)).toBe(true);
    expect(error).toMatchObject({ pod: 'default/web-1', budget: 'web-pdb' });
    expect(error.message).toBe(
      'evicting pod default/web-1: blocked by PodDisruptionBudget web-pdb: The disruption budget web-pdb needs 2 healthy pods and has 2 currently',
    );
    expect(h.server.store.find('pods', 'web-1')).toBeDefined();
  });

  it('treats a plain 429 (API throttling) as a retryable CloudError, not a budget refusal', async () => {
    readyPods('web', 1);
    h.server.failNext('create', '/api/v1/namespaces/default/pods/web-1/eviction', 429, {
      message: 'too many requests, please try again later',
    });
    const error = await rejectionOf(h.cluster.evictPod({ namespace: 'default', name: 'web-1' }));
    expect(error).not.toBeInstanceOf(EvictionBlockedError);
    expect(isCloudError(error) && error.retryable).toBe(true);
  });

  it('reports two budgets selecting the pod (500) as blocked', async () => {
    readyPods('web', 2);
    budget('one', 'web', 0);
    budget('two', 'web', 0);
    const error = await rejectionOf(h.cluster.evictPod({ namespace: 'default', name: 'web-1' }));
    expect(isEvictionBlockedError(error)).toBe(true);
    expect(error.message).toContain('more than one PodDisruptionBudget');
  });

  it('counts a pod that is already gone (404) or replaced under the same name (uid) as success', async () => {
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'ghost' })).toBe('gone');
    readyPods('db', 1);
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'db-1', uid: 'old-uid' })).toBe('gone');
    expect(h.server.store.find('pods', 'db-1')).toBeDefined();
    const uid = h.server.store.get('pods', 'db-1').metadata.uid;
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'db-1', uid })).toBe('evicted');
    expect(h.server.store.get('pods', 'db-1').metadata.deletionTimestamp).toBeDefined();
  });
});

describe('KubeCluster.evictPod of a pod replaced under its name', () => {
  it('reports the replaced pod gone, not blocked, when a budget guards the new one', async () => {
    readyPods('db', 2);
    budget('db-pdb', 'db', 2);
    expect(
      await h.cluster.evictPod({ namespace: 'default', name: 'db-1', uid: 'uid-of-an-earlier-db-1' }),
    ).toBe('gone');
    expect(h.server.requests.filter((r) => r.path.endsWith('/eviction'))).toEqual([]);
  });

  it('spends none of the budget on the replacement', async () => {
    readyPods('db', 3);
    budget('db-pdb', 'db', 2);
    expect(
      await h.cluster.evictPod({ namespace: 'default', name: 'db-1', uid: 'uid-of-an-earlier-db-1' }),
    ).toBe('gone');
    expect(h.server.store.get('poddisruptionbudgets.policy', 'db-pdb').status).toMatchObject({
      disruptionsAllowed: 1,
    });
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'db-2' })).toBe('evicted');
  });

  it('still evicts the very pod whose uid it was given, guarded by the uid precondition', async () => {
    readyPods('db', 1);
    const uid = h.server.store.get('pods', 'db-1').metadata.uid;
    expect(await h.cluster.evictPod({ namespace: 'default', name: 'db-1', uid })).toBe('evicted');
    expect(h.server.requests.at(-1)?.body).toMatchObject({ deleteOptions: { preconditions: { uid } } });
  });
});

describe('KubeCluster.deletePod', () => {
  it('deletes regardless of budgets and succeeds when the pod is already gone', async () => {
    readyPods('web', 1);
    budget('web', 'web', 1);
    expect(await h.cluster.deletePod({ namespace: 'default', name: 'web-1' })).toBe(true);
    expect(h.server.store.get('pods', 'web-1').metadata.deletionGracePeriodSeconds).toBe(30);
    // The kubelet confirms (grace 0); the pod is gone and a second delete finds nothing.
    h.server.store.delete('pods', 'web-1', { gracePeriodSeconds: 0 });
    expect(await h.cluster.deletePod({ namespace: 'default', name: 'web-1' })).toBe(false);
  });

  it('grants the grace period asked for in the DeleteOptions, with the uid precondition', async () => {
    readyPods('web', 1);
    const uid = h.server.store.get('pods', 'web-1').metadata.uid;
    expect(
      await h.cluster.deletePod({ namespace: 'default', name: 'web-1', uid }, { gracePeriodSeconds: 35 }),
    ).toBe(true);
    const request = h.server.requests.at(-1);
    expect(request?.method).toBe('DELETE');
    expect(request?.body).toMatchObject({ gracePeriodSeconds: 35, preconditions: { uid } });
  });

  it('surfaces other failures as CloudErrors naming the pod', async () => {
    h.server.failNext('delete', '*', 503);
    const error = await rejectionOf(h.cluster.deletePod({ namespace: 'team', name: 'x' }));
    expect(error.message).toMatch(/^deleting pod team\/x: ServiceUnavailable/);
  });
});
