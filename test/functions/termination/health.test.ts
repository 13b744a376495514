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

/** One registered Node running a pod, and the termination handler over it (NodeRepair as given). */
async function healthWorld(nodeRepair = false) {
  const pod = podManifest({
    name: 'web-1',
    nodeName: NODE,
    ready: true,
    ownerKind: 'ReplicaSet',
    labels: { app: 'web' },
  });
  const { pw, claimName, instanceId } = await withOneNode([pod]);
  const seen = new RecordingObservability();
  // Termination's own role and Kubernetes identity (a world's default ports are the provisioner's).
  const own = pw.world.composeAgain('termination');
  const ports = {
    ...own,
    config: { ...own.config, featureGates: { ...own.config.featureGates, nodeRepair } },
  };
  const runtime = runtimeOf('termination', ports, pw.world.time, seen.log, seen.metricsPort);
  const handler = makeTerminationHandler(() => runtime);
  let runs = 0;
  const run = () => {
    runs += 1;
    return handler(scheduledEvent(`t${runs}`), lambdaContext(`t${runs}`)) as Promise<Json>;
  };
  const store = pw.world.fakes.kube.store;
  // Its budget allows no eviction: only a forceful termination deletes the pod.
  store.seed(
    'poddisruptionbudgets.policy',
    podDisruptionBudgetManifest({ name: 'web', app: 'web', minAvailable: 1, expectedPods: 1 }),
  );
  const claim = () => store.find('nodeclaims.karpenter.sh', claimName) as Json | undefined;
  const events = () => (store.list('events').items as Json[]).map((e) => [e.involvedObject.kind, e.reason]);
  return { pw, seen, claimName, instanceId, run, store, claim, events };
}

describe('termination: instance health (instancestatus_controller.go)', () => {
  it('replaces the NodeClaim of an instance whose system status stays impaired for two minutes, forcefully', async () => {
    const t = await healthWorld();
    w = t.pw;
    t.pw.world.fakes.ec2.setInstanceStatus(t.instanceId, { system: 'impaired' });
    t.pw.world.time.advance(60_000);
    expect(await t.run()).toMatchObject({ unhealthyInstances: 0 });
    expect(t.claim()?.metadata.deletionTimestamp).toBeUndefined();

    t.pw.world.time.advance(60_000);
    expect(await t.run()).toMatchObject({ unhealthyInstances: 1 });
    const deleted = t.claim();
    expect(deleted?.metadata.deletionTimestamp).toBeDefined();
    expect(deleted?.metadata.annotations['karpenter.sh/nodeclaim-termination-timestamp']).toBe(
      new Date(t.pw.world.time.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    expect(t.events()).toEqual(
      expect.arrayContaining([
        ['NodeClaim', 'InstanceUnhealthy'],
        ['Node', 'InstanceUnhealthy'],
        ['NodeClaim', 'TerminatingOnInterruption'],
        ['Node', 'TerminatingOnInterruption'],
      ]),
    );
    // events.go words it for each object.
    const terminating = (t.store.list('events').items as Json[])
      .filter((e) => e.reason === 'TerminatingOnInterruption')
      .map((e) => [e.involvedObject.kind, e.message]);
    expect(terminating).toEqual([
      ['NodeClaim', 'Interruption triggered termination for the NodeClaim'],
      ['Node', 'Interruption triggered termination for the Node'],
    ]);
    expect(t.seen.total('InstancesUnhealthy')).toBe(1);

    // The termination timestamp has passed: the pod is deleted without waiting for its budget.
    await t.run();
    await t.run();
    // Deleted with a 1 s grace (eviction.go forceDelete): Terminating until its kubelet confirms,
    // which none does in this world, so the drain waits until the pod is stuck (a minute past
    // its deletionTimestamp, IsStuckTerminating) before the instance goes.
    expect((t.store.find('pods', 'web-1') as Json | undefined)?.metadata.deletionTimestamp).toBeDefined();
    expect(t.pw.world.fakes.ec2.instance(t.instanceId)?.State?.Name).toBe('running');
    t.pw.world.time.advance(62_000);
    await t.run();
    await t.run();
    expect(t.pw.world.fakes.ec2.instance(t.instanceId)?.State?.Name).toBe('shutting-down');
  });

  it('deletes the NodeClaim of an instance with a scheduled retirement at once, without the termination timestamp', async () => {
    const t = await healthWorld();
    w = t.pw;
    t.pw.world.time.advance(20_000); // running: DescribeInstanceStatus reports running instances only
    t.pw.world.fakes.ec2.scheduleInstanceEvent(t.instanceId, { code: 'instance-retirement' });
    expect(await t.run()).toMatchObject({ unhealthyInstances: 1 });
    expect(t.claim()?.metadata.deletionTimestamp).toBeDefined();
    expect(t.claim()?.metadata.annotations['karpenter.sh/nodeclaim-termination-timestamp']).toBeUndefined();
    // The next runs drain it; a NodeClaim already deleting is not deleted or announced again.
    const before = t.events().length;
    expect(await t.run()).toMatchObject({ unhealthyInstances: 0 });
    expect(t.events().filter(([, reason]) => reason === 'InstanceUnhealthy')).toHaveLength(2);
    expect(t.events().length).toBeGreaterThanOrEqual(before);
  });

  it('goes on when the instance status cannot be read, saying which permission is missing', async () => {
    const t = await healthWorld();
    w = t.pw;
    t.pw.world.fakes.ec2.failNext('DescribeInstanceStatus', 'UnauthorizedOperation');
    expect(await t.run()).toMatchObject({ unhealthyInstances: 0 });
    expect(t.seen.lines.some((l) => l.message.startsWith('ec2:DescribeInstanceStatus is not allowed'))).toBe(
      true,
    );
    expect(await t.run()).toMatchObject({ unhealthyInstances: 0 });
    expect(t.claim()?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('termination: node repair (node/health/controller.go, feature gate NodeRepair)', () => {
  const notReady = (store: ProvisionerWorld['world']['fakes']['kube']['store'], since: number) => {
    const node = store.get('nodes', NODE) as Json;
    store.updateStatus('nodes', {
      ...node,
      status: {
        ...node.status,
        conditions: [
          {
            type: 'Ready',
            status: 'Unknown',
            lastTransitionTime: new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
        ],
      },
    });
  };

  it('replaces a Node NotReady for 30 minutes when the gate is on, and never when it is off', async () => {
    for (const gate of [false, true]) {
      const t = await healthWorld(gate);
      w = t.pw;
      notReady(t.store, t.pw.world.time.now());
      t.pw.world.time.advance(29 * 60_000);
      expect(await t.run()).toMatchObject({ repaired: 0 });
      t.pw.world.time.advance(60_000);
      expect(await t.run()).toMatchObject({ repaired: gate ? 1 : 0 });
      expect(t.claim()?.metadata.deletionTimestamp !== undefined).toBe(gate);
      if (gate) {
        expect(t.claim()?.metadata.annotations['karpenter.sh/nodeclaim-termination-timestamp']).toBeDefined();
        expect(t.seen.total('NodeClaimsUnhealthyDisrupted')).toBe(1);
      }
      await t.pw.world.close();
      w = undefined;
    }
  });
});
