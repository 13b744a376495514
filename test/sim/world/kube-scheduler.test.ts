import { describe, expect, it } from 'vitest';
import type { TaintManifest, TolerationManifest } from '../../../shared/core/manifests/kube-objects';
import { KubeStore } from '../../../sim/fakes/kube/store';
import { VirtualTime } from '../../../sim/virtual-time';
import { nodeManifest, podManifest } from '../../../sim/world/builders';
import { KubeSchedulerStandIn } from '../../../sim/world/kube-scheduler';

// biome-ignore lint/suspicious/noExplicitAny: the test reads untyped JSON
type Json = Record<string, any>;

function world() {
  const store = new KubeStore();
  const node = nodeManifest({ name: 'n1', ready: true, allocatable: { cpu: '2', memory: '4Gi', pods: '3' } });
  store.seed('nodes', { ...node, metadata: { ...node.metadata, labels: { zone: 'a' } } });
  return { store, scheduler: new KubeSchedulerStandIn(store, new VirtualTime()) };
}
const pod = (store: KubeStore, name: string, extra: Json = {}) =>
  store.seed('pods', { ...podManifest({ name, requests: { cpu: '1' } }), ...extra });
const condition = (store: KubeStore, name: string) =>
  ((store.get('pods', name).status as Json).conditions as Json[]).find((c) => c.type === 'PodScheduled');

/** n1, and n2 with twice its room (LeastAllocated prefers it), carrying `taints`. */
function twoNodes(taints: readonly TaintManifest[]) {
  const store = new KubeStore();
  store.seed(
    'nodes',
    nodeManifest({ name: 'n1', ready: true, allocatable: { cpu: '2', memory: '4Gi', pods: '10' } }),
  );
  store.seed(
    'nodes',
    nodeManifest({ name: 'n2', ready: true, taints, allocatable: { cpu: '4', memory: '8Gi', pods: '10' } }),
  );
  return { store, scheduler: new KubeSchedulerStandIn(store, new VirtualTime()) };
}
const tolerating = (store: KubeStore, name: string, tolerations: TolerationManifest[], cpu = '1') =>
  store.seed('pods', podManifest({ name, requests: { cpu }, tolerations }));
const nodeOf = (store: KubeStore, name: string) => (store.get('pods', name).spec as Json).nodeName;
const PREFER_NO_SCHEDULE = { key: 'drain', value: 'soon', effect: 'PreferNoSchedule' };

