import { describe, expect, it } from 'vitest';
import {
  blockedBecause,
  disruptionCandidates,
  ROOM_KEPT_MS,
} from '../../../shared/core/disruption/candidates';
import { besideCommandsInFlight } from '../../../shared/core/disruption/commands-in-flight';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf } from './snapshot';

// kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go `IsDisruptable` / `IsDoNotDisruptActive`
// (a pod's "true" or Go-duration annotation) and pkg/controllers/state/statenode.go
// `ValidateNodeDisruptable` (the Node's annotation, "true" only).
const T0 = Date.UTC(2026, 0, 1);
const startTime = new Date(T0).toISOString();
const app = (extra: Partial<Pod> = {}): Pod => ({
  ...pod({ name: 'web', ownerKind: 'ReplicaSet' }),
  ...extra,
});
const node = stateNode({ name: 'n1', nodePool: 'default' });
const blocked = (pods: Pod[], now = T0, n = node) => blockedBecause(n, nodePool(), pods, [], now);

describe('blockedBecause: karpenter.sh/do-not-disrupt', () => {
  it.each([
    ['"true"', 'true', T0 + 1e9, true],
    ['a duration not over yet', '30m', T0 + 1_799_999, true],
    ['a duration that is over', '30m', T0 + 1_800_000, false],
    ['a value that is no duration', 'yes', T0, false],
  ])('on a pod: %s', (_case, value, now, isBlocked) => {
    const reason = blocked([app({ annotations: { 'karpenter.sh/do-not-disrupt': value }, startTime })], now);
    expect(reason).toBe(isBlocked ? 'pod default/web has karpenter.sh/do-not-disrupt' : undefined);
  });

  it('lets a Terminating pod with the annotation go', () => {
    const leaving = app({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, deleting: true });
    expect(blocked([leaving])).toBeUndefined();
  });

  it('on the Node: only "true" blocks', () => {
    const pinned = (value: string) => ({ ...node, annotations: { 'karpenter.sh/do-not-disrupt': value } });
    expect(blocked([app()], T0, pinned('true'))).toBe('the Node has karpenter.sh/do-not-disrupt');
    expect(blocked([app()], T0, pinned('1h'))).toBeUndefined();
  });
});

