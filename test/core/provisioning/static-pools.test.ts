import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import { staticPoolExcess } from '../../../shared/core/provisioning/static-pools';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';

const T0 = Date.UTC(2026, 0, 1);
const fixed = (replicas: number): NodePool => ({ ...nodePool({ name: 'fixed' }), replicas });

/** A NodeClaim of pool `fixed`: launched (with a joined Node running `pods`) unless `pods` is undefined. */
function member(
  name: string,
  pods: readonly Pod[] | undefined,
  extra: Partial<NodeClaim> = {},
): { claim: NodeClaim; node?: StateNode } {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const claim = nodeClaim({
    name,
    labels: { 'karpenter.sh/nodepool': 'fixed' },
    creationTimestamp: new Date(T0).toISOString(),
    ...(pods === undefined ? {} : { status: { providerID } }),
  });
  const merged = { ...claim, ...extra };
  if (pods === undefined) return { claim: merged };
  const node = stateNode({
    name: `node-${name}`,
    nodePool: 'fixed',
    pods: pods.map((p) => ({ ...p, nodeName: `node-${name}` })),
    lifecycle: { providerID, ready: true },
  });
  return { claim: merged, node };
}

const app = (name: string, extra: Partial<Pod> = {}) => ({
  ...pod({ name, cpu: '100m', ownerKind: 'ReplicaSet' }),
  ...extra,
});

function excess(replicas: number, members: readonly { claim: NodeClaim; node?: StateNode }[]) {
  return staticPoolExcess(
    [fixed(replicas)],
    members.map((m) => m.claim),
    members.flatMap((m) => (m.node ? [m.node] : [])),
    T0 + 3_600_000,
  ).map((s) => s.nodeClaim);
}

describe('staticPoolExcess', () => {
  it("picks in Karpenter's order: not launched, empty, cheapest to disrupt, do-not-disrupt last", () => {
    const members = [
      member('a-guarded', [app('g', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]),
      member('b-important', [app('i', { priority: 1_000_000_000 })]),
      member('c-plain', [app('p')]),
      member('d-daemons', [app('ds', { ownerKind: 'DaemonSet' })]),
      member('e-pending', undefined),
    ];
    expect(excess(4, members)).toStrictEqual(['e-pending']);
    expect(excess(3, members)).toStrictEqual(['e-pending', 'd-daemons']);
    expect(excess(2, members)).toStrictEqual(['e-pending', 'd-daemons', 'c-plain']);
    expect(excess(0, members)).toStrictEqual([
      'e-pending',
      'd-daemons',
      'c-plain',
      'b-important',
      'a-guarded',
    ]);
  });

  it('ranks a pod whose do-not-disrupt duration is over like any other, and one still protected last', () => {
    // kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go IsDoNotDisruptActive: "50m" from a
    // start at T0 is over at T0 + 1h (excess() decides at T0 + 1h); "2h" is not.
    const startTime = new Date(T0).toISOString();
    const members = [
      member('a-over', [app('o', { annotations: { 'karpenter.sh/do-not-disrupt': '50m' }, startTime })]),
      member('b-guarded', [app('g', { annotations: { 'karpenter.sh/do-not-disrupt': '2h' }, startTime })]),
      member('c-plain', [app('p', { priority: 1_000_000_000 })]),
    ];
    expect(excess(2, members)).toStrictEqual(['a-over']);
    expect(excess(1, members)).toStrictEqual(['a-over', 'c-plain']);
  });

  it('counts neither deleting NodeClaims nor candidates of a disruption command', () => {
    const members = [
      member('a', [app('a1')]),
      member('b', [app('b1')], { deletionTimestamp: new Date(T0).toISOString() }),
      member('c', [app('c1')], { annotations: { 'podlift.dev/disruption-command': '{}' } }),
    ];
    expect(excess(1, members)).toStrictEqual([]);
    expect(excess(0, members)).toStrictEqual(['a']);
  });

  it('leaves dynamic NodePools alone', () => {
    const claim = member('a', [])!.claim;
    expect(staticPoolExcess([nodePool({ name: 'fixed' })], [claim], [], T0)).toStrictEqual([]);
  });
});
