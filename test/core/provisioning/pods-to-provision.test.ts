import { describe, expect, it } from 'vitest';
import { DISRUPTED_TAINT } from '../../../shared/core/model/labels';
import { podsToProvision } from '../../../shared/core/provisioning/pods-to-provision';
import { pod, stateNode } from '../../../sim/world/builders';

// kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go `Schedule`: the pods of
// deleting nodes (`nodes.Deleting().CurrentlyReschedulablePods`) are scheduled with the pending
// ones, so their capacity is launched before the drain evicts them.
describe('podsToProvision', () => {
  const web = (name: string, nodeName: string) =>
    pod({ name, cpu: '100m', nodeName, ownerKind: 'ReplicaSet' });

  it('adds the pods of deleting and karpenter.sh/disrupted nodes to the pending ones, unbound', () => {
    const pending = pod({ name: 'pending', cpu: '100m' });
    const deleting = stateNode({
      name: 'deleting',
      pods: [web('a', 'deleting')],
      lifecycle: { deleting: true },
    });
    const tainted = stateNode({
      name: 'tainted',
      taints: [{ ...DISRUPTED_TAINT }],
      pods: [web('b', 'tainted')],
    });
    const staying = stateNode({ name: 'staying', pods: [web('c', 'staying')] });

    const pods = podsToProvision([pending], [deleting, tainted, staying]);

    expect(pods.map((p) => p.name)).toEqual(['pending', 'a', 'b']);
    expect(pods.map((p) => p.nodeName)).toEqual([undefined, undefined, undefined]);
  });

  it('leaves out DaemonSet, mirror and already deleting pods of a node going away', () => {
    const daemon = pod({ name: 'daemon', nodeName: 'n', ownerKind: 'DaemonSet' });
    const mirror = pod({ name: 'mirror', nodeName: 'n', ownerKind: 'Node' });
    const leaving = { ...web('leaving', 'n'), deleting: true };
    const node = stateNode({
      name: 'n',
      pods: [daemon, mirror, leaving, web('kept', 'n')],
      lifecycle: { deleting: true },
    });

    expect(podsToProvision([], [node]).map((p) => p.name)).toEqual(['kept']);
  });

  it('does not take a NoExecute taint of the same key for the disrupted taint', () => {
    const node = stateNode({
      name: 'n',
      taints: [{ key: DISRUPTED_TAINT.key, effect: 'NoExecute' }],
      pods: [web('a', 'n')],
    });
    expect(podsToProvision([], [node])).toEqual([]);
  });
});
