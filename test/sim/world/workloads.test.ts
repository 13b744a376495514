import { describe, expect, it } from 'vitest';
import { formatKubeTime, type KubeObject } from '../../../sim/fakes/kube';
import { KubeStore } from '../../../sim/fakes/kube/store';
import { VirtualTime } from '../../../sim/virtual-time';
import { POD_DELETION_COST } from '../../../sim/world/replicaset-ranking';
import { seededUuids } from '../../../sim/world/seeded-random';
import { WorkloadController } from '../../../sim/world/workloads';

// A Deployment scaled down by the workload stand-in deletes the pods kubernetes'
// ReplicaSet controller would (pkg/controller/replicaset/replica_set.go `manageReplicas` →
// `getPodsToDelete`, ranked by pkg/controller/controller_utils.go `ActivePodsWithRanks.Less`):
// the doubled-up ones first, so scale-downs spread over the nodes instead of emptying the newest.

// biome-ignore lint/suspicious/noExplicitAny: the test reads untyped JSON
type Json = Record<string, any>;

const MINUTE = 60_000;

function world() {
  const time = new VirtualTime();
  const store = new KubeStore({ clock: time, newUid: seededUuids(7) });
  const workloads = new WorkloadController(store, time);
  workloads.apply({ kind: 'Deployment', name: 'web', namespace: 'default', replicas: 0, template: {} });
  /** Scales up by `count` pods, bound to `node` and Ready now, as a new node's batch would be. */
  const grow = (count: number, node: string) => {
    workloads.scale('default', 'web', workloads.podsOf('default', 'web').length + count);
    workloads.step();
    for (const pod of workloads.podsOf('default', 'web')) {
      if ((pod.spec as Json).nodeName) continue;
      const bound = store.update('pods', { ...pod, spec: { ...(pod.spec as Json), nodeName: node } });
      const stamp = formatKubeTime(new Date(time.now()));
      store.updateStatus('pods', {
        ...bound,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: stamp }],
        },
      });
    }
    time.advance(10 * MINUTE);
  };
  /** Scales to `replicas` and lets the controller act once. */
  const scaleTo = (replicas: number) => {
    workloads.scale('default', 'web', replicas);
    return workloads.step();
  };
  const podsPerNode = () => {
    const counts: Record<string, number> = {};
    for (const pod of workloads.podsOf('default', 'web')) {
      const node = (pod.spec as Json).nodeName as string;
      counts[node] = (counts[node] ?? 0) + 1;
    }
    return counts;
  };
  const setCost = (node: string, cost: string) => {
    for (const pod of workloads.podsOf('default', 'web').filter((p) => (p.spec as Json).nodeName === node))
      store.update('pods', {
        ...pod,
        metadata: { ...pod.metadata, annotations: { [POD_DELETION_COST]: cost } },
      } satisfies KubeObject);
  };
  return { time, store, workloads, grow, scaleTo, podsPerNode, setCost };
}

describe('the workload stand-in scaling a Deployment down', () => {
  it('takes the pods of the node holding the most, not the newest pods', () => {
    const w = world();
    w.grow(5, 'a');
    w.grow(2, 'b');
    w.grow(2, 'c');
    expect(w.scaleTo(7)).toEqual([{ workload: 'Deployment/web', created: 0, deleted: 2 }]);
    expect(w.podsPerNode()).toEqual({ a: 3, b: 2, c: 2 });
  });

  it('spreads a replica-at-a-time scale-down of 3 nodes × 3 pods over the nodes', () => {
    const w = world();
    w.grow(3, 'a');
    w.grow(3, 'b');
    w.grow(3, 'c');
    for (const replicas of [8, 7, 6]) {
      w.scaleTo(replicas);
      w.time.advance(MINUTE);
    }
    expect(w.podsPerNode()).toEqual({ a: 2, b: 2, c: 2 });
  });

  it('ranks once per sync: 3 equally doubled-up nodes scaled by 3 at once lose the pods Ready the least time', () => {
    // Every pod ranks 3, so ready time decides (the 10-minute-old batch on c is in a lower
    // log2 bucket than b's 20 and a's 30 minutes): all of node c goes, as the real controller does.
    const w = world();
    w.grow(3, 'a');
    w.grow(3, 'b');
    w.grow(3, 'c');
    w.scaleTo(6);
    expect(w.podsPerNode()).toEqual({ a: 3, b: 3 });
  });

  it('deletes the pods carrying the lowest pod-deletion-cost first', () => {
    const w = world();
    w.grow(3, 'a');
    w.grow(3, 'b');
    w.grow(3, 'c');
    w.setCost('a', '-3');
    w.scaleTo(6);
    expect(w.podsPerNode()).toEqual({ b: 3, c: 3 });
  });

  it('lets pod-deletion-cost override the doubled-up node', () => {
    const w = world();
    w.grow(5, 'a');
    w.grow(2, 'b');
    w.grow(2, 'c');
    w.setCost('b', '-1');
    w.scaleTo(7);
    expect(w.podsPerNode()).toEqual({ a: 5, c: 2 });
  });

  it('deletes at most burstReplicas (500) pods in one sync, the rest on the next', () => {
    const w = world();
    w.workloads.scale('default', 'web', 502);
    w.workloads.step();
    expect(w.scaleTo(0)).toEqual([{ workload: 'Deployment/web', created: 0, deleted: 500 }]);
    expect(w.workloads.step()).toEqual([{ workload: 'Deployment/web', created: 0, deleted: 2 }]);
  });

  it('takes pods not yet scheduled before any running one', () => {
    const w = world();
    w.grow(2, 'a');
    w.workloads.scale('default', 'web', 4);
    w.workloads.step();
    w.scaleTo(2);
    expect(w.podsPerNode()).toEqual({ a: 2 });
  });
});
