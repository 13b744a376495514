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
  // Termination's own role and Kubernetes identity (a world's default ports are the provisioner's).
  const runtime = runtimeOf(
    'termination',
    pw.world.composeAgain('termination'),
    pw.world.time,
    seen.log,
    seen.metricsPort,
  );
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

/** The reasons and messages of the Events recorded on `name`. */
function eventsOn(store: ProvisionerWorld['world']['fakes']['kube']['store'], name: string) {
  return store
    .list('events')
    .items.filter((e) => (e as Json).involvedObject?.name === name)
    .map((e) => `${(e as Json).reason}: ${(e as Json).message}`);
}

/** A pod gone, or Terminating (a fake API server that deletes gracefully keeps it until its kubelet confirms). */
function leaving(store: ProvisionerWorld['world']['fakes']['kube']['store'], name: string): boolean {
  const pod = store.find('pods', name) as Json | undefined;
  return pod === undefined || pod.metadata.deletionTimestamp !== undefined;
}

/** The node controller's view of a Node whose kubelet stopped posting status: Ready Unknown. */
function kubeletGone(store: ProvisionerWorld['world']['fakes']['kube']['store']): void {
  const node = store.get('nodes', NODE) as Json;
  store.updateStatus('nodes', {
    ...node,
    status: {
      ...node.status,
      conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }],
    },
  });
}

const conditionsOf = (store: ProvisionerWorld['world']['fakes']['kube']['store'], claim: string) =>
  Object.fromEntries(
    ((store.get('nodeclaims.karpenter.sh', claim) as Json).status.conditions as Json[]).map((c) => [
      c.type,
      `${c.status}/${c.reason}`,
    ]),
  );

