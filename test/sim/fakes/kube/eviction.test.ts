import { CoreV1Api, PolicyV1Api, type V1PodDisruptionBudget } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer } from '../../../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../../../sim/fakes/kube';
import { VirtualTime } from '../../../../sim/virtual-time';
import { podDisruptionBudgetManifest, podManifest } from '../../../../sim/world/builders';
import { rejection } from './api-error';

let server: FakeKubeApiServer;
let core: CoreV1Api;
let policy: PolicyV1Api;

beforeEach(async () => {
  server = await startFakeKubeApiServer();
  const kc = server.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  policy = kc.makeApiClient(PolicyV1Api);
});
afterEach(() => server.close());

const evictWithUid = (name: string, uid: string) =>
  core.createNamespacedPodEviction({
    name,
    namespace: 'default',
    body: {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: 'default' },
      deleteOptions: { preconditions: { uid } },
    },
  });

const evict = (name: string, namespace = 'default') =>
  core.createNamespacedPodEviction({
    name,
    namespace,
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
  });

function seedReadyPods(app: string, count: number): void {
  for (let i = 1; i <= count; i++)
    server.store.seed(
      'pods',
      podManifest({ name: `${app}-${i}`, labels: { app }, nodeName: 'n1', ready: true }),
    );
}

describe('fake API server: pods/eviction', () => {
  it('evicts a pod no budget covers with 201 and a Success Status', async () => {
    seedReadyPods('web', 1);
    await evict('web-1');
    expect(server.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/api/v1/namespaces/default/pods/web-1/eviction',
      status: 201,
    });
    // A running pod is deleted gracefully: it stays Terminating until its kubelet confirms.
    expect(server.store.get('pods', 'web-1').metadata.deletionGracePeriodSeconds).toBe(30);
    server.store.delete('pods', 'web-1', { gracePeriodSeconds: 0 });
    expect(server.store.find('pods', 'web-1')).toBeUndefined();
  });

  it('refuses with 429 and the real message once minAvailable would be violated', async () => {
    seedReadyPods('web', 3);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: 'default',
      // The builders make the JSON the wire carries; client-node's models differ only in typing dates.
      body: podDisruptionBudgetManifest({
        name: 'web',
        app: 'web',
        minAvailable: 2,
      }) as V1PodDisruptionBudget,
    });
    await evict('web-1');
    const blocked = await rejection(evict('web-2'));
    expect(blocked).toEqual({
      code: 429,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: 'TooManyRequests',
        details: {
          causes: [
            {
              reason: 'DisruptionBudget',
              message: 'The disruption budget web needs 2 healthy pods and has 2 currently',
            },
          ],
        },
        code: 429,
      },
    });
    expect(server.store.find('pods', 'web-2')).toBeDefined();
  });

  it.each([
    [{ maxUnavailable: 1 }, 1],
    [{ maxUnavailable: '50%' }, 2],
    [{ minAvailable: '50%' }, 2],
    [{ minAvailable: 0 }, 4],
  ])('honours %j over 4 healthy pods: %i evictions allowed', async (budget, allowed) => {
    seedReadyPods('api', 4);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'api', app: 'api', ...budget, expectedPods: 4 }),
    );
    let evicted = 0;
    for (let i = 1; i <= 4; i++) {
      try {
        await evict(`api-${i}`);
        evicted++;
      } catch {
        break;
      }
    }
    expect(evicted).toBe(allowed);
  });

  it('ignores budgets for pending pods and lets an unhealthy pod go only when the budget is met', async () => {
    seedReadyPods('web', 2);
    server.store.seed('pods', podManifest({ name: 'web-pending', labels: { app: 'web' } }));
    server.store.seed('pods', podManifest({ name: 'web-unready', labels: { app: 'web' }, phase: 'Running' }));
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', minAvailable: 2 }),
    );
    await evict('web-pending');
    await evict('web-unready');
    expect((await rejection(evict('web-1'))).code).toBe(429);
  });

  it('counts the selected pods as expected when no replica count is declared', async () => {
    seedReadyPods('web', 3);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: 1 }),
    );
    await evict('web-1');
    server.store.create('pods', podManifest({ name: 'web-replacement', labels: { app: 'web' } }));
    expect((await rejection(evict('web-2'))).code).toBe(429);
  });

  it('keeps the PodDisruptionBudget status current, as the disruption controller would', async () => {
    seedReadyPods('web', 3);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: 'default',
      body: podDisruptionBudgetManifest({
        name: 'web',
        app: 'web',
        maxUnavailable: 1,
        expectedPods: 3,
      }) as V1PodDisruptionBudget,
    });
    const before = await policy.readNamespacedPodDisruptionBudget({ name: 'web', namespace: 'default' });
    expect(before.status).toMatchObject({
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
    });
    await evict('web-1');
    const after = await policy.readNamespacedPodDisruptionBudget({ name: 'web', namespace: 'default' });
    expect(after.status).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 2, expectedPods: 3 });
    expect(after.status?.conditions?.[0]).toMatchObject({ type: 'DisruptionAllowed', status: 'False' });
  });

  it('marks a pod with finalizers for deletion instead of removing it', async () => {
    server.store.seed('pods', {
      ...podManifest({ name: 'web-1', ready: true }),
      metadata: { name: 'web-1', finalizers: ['example.com/keep'] },
    });
    await evict('web-1');
    expect(server.store.get('pods', 'web-1').metadata.deletionTimestamp).toBeDefined();
  });

  it('answers 404 for a missing pod and 500 when two budgets select it', async () => {
    expect((await rejection(evict('ghost'))).status).toMatchObject({
      code: 404,
      message: 'pods "ghost" not found',
    });
    seedReadyPods('web', 2);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'one', app: 'web', maxUnavailable: 1 }),
    );
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'two', app: 'web', maxUnavailable: 1 }),
    );
    expect((await rejection(evict('web-1'))).code).toBe(500);
  });

  it('checks the name in the body before looking the pod up', async () => {
    const mismatched = core.createNamespacedPodEviction({
      name: 'ghost',
      namespace: 'default',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other', namespace: 'default' } },
    });
    expect(await rejection(mismatched)).toMatchObject({
      code: 400,
      status: { message: 'name in URL does not match name in Eviction object' },
    });
  });

  it('checks the budget before the uid: a pod recreated under the name answers 429 while the budget allows nothing', async () => {
    seedReadyPods('web', 2);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', minAvailable: 2 }),
    );
    const blocked = await rejection(evictWithUid('web-1', 'uid-of-an-earlier-web-1'));
    expect(blocked.code).toBe(429);
    expect(blocked.status.details?.causes?.[0]?.message).toBe(
      'The disruption budget web needs 2 healthy pods and has 2 currently',
    );
  });

  it('refuses a pod with more than one budget with a reasonless 500 Status', async () => {
    seedReadyPods('web', 1);
    for (const name of ['one', 'two'])
      server.store.create(
        'poddisruptionbudgets.policy',
        podDisruptionBudgetManifest({ name, app: 'web', maxUnavailable: 1 }),
      );
    const refused = await rejection(evict('web-1'));
    expect(refused.code).toBe(500);
    expect(refused.status).not.toHaveProperty('reason');
  });

  it('answers 429 "still being processed" while no controller has caught the budget status up with its spec', async () => {
    await server.close();
    server = await startFakeKubeApiServer({ maintainDisruptionBudgetStatus: false });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
    seedReadyPods('web', 3);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: 1 }),
    );
    expect(await rejection(evict('web-1'))).toMatchObject({
      code: 429,
      status: {
        details: {
          retryAfterSeconds: 10,
          causes: [
            {
              reason: 'DisruptionBudget',
              message: 'The disruption budget web is still being processed by the server.',
            },
          ],
        },
      },
    });
  });
});