describe('the kube-scheduler stand-in', () => {
  it('binds what fits and marks the rest Unschedulable with kube-scheduler’s reasons', () => {
    const { store, scheduler } = world();
    for (const name of ['a', 'b', 'c']) pod(store, name);
    expect([...scheduler.schedule().keys()]).toEqual(['default/a', 'default/b']);
    expect((store.get('pods', 'a').spec as Json).nodeName).toBe('n1');
    expect(condition(store, 'c')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: '0/1 nodes are available: 1 Insufficient cpu.',
    });
  });

  it('honours nodeSelector, required node affinity and taints', () => {
    const { store, scheduler } = world();
    const node = store.get('nodes', 'n1');
    store.update('nodes', {
      ...node,
      spec: { ...(node.spec as Json), taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] },
    });
    pod(store, 'untolerated');
    const tolerations = [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }];
    pod(store, 'selector', {
      spec: { ...podManifest({ requests: { cpu: '1' } }).spec, tolerations, nodeSelector: { zone: 'b' } },
    });
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
        },
      },
    };
    pod(store, 'fits', { spec: { ...podManifest({ requests: { cpu: '1' } }).spec, tolerations, affinity } });
    expect([...scheduler.schedule().keys()]).toEqual(['default/fits']);
    expect(condition(store, 'untolerated')?.message).toContain('untolerated taint {gpu: yes}');
    expect(condition(store, 'selector')?.message).toContain("didn't match Pod's node affinity/selector");
  });

  it('compares numbers for node affinity Gt and Lt, and a missing label matches neither', () => {
    // The node is labelled cpus=4 (component-helpers nodeaffinity: Gt and Lt parse integers).
    const { store, scheduler } = world();
    const node = store.get('nodes', 'n1');
    store.update('nodes', { ...node, metadata: { ...node.metadata, labels: { zone: 'a', cpus: '4' } } });
    const requiring = (name: string, key: string, operator: string, value: string) =>
      pod(store, name, {
        spec: {
          ...podManifest({ requests: { cpu: '100m' } }).spec,
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key, operator, values: [value] }] }],
              },
            },
          },
        },
      });
    requiring('gt3', 'cpus', 'Gt', '3');
    requiring('gt4', 'cpus', 'Gt', '4');
    requiring('lt10', 'cpus', 'Lt', '10');
    requiring('lt4', 'cpus', 'Lt', '4');
    requiring('absent', 'gpus', 'Lt', '10');
    expect([...scheduler.schedule().keys()].sort()).toEqual(['default/gt3', 'default/lt10']);
  });

  it('does not rewrite the condition of a pod that stays unschedulable', () => {
    const { store, scheduler } = world();
    pod(store, 'big', { spec: podManifest({ requests: { cpu: '8' } }).spec });
    scheduler.schedule();
    const version = store.get('pods', 'big').metadata.resourceVersion;
    scheduler.schedule();
    expect(store.get('pods', 'big').metadata.resourceVersion).toBe(version);
  });

  it('binds and marks nothing while down; pods it marked Unschedulable keep the condition', () => {
    const store = new KubeStore();
    const time = new VirtualTime();
    const scheduler = new KubeSchedulerStandIn(store, time);
    pod(store, 'early');
    scheduler.schedule();
    expect(condition(store, 'early')).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    scheduler.down(time.now() + 60_000);
    expect(scheduler.isDown).toBe(true);
    store.seed('pods', podManifest({ name: 'later', requests: { cpu: '1' } }));
    store.seed(
      'nodes',
      nodeManifest({ name: 'n1', ready: true, allocatable: { cpu: '4', memory: '8Gi', pods: '10' } }),
    );
    expect(scheduler.schedule().size).toBe(0);
    expect(condition(store, 'early')).toMatchObject({ reason: 'Unschedulable' });
    expect((store.get('pods', 'later').status as Json | undefined)?.conditions ?? []).toEqual([]);
    time.advance(60_000);
    expect(scheduler.isDown).toBe(false);
    expect([...scheduler.schedule().keys()]).toEqual(['default/early', 'default/later']);
  });

  it('avoids a node with an untolerated PreferNoSchedule taint when another fits', () => {
    const { store, scheduler } = twoNodes([PREFER_NO_SCHEDULE]);
    tolerating(store, 'p', []);
    scheduler.schedule();
    expect(nodeOf(store, 'p')).toBe('n1');
  });

  it('takes the emptier node when the pod tolerates its PreferNoSchedule taint', () => {
    const tolerations: TolerationManifest[] = [
      { key: 'drain', operator: 'Exists' },
      { key: 'drain', operator: 'Equal', value: 'soon', effect: 'PreferNoSchedule' },
    ];
    for (const toleration of tolerations) {
      const { store, scheduler } = twoNodes([PREFER_NO_SCHEDULE]);
      tolerating(store, 'p', [toleration]);
      scheduler.schedule();
      expect(nodeOf(store, 'p'), JSON.stringify(toleration)).toBe('n2');
    }
  });

  it('binds to a PreferNoSchedule-tainted node when it is the only one that fits', () => {
    const { store, scheduler } = twoNodes([PREFER_NO_SCHEDULE]);
    tolerating(store, 'big', [], '3');
    expect([...scheduler.schedule()]).toEqual([['default/big', 'n2']]);
  });

  it('prefers fewer untolerated PreferNoSchedule taints to more room', () => {
    const { store, scheduler } = twoNodes([PREFER_NO_SCHEDULE, { key: 'old', effect: 'PreferNoSchedule' }]);
    const n1 = store.get('nodes', 'n1');
    store.update('nodes', { ...n1, spec: { taints: [{ key: 'old', effect: 'PreferNoSchedule' }] } });
    tolerating(store, 'p', []);
    scheduler.schedule();
    expect(nodeOf(store, 'p')).toBe('n1');
  });

  it('keeps NoSchedule a filter that does not enter the score', () => {
    const { store, scheduler } = twoNodes([{ key: 'drain', value: 'soon', effect: 'NoSchedule' }]);
    tolerating(store, 'untolerated', []);
    tolerating(store, 'tolerated', [{ key: 'drain', operator: 'Exists', effect: 'NoSchedule' }]);
    tolerating(store, 'big', [], '3');
    scheduler.schedule();
    expect(nodeOf(store, 'untolerated')).toBe('n1');
    expect(nodeOf(store, 'tolerated')).toBe('n2');
    expect(condition(store, 'big')?.message).toBe(
      '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {drain: soon}.',
    );
  });

  it('ranks untainted nodes by the exact LeastAllocated fraction, not its integer score', () => {
    // n1 ends half free (score 50); n2 ends 99.9% cpu and 0.6% memory free (mean 0.502, score 49).
    const store = new KubeStore();
    const allocatable = (cpu: string, memory: string) => ({ cpu, memory, pods: '10' });
    store.seed('nodes', nodeManifest({ name: 'n1', ready: true, allocatable: allocatable('2', '2Gi') }));
    store.seed(
      'nodes',
      nodeManifest({ name: 'n2', ready: true, allocatable: allocatable('1000', '1030Mi') }),
    );
    store.seed('pods', podManifest({ name: 'p', requests: { cpu: '1', memory: '1Gi' } }));
    new KubeSchedulerStandIn(store, new VirtualTime()).schedule();
    expect(nodeOf(store, 'p')).toBe('n2');
  });
});