describe('termination: a deleted NodeClaim is drained, its instance terminated, then it goes', () => {
  it('takes kubectl delete nodeclaim through taint, eviction by groups, TerminateInstances and finalizer removal', async () => {
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
    expect(tainted.metadata.labels['node.kubernetes.io/exclude-from-external-load-balancers']).toBe(
      'karpenter',
    );
    expect(leaving(store, 'web-1')).toBe(true);
    expect(leaving(store, 'agent')).toBe(false);
    expect(t.seen.total('PodsEvicted')).toBe(1);
    expect(eventsOn(store, 'web-1')).toStrictEqual(['Evicted: Evicted pod: Forceful Termination']);
    expect(eventsOn(store, NODE)).toContain(
      'FailedDraining: Failed to drain node, 2 pods are waiting to be evicted',
    );
    expect(conditionsOf(store, t.claimName).Drained).toBe('Unknown/Draining');

    // The DaemonSet pod goes next (terminator.go groupPodsByPriority), not with the node.
    w.world.time.advance(120_000);
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(leaving(store, 'agent')).toBe(true);

    w.world.time.advance(120_000);
    await t.terminate(scheduledEvent('t3'), lambdaContext('t3'));
    expect(conditionsOf(store, t.claimName)).toMatchObject({
      Drained: 'True/Drained',
      VolumesDetached: 'True/VolumesDetached',
      InstanceTerminating: 'True/InstanceTerminating',
    });
    const [instance] = w.world.fakes.ec2.listInstances();
    expect(instance.State?.Name).toBe('shutting-down');
    expect(store.find('nodeclaims.karpenter.sh', t.claimName)).toBeDefined();

    w.world.time.advance(60_000);
    await t.terminate(scheduledEvent('t4'), lambdaContext('t4'));
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
    expect(eventsOn(store, NODE)).toContain(
      'FailedDraining: Failed to drain node, evicting pod violates a PDB',
    );
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
    expect(leaving(store, 'web-1')).toBe(true);
  });

  it('never evicts a do-not-disrupt pod, then deletes it in time for the terminationGracePeriod with the time left', async () => {
    // node/termination/suite_test.go "should only delete pods when their terminationGracePeriodSeconds
    // is less than the node's remaining terminationGracePeriod" (300 s node, 60 s pod).
    const pinned = bound('pinned');
    const t = await terminationWorld([
      {
        ...pinned,
        metadata: { ...pinned.metadata, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
        spec: { ...pinned.spec, terminationGracePeriodSeconds: 60 },
      },
    ]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    const claim = store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    store.update('nodeclaims.karpenter.sh', {
      ...claim,
      spec: { ...claim.spec, terminationGracePeriod: '5m' },
    });
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    const deadline = (store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata.deletionTimestamp;
    const terminationTime = new Date(Date.parse(deadline) + 300_000).toISOString().replace('.000Z', 'Z');

    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    w.world.time.advance(90_000);
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(store.find('pods', 'pinned')).toBeDefined();
    expect((store.get('pods', 'pinned') as Json).metadata.deletionTimestamp).toBeUndefined();
    expect(w.world.fakes.kube.requests.some((r) => r.path.endsWith('/pinned/eviction'))).toBe(false);
    expect(eventsOn(store, t.claimName)).toContain(
      `TerminationGracePeriodExpiring: All pods will be deleted by ${terminationTime}`,
    );
    expect(eventsOn(store, NODE)).toContain(
      `TerminationGracePeriodExpiring: All pods will be deleted by ${terminationTime}`,
    );

    w.world.time.advance(175_000); // 265 s in: 35 s left, under the pod's 60
    await t.terminate(scheduledEvent('t3'), lambdaContext('t3'));
    expect(leaving(store, 'pinned')).toBe(true);
    const deleted = w.world.fakes.kube.requests.find(
      (r) => r.method === 'DELETE' && r.path.endsWith('/pods/pinned'),
    );
    expect(deleted?.body).toMatchObject({ gracePeriodSeconds: 35 });
    expect(eventsOn(store, 'pinned')).toStrictEqual([
      `Disrupted: Deleting the pod to accommodate the terminationTime ${terminationTime.replace('T', ' ').replace('Z', ' +0000 UTC')} of the node. The pod was granted 35 seconds of grace-period of its 60 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.`,
    ]);
  });

  it('stops waiting for a pod stuck Terminating (a finalizer holds it) a minute past its deletionTimestamp', async () => {
    const held = bound('held');
    const t = await terminationWorld([
      { ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold'] } },
    ]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    store.delete('pods', 'held');
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(['pending', 'running']).toContain(w.world.fakes.ec2.listInstances()[0].State?.Name);

    // Past its deletionTimestamp (+ a grace period of at most 30 s) by over a minute.
    w.world.time.advance(91_000 + 30_000);
    await t.terminate(scheduledEvent('t3'), lambdaContext('t3'));
    expect(w.world.fakes.ec2.listInstances()[0].State?.Name).toBe('shutting-down');
    expect(store.find('pods', 'held')).toBeDefined();
  });

  it('finalizes a NotReady Node whose instance is gone at once, pods and all', async () => {
    // node/termination/controller.go finalize: NodeClaimNotFound from the cloud provider on a Node
    // that is not Ready removes the finalizer without draining.
    const t = await terminationWorld([bound('web-1')]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    kubeletGone(store);
    await w.world.fakes.ec2.terminateInstances({
      InstanceIds: [w.world.fakes.ec2.listInstances()[0].InstanceId ?? ''],
    });
    w.world.time.advance(60_000);
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    expect(store.find('nodeclaims.karpenter.sh', t.claimName)).toBeUndefined();
    expect(store.find('nodes', NODE)).toBeUndefined();
  });

  it('waits for the Node’s VolumeAttachments to go before terminating the instance', async () => {
    const t = await terminationWorld([]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    store.seed('volumeattachments.storage.k8s.io', {
      metadata: { name: 'csi-0123' },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: NODE, source: { persistentVolumeName: 'pv-data' } },
    });
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    w.world.time.advance(60_000);
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(conditionsOf(store, t.claimName)).toMatchObject({
      Drained: 'True/Drained',
      VolumesDetached: 'Unknown/AwaitingVolumeDetachment',
    });
    expect(eventsOn(store, NODE)).toContain(
      'AwaitingVolumeDetachment: Awaiting deletion of bound volumeattachments (csi-0123)',
    );
    expect(['pending', 'running']).toContain(w.world.fakes.ec2.listInstances()[0].State?.Name);

    store.delete('volumeattachments.storage.k8s.io', 'csi-0123');
    await t.terminate(scheduledEvent('t3'), lambdaContext('t3'));
    expect(conditionsOf(store, t.claimName).VolumesDetached).toBe('True/VolumesDetached');
    expect(w.world.fakes.ec2.listInstances()[0].State?.Name).toBe('shutting-down');
  });

  it('garbage-collects a Registered NodeClaim whose instance is gone once its Node is not Ready', async () => {
    // nodeclaim/garbagecollection/controller.go Reconcile.
    const t = await terminationWorld([]);
    w = t.pw;
    const store = w.world.fakes.kube.store;
    await w.world.fakes.ec2.terminateInstances({
      InstanceIds: [w.world.fakes.ec2.listInstances()[0].InstanceId ?? ''],
    });
    w.world.time.advance(60_000);
    await t.terminate(scheduledEvent('t1'), lambdaContext('t1'));
    expect(
      (store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata.deletionTimestamp,
    ).toBeUndefined();

    kubeletGone(store);
    await t.terminate(scheduledEvent('t2'), lambdaContext('t2'));
    expect(
      (store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata.deletionTimestamp,
    ).toBeDefined();
    expect(eventsOn(store, t.claimName)).toContain(
      'GarbageCollected: Deleting NodeClaim: its instance is gone',
    );
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