describe('fake API server: an eviction with a stale uid that the budget lets through', () => {
  it('spends a disruption, then refuses the delete with 409, and the budget stays spent for two minutes', async () => {
    await server.close();
    const time = new VirtualTime(Date.parse('2026-11-21T10:00:00Z'));
    server = await startFakeKubeApiServer({ time });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
    seedReadyPods('web', 3);
    server.store.create(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: 1, expectedPods: 3 }),
    );
    const uid = server.store.get('pods', 'web-1').metadata.uid;
    expect(await rejection(evictWithUid('web-1', 'uid-of-an-earlier-web-1'))).toMatchObject({
      code: 409,
      status: {
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on Pod "web-1": the UID in the precondition (uid-of-an-earlier-web-1) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
        details: { name: 'web-1', kind: 'Pod' },
      },
    });
    expect(server.store.find('pods', 'web-1')).toBeDefined();
    expect(server.store.get('poddisruptionbudgets.policy', 'web').status).toMatchObject({
      disruptionsAllowed: 0,
      disruptedPods: { 'web-1': '2026-11-21T10:00:00Z' },
    });
    expect((await rejection(evict('web-2'))).code).toBe(429);

    time.advance(120_001);
    expect(server.store.get('poddisruptionbudgets.policy', 'web').status).toMatchObject({
      disruptionsAllowed: 1,
    });
    expect(server.store.get('poddisruptionbudgets.policy', 'web').status).not.toHaveProperty('disruptedPods');
    await evict('web-2');
  });
});