// kubernetes-sigs/karpenter pkg/controllers/disruption/types.go `NewCandidate`: only initialized,
// managed NodeClaims with their Node, neither being deleted, of a NodePool that exists.
describe('disruptionCandidates', () => {
  const initialized = {
    type: 'Initialized',
    status: 'True' as const,
    reason: 'Initialized',
    message: '',
    lastTransitionTime: new Date(T0).toISOString(),
  };
  const member = (
    name: string,
    claimMore: Partial<NodeClaim> = {},
    nodeMore = {},
  ): [StateNode, NodeClaim] => {
    const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
    const n = stateNode({ name, nodePool: 'default', lifecycle: { providerID, ready: true }, ...nodeMore });
    const base = nodeClaim({
      name: `claim-${name}`,
      labels: { 'karpenter.sh/capacity-type': 'spot' },
      annotations: { 'podlift.dev/hourly-price': '0.25' },
      status: { providerID, conditions: [initialized] },
    });
    return [n, { ...base, ...claimMore }];
  };

  it('takes initialized NodeClaims of an existing NodePool, with their price and capacity type', () => {
    const [c] = disruptionCandidates(snapshotOf([member('a')]));
    expect([c?.claim.name, c?.node.name, c?.price, c?.capacityType, c?.blocked]).toEqual([
      'claim-a',
      'a',
      0.25,
      'spot',
      undefined,
    ]);
  });

  it('reads a NodeClaim without a capacity-type label as on-demand and without a price as free', () => {
    const [n, claim] = member('a');
    const [c] = disruptionCandidates(
      snapshotOf([[n, { ...claim, labels: { 'karpenter.sh/nodepool': 'default' }, annotations: {} }]]),
    );
    expect([c?.capacityType, c?.price]).toEqual(['on-demand', 0]);
  });

  it('leaves out NodeClaims being deleted, Nodes being deleted, uninitialized claims and unknown NodePools', () => {
    const [n, claim] = member('a');
    const cases: [StateNode, NodeClaim][] = [
      [n, { ...claim, deletionTimestamp: new Date(T0).toISOString() }],
      [{ ...n, deleting: true }, claim],
      [n, { ...claim, status: { ...claim.status, conditions: [] } }],
      [n, { ...claim, labels: { ...claim.labels, 'karpenter.sh/nodepool': 'gone' } }],
    ];
    for (const c of cases) expect(disruptionCandidates(snapshotOf([c]))).toEqual([]);
    expect(disruptionCandidates(snapshotOf([[n, claim]]))).toHaveLength(1);
  });

  // queue.go `StartCommand` and the provisioner nominate a command's replacements for its
  // candidates' pods; statenode.go `ValidateNodeDisruptable`: "node is nominated for a pending pod".
  it('leaves out the replacements of a command until its candidates’ pods have moved', () => {
    const command = JSON.stringify({ id: 'cmd-1' });
    const [cn, cc] = member('old', { annotations: { 'podlift.dev/disruption-command': command } });
    const [rn, rc] = member('new', { annotations: { 'podlift.dev/replaces': 'cmd-1' } });
    const [on, oc] = member('other', { annotations: { 'podlift.dev/replaces': 'cmd-2' } });
    const names = (pairs: [StateNode, NodeClaim][]) =>
      disruptionCandidates(snapshotOf(pairs)).map((c) => c.claim.name);
    const deleting = { ...cc, deletionTimestamp: new Date(T0).toISOString() };
    const withPod = { ...cn, pods: [app({ nodeName: 'old' })] };
    // Waiting (not deleted yet): the replacement is kept; another command's, which is no more, is not.
    expect(
      names([
        [cn, cc],
        [rn, rc],
        [on, oc],
      ]),
    ).toEqual(['claim-old', 'claim-other']);
    // Deleted, its pod not moved yet: still kept...
    expect(
      names([
        [withPod, deleting],
        [rn, rc],
      ]),
    ).toEqual([]);
    // ...on the snapshot a decision sees as well, where that pod is pending already.
    const decided = besideCommandsInFlight(
      snapshotOf([
        [withPod, deleting],
        [rn, rc],
      ]),
    );
    expect(decided.pendingPods).toHaveLength(1);
    expect(disruptionCandidates(decided)).toEqual([]);
    // Its Node gone (and its pods with it), the replacement is a candidate again.
    const gone = { ...decided, nodes: decided.nodes.filter((n) => n.name !== 'old') };
    expect(disruptionCandidates(gone).map((c) => c.claim.name)).toEqual(['claim-new']);
    // Deleted and drained, or the command cancelled (its record cleared): a candidate again.
    expect(
      names([
        [cn, deleting],
        [rn, rc],
      ]),
    ).toEqual(['claim-new']);
    expect(
      names([
        [cn, { ...cc, annotations: {} }],
        [rn, rc],
      ]),
    ).toEqual(['claim-old', 'claim-new']);
    // A record that does not parse names no command.
    const garbled = { ...cc, annotations: { 'podlift.dev/disruption-command': '{' } };
    expect(
      names([
        [cn, garbled],
        [rn, rc],
      ]),
    ).toEqual(['claim-old', 'claim-new']);
    // A deleted candidate whose Node is gone has no pods left to move; a Node without a NodeClaim is no one's.
    const [loose] = member('loose');
    const lone = snapshotOf([[rn, rc]], { nodes: [rn, loose], nodeClaims: [deleting, rc] });
    expect(disruptionCandidates(lone).map((c) => c.claim.name)).toEqual(['claim-new']);
  });

  it('leaves out a phased step’s new node while a candidate it has room for can still move, for at most 10 minutes', () => {
    const created = new Date(T0).toISOString();
    const [rn, rc] = member('room', {
      annotations: { 'podlift.dev/makes-room-for': 'claim-gone,claim-y', 'podlift.dev/replaces': 'cmd-0' },
      creationTimestamp: created,
    });
    const [yn, yc] = member('y', {}, { pods: [app({ nodeName: 'y' })] });
    const names = (pairs: [StateNode, NodeClaim][], now = T0 + 60_000) =>
      disruptionCandidates({ ...snapshotOf(pairs), now }).map((c) => c.claim.name);
    // y can move onto it: the room is kept.
    expect(
      names([
        [rn, rc],
        [yn, yc],
      ]),
    ).toEqual(['claim-y']);
    // Up to 10 minutes after the new node's NodeClaim was created, no longer.
    const pairs: [StateNode, NodeClaim][] = [
      [rn, rc],
      [yn, yc],
    ];
    expect(names(pairs, T0 + ROOM_KEPT_MS - 1)).toEqual(['claim-y']);
    expect(names(pairs, T0 + ROOM_KEPT_MS)).toEqual(['claim-room', 'claim-y']);
    // y gone, emptied, or kept by a do-not-disrupt pod: nothing more to keep the room for.
    expect(names([[rn, rc]])).toEqual(['claim-room']);
    expect(
      names([
        [rn, rc],
        [{ ...yn, pods: [] }, yc],
      ]),
    ).toEqual(['claim-room', 'claim-y']);
    const pinned = app({ nodeName: 'y', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    expect(
      names([
        [rn, rc],
        [{ ...yn, pods: [pinned] }, yc],
      ]),
    ).toEqual(['claim-room', 'claim-y']);
    // A NodeClaim without a creation time keeps nothing.
    expect(
      names([
        [rn, { ...rc, creationTimestamp: undefined }],
        [yn, yc],
      ]),
    ).toEqual(['claim-room', 'claim-y']);
  });
});

describe('blockedBecause: PodDisruptionBudgets', () => {
  const budget = (more = {}) => ({
    namespace: 'default',
    name: 'web',
    disruptionsAllowed: 0,
    selector: { matchLabels: { app: 'web' } },
    ...more,
  });
  const web = app({ labels: { app: 'web' } });
  const withBudgets = (budgets: ReturnType<typeof budget>[]) =>
    blockedBecause(node, nodePool(), [web], budgets as never, T0);

  it('blocks a node whose pod a budget allows no eviction of, naming both', () => {
    expect(withBudgets([budget()])).toBe(
      'PodDisruptionBudget default/web allows no eviction of pod default/web',
    );
  });

  it.each([
    ['another namespace', { namespace: 'other' }],
    ['disruptions still allowed', { disruptionsAllowed: 1 }],
    ['a selector the pod does not match', { selector: { matchLabels: { app: 'api' } } }],
  ])('does not block for a budget of %s', (_case, more) => {
    expect(withBudgets([budget(more)])).toBeUndefined();
  });
});
