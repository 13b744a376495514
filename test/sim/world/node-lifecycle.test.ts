import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClusterWorld, clusterWorld } from '../../../sim/world/cluster-world';
import { KubeletStandIn } from '../../../sim/world/kubelet';

// What Kubernetes does when a node's kubelet goes, derived from kubernetes
// pkg/controller/nodelifecycle (monitorNodeHealth: Unknown after --node-monitor-grace-period,
// MarkPodsNotReady, the unreachable taints), pkg/controller/tainteviction (pods deleted once their
// toleration of the NoExecute taint runs out; 300 s from the DefaultTolerationSeconds admission
// plugin), cloud-provider controllers/nodelifecycle (a not-Ready Node whose instance no longer
// exists is deleted) and pkg/controller/podgc (gcOrphaned: pods of a Node that is gone are
// force-deleted after a 40 s quarantine).

// biome-ignore lint/suspicious/noExplicitAny: the test reads the API server's untyped JSON
type Json = Record<string, any>;

let world: ClusterWorld;
let kubelet: KubeletStandIn;
beforeEach(async () => {
  world = await clusterWorld();
  kubelet = new KubeletStandIn(world.fakes.kube.store, world.fakes.ec2, world.time);
});
afterEach(() => world.close());

const store = () => world.fakes.kube.store;
const pod = (name: string) => store().find('pods', name) as Json | undefined;
const node = (name: string) => store().find('nodes', name) as Json | undefined;
function run(ms: number): void {
  for (let t = 0; t < ms; t += 1000) {
    world.time.advance(1000);
    kubelet.step();
  }
}

function seedPod(name: string, nodeName: string, extra: Json = {}): void {
  store().seed('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...(extra.metadata ?? {}) },
    spec: { nodeName, containers: [{ name: 'app' }], ...(extra.spec ?? {}) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

/** An instance whose Node registered (seeded under the name the stand-in tracks it by). */
function nodeOnInstance(): { id: string; name: string } {
  const id = world.fakes.ec2.launchOutside({ instanceType: 'm5.large' });
  run(16_000);
  const instance = world.fakes.ec2.instance(id);
  const name = instance?.PrivateDnsName ?? '';
  store().seed('nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, finalizers: ['karpenter.sh/termination'] },
    spec: { providerID: `aws:///${instance?.Placement?.AvailabilityZone}/${id}` },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
  return { id, name };
}

describe('kubelet stand-in: pod deletion', () => {
  it('confirms a deletion after its stop delay, and never later than the grace', () => {
    store().seed('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    seedPod('slow', 'n1');
    seedPod('quick', 'n1', { spec: { terminationGracePeriodSeconds: 1 } });
    store().delete('pods', 'slow');
    store().delete('pods', 'quick');
    run(1000);
    expect(pod('quick')).toBeUndefined();
    expect(pod('slow')?.metadata.deletionTimestamp).toBeDefined();
    expect(kubelet.nextDue()).toBe(world.time.now() + 1000);
    run(1000);
    expect(pod('slow')).toBeUndefined();
  });
});

describe('kubelet stand-in: pod start', () => {
  it('turns a bound pod Running with a Ready condition stamped when it became Ready', () => {
    // pkg/kubelet/status/status_manager.go `updateLastTransitionTime`: the ReplicaSet controller
    // reads it (controller_utils.go `podReadyTime`) to delete the pods Ready for the least time first.
    const { name } = nodeOnInstance();
    store().seed('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { nodeName: name, containers: [{ name: 'app' }] },
      status: { phase: 'Pending' },
    });
    run(1000);
    const bound = world.time.now();
    run(3000);
    expect(pod('web')?.status).toMatchObject({
      phase: 'Running',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: new Date(bound + 3000).toISOString().replace('.000', ''),
        },
      ],
    });
  });
});

describe('node lifecycle stand-in: a node whose kubelet died', () => {
  it('turns Unknown after the node-monitor grace period, tainted unreachable, its pods not Ready', () => {
    const { id, name } = nodeOnInstance();
    seedPod('web', name);
    kubelet.killKubelet(id);
    run(49_000);
    expect(node(name)?.status.conditions[0].status).toBe('True');
    run(1000);
    expect(node(name)?.status.conditions[0]).toMatchObject({
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
    });
    expect(node(name)?.spec.taints).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      expect.objectContaining({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }),
    ]);
    expect(pod('web')?.status.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'False' }),
    ]);
  });

  it('never confirms a deletion; taint eviction deletes the other pods after 300 s, DaemonSet pods never', () => {
    const { id, name } = nodeOnInstance();
    seedPod('evicted', name);
    seedPod('web', name);
    seedPod('agent', name, {
      metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'a', controller: true }] },
    });
    kubelet.killKubelet(id);
    store().delete('pods', 'evicted');
    run(50_000 + 299_000);
    expect(pod('web')?.metadata.deletionTimestamp).toBeUndefined();
    run(1000);
    expect(pod('web')?.metadata.deletionGracePeriodSeconds).toBe(30);
    run(600_000);
    expect(pod('evicted')?.metadata.deletionTimestamp).toBeDefined();
    expect(pod('web')).toBeDefined();
    expect(pod('agent')?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('keeps the Node while its instance runs; deletes it once the instance is terminated; podgc takes its pods 40 s after it is gone', () => {
    const { id, name } = nodeOnInstance();
    seedPod('web', name);
    kubelet.killKubelet(id);
    run(120_000);
    expect(node(name)?.metadata.deletionTimestamp).toBeUndefined();
    world.fakes.ec2.terminateInstances({ InstanceIds: [id] });
    run(31_000);
    // The finalizer (podlift's) holds the Node; while it exists, the pods stay.
    expect(node(name)?.metadata.deletionTimestamp).toBeDefined();
    run(300_000);
    expect(pod('web')).toBeDefined();
    const held = store().get('nodes', name);
    store().update('nodes', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    run(39_000);
    expect(pod('web')).toBeDefined();
    run(2000);
    expect(pod('web')).toBeUndefined();
  });
});
