import { afterEach, describe, expect, it } from 'vitest';
import { runtimeOf } from '../../../functions/runtime';
import { makeTerminationHandler } from '../../../functions/termination/handler';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { podDisruptionBudgetManifest, podManifest } from '../../../sim/world/builders';
import {
  lambdaContext,
  NODE,
  type ProvisionerWorld,
  scheduledEvent,
  withOneNode,
} from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

/** A world with one registered Node running `pods`, and the termination handler over it. */
async function terminationWorld(pods: readonly Json[]) {
  const { pw, claimName } = await withOneNode(pods);
  const seen = new RecordingObservability();
  const runtime = runtimeOf('termination', pw.world.ports, pw.world.time, seen.log, seen.metricsPort);
  return { pw, seen, claimName, terminate: makeTerminationHandler(() => runtime) };
}

const bound = (name: string, extra: Parameters<typeof podManifest>[0] = {}) =>
  podManifest({
    name,
    nodeName: NODE,
    ready: true,
    ownerKind: 'ReplicaSet',
    requests: { cpu: '100m' },
    ...extra,
  });

describe('termination: a deleted NodeClaim is drained, its instance terminated, then it goes', () => {
  it('takes kubectl delete nodeclaim through taint, eviction, TerminateInstances and finalizer removal', async () => {
    const t = await terminationWorld([
      bound('web-1', { labels: { app: 'web' } }),
      bound('agent', { ownerKind: 'DaemonSet' }),
    ]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    store.delete('nodeclaims.karpenter.sh', t.claimName);

    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    const tainted = store.get('nodes', NODE) as Json;
    expect(tainted.spec.taints).toContainEqual({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    // Evicted: Terminating until the node's kubelet confirms, which it does here.
    expect((store.get('pods', 'web-1') as Json).metadata.deletionTimestamp).toBeDefined();
    store.delete('pods', 'web-1', { gracePeriodSeconds: 0 });
    expect(store.find('pods', 'agent')).toBeDefined();
    expect(t.seen.total('PodsEvicted')).toBe(1);

    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    const [instance] = w.world.fakes.ec2.listInstances();
    expect(instance.State?.Name).toBe('shutting-down');
    expect(store.find('nodeclaims.karpenter.sh', t.claimName)).toBeDefined();

    w.world.time.advance(60_000);
    await t.terminate(scheduledEvent('t3'), lambdaContext('t3'));
    expect(store.find('nodeclaims.karpenter.sh', t.claimName)).toBeUndefined();
    expect(store.find('nodes', NODE)).toBeUndefined();
    expect(t.seen.total('NodeClaimsTerminated')).toBe(1);
  });

  it('leaves a pod its PodDisruptionBudget protects, tries again next run, and terminates nothing meanwhile', async () => {
    const t = await terminationWorld([bound('db-0', { labels: { app: 'db' } })]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    store.seed(
      'poddisruptionbudgets.policy',
      podDisruptionBudgetManifest({ name: 'db', app: 'db', minAvailable: 1, expectedPods: 1 }),
    );
    store.delete('nodeclaims.karpenter.sh', t.claimName);

    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(store.find('pods', 'db-0')).toBeDefined();
    expect(t.seen.total('EvictionsBlocked')).toBe(2);
    expect(['pending', 'running']).toContain(w.world.fakes.ec2.listInstances()[0].State?.Name);
  });

  it('takes kubectl delete node the same way: its NodeClaim is deleted, then drained', async () => {
    const t = await terminationWorld([bound('web-1')]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    store.delete('nodes', NODE);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    expect(
      (store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata.deletionTimestamp,
    ).toBeDefined();
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect((store.get('pods', 'web-1') as Json).metadata.deletionTimestamp).toBeDefined();
  });

  it('terminates an instance of the cluster that no NodeClaim owns', async () => {
    const t = await terminationWorld([]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    const claim = store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    store.update('nodeclaims.karpenter.sh', { ...claim, metadata: { ...claim.metadata, finalizers: [] } });
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    w.world.time.advance(60_000);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    expect(w.world.fakes.ec2.listInstances()[0].State?.Name).toBe('shutting-down');
    expect(t.seen.total('InstancesGarbageCollected')).toBe(1);
  });
});
