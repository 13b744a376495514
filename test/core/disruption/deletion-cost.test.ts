import { describe, expect, it } from 'vitest';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { commandStillValid, decideDisruption } from '../../../shared/core/disruption/decide';
import {
  type DeletionCostChange,
  deletionCostChanges,
  leaveEmptyNodesEmpty,
  MAX_STEERED_NODES,
  steeredCost,
  waitsForEmptiness,
} from '../../../shared/core/disruption/deletion-cost';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { condition, m5xlargeMember, member, snapshotOf, T0 } from './snapshot';

// The design of kubernetes-sigs/karpenter PR #2894 / RFC #2935 (designs/pod-deletion-cost-controller.md):
// nodes of a disruption first, then drifted, then by pod count; do-not-disrupt nodes unsteered;
// at most 50 nodes; a user's cost never touched. The ReplicaSet controller deletes lower costs
// first (kubernetes pkg/controller/controller_utils.go `ActivePodsWithRanks.Less`, key 4).
const COST = 'controller.kubernetes.io/pod-deletion-cost';
const MARK = 'podlift.dev/managed-deletion-cost';

const web = (name: string, more: Partial<Pod> = {}): Pod => ({
  ...pod({ name, ownerKind: 'ReplicaSet', cpu: '100m' }),
  ...more,
});
const pods = (node: string, n: number) => Array.from({ length: n }, (_, i) => web(`${node}-${i}`));
const set = (cost: number) => ({ [COST]: String(cost), [MARK]: String(cost) });
const cleared = { [COST]: null, [MARK]: null };

/** The writes as `pod → annotations`, in order. */
const writes = (changes: readonly DeletionCostChange[]) =>
  changes.map((c) => [`${c.nodeName}/${c.name}`, c.annotations] as const);

const steer = (members: [StateNode, NodeClaim][], enabled = true, more = {}) =>
  deletionCostChanges(snapshotOf(members, more), enabled);

const withClaim = (
  [node, claim]: [StateNode, NodeClaim],
  more: Partial<NodeClaim>,
): [StateNode, NodeClaim] => [node, { ...claim, ...more }];
const withNode = (
  [node, claim]: [StateNode, NodeClaim],
  more: Partial<StateNode>,
): [StateNode, NodeClaim] => [{ ...node, ...more }, claim];
const drifted = (m: [StateNode, NodeClaim]) =>
  withClaim(m, {
    status: { ...m[1].status, conditions: [...(m[1].status.conditions ?? []), condition('Drifted')] },
  });

describe('deletionCostChanges: which nodes scale-downs empty first', () => {
  it('costs each node by the dollars an hour its emptying saves per ReplicaSet pod, the first-ranked written first', () => {
    const changes = steer([
      m5xlargeMember('a', pods('a', 3)),
      m5xlargeMember('b', pods('b', 1)),
      m5xlargeMember('c', pods('c', 2)),
    ]);
    expect(writes(changes)).toEqual([
      ['b/b-0', set(-101_920_077)],
      ['c/c-0', set(-100_960_458)],
      ['c/c-1', set(-100_960_458)],
      ['a/a-0', set(-100_640_220)],
      ['a/a-1', set(-100_640_220)],
      ['a/a-2', set(-100_640_220)],
    ]);
  });

  it('puts the pricier of nodes with as many pods first, then goes by name', () => {
    const changes = steer([
      m5xlargeMember('a', pods('a', 1), { price: 0.1 }),
      m5xlargeMember('b', pods('b', 1), { price: 0.3 }),
      m5xlargeMember('d', pods('d', 1), { price: 0.2 }),
      m5xlargeMember('c', pods('c', 1), { price: 0.2 }),
    ]);
    expect(writes(changes).map(([p, a]) => [p, a[COST]])).toEqual([
      ['b/b-0', '-103000077'],
      ['c/c-0', '-102000458'],
      ['d/d-0', '-102000363'],
      ['a/a-0', '-101000220'],
    ]);
  });

  it('empties first the node that saves the most per pod a scale-down takes, not the one with fewest pods', () => {
    const changes = steer([
      m5xlargeMember('small', pods('small', 1), { price: 0.05 }),
      m5xlargeMember('big', pods('big', 2), { price: 0.384 }),
      m5xlargeMember('mid', pods('mid', 4), { price: 0.4 }),
    ]);
    expect(writes(changes).map(([p, a]) => [p.split('/')[0], a[COST]])).toEqual([
      ['big', '-101920865'],
      ['big', '-101920865'],
      ['mid', '-101000101'],
      ['mid', '-101000101'],
      ['mid', '-101000101'],
      ['mid', '-101000101'],
      ['small', '-100500652'],
    ]);
  });

  it('puts the node with fewer pods first when they save as much per pod', () => {
    const changes = steer([
      m5xlargeMember('two', pods('two', 2), { price: 0.2 }),
      m5xlargeMember('one', pods('one', 1), { price: 0.1 }),
    ]);
    expect(writes(changes).map(([p]) => p)).toEqual(['one/one-0', 'two/two-0', 'two/two-1']);
  });

  it('goes by name among nodes alike in pods and price', () => {
    const changes = steer([
      m5xlargeMember('d', pods('d', 1)),
      m5xlargeMember('c', pods('c', 1)),
      m5xlargeMember('e', pods('e', 1)),
    ]);
    expect(writes(changes).map(([p]) => p)).toEqual(['c/c-0', 'd/d-0', 'e/e-0']);
  });

  it('counts only the ReplicaSet pods a scale-down could take', () => {
    const daemons = [0, 1, 2].map((i) => pod({ name: `ds-${i}`, ownerKind: 'DaemonSet' }));
    const changes = steer([
      m5xlargeMember('b', pods('b', 2)),
      m5xlargeMember('a', [...pods('a', 1), ...daemons]),
    ]);
    expect(writes(changes).map(([p, a]) => [p, a[COST]])).toEqual([
      ['a/a-0', '-101920220'],
      ['b/b-0', '-100960077'],
      ['b/b-1', '-100960077'],
    ]);
  });

  it('puts nodes being disrupted or deleted first, then drifted ones, whatever their pods', () => {
    const changes = steer([
      m5xlargeMember('plain', pods('plain', 1)),
      drifted(m5xlargeMember('drifted', pods('drifted', 2))),
      withClaim(m5xlargeMember('commanded', pods('commanded', 4)), {
        annotations: { 'podlift.dev/disruption-command': '{"id":"x"}', 'podlift.dev/hourly-price': '0.192' },
      }),
      withNode(m5xlargeMember('deleting', pods('deleting', 3)), { deleting: true }),
      withClaim(m5xlargeMember('claimgoing', pods('claimgoing', 5)), {
        deletionTimestamp: new Date(T0).toISOString(),
      }),
    ]);
    const firstOf = (node: string) => writes(changes).find(([p]) => p.startsWith(`${node}/`))?.[1][COST];
    expect(['deleting', 'commanded', 'claimgoing', 'drifted', 'plain'].map(firstOf)).toEqual([
      '-300640605',
      '-300480099',
      '-300384003',
      '-200960157',
      '-101920647',
    ]);
  });

  it('steers no node whose Node or a pod says do-not-disrupt, of a static NodePool, uninitialized or not podlift’s', () => {
    const pinnedPod = web('pinned-0', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const [bare] = m5xlargeMember('bare', pods('bare', 1));
    const changes = steer(
      [
        withNode(m5xlargeMember('pinned', pods('pinned', 1)), {
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        }),
        m5xlargeMember('guarded', [...pods('guarded', 1), pinnedPod]),
        withClaim(m5xlargeMember('static', pods('static', 1)), {
          labels: { 'karpenter.sh/nodepool': 'fixed' },
        }),
        m5xlargeMember('starting', pods('starting', 1), { starting: true }),
        m5xlargeMember('ok', pods('ok', 2)),
        [bare, m5xlargeMember('other', [])[1]],
      ],
      true,
      { nodePools: [nodePool(), nodePool({ name: 'fixed', replicas: 2 })] },
    );
    expect(writes(changes)).toEqual([
      ['ok/ok-0', set(-100_960_159)],
      ['ok/ok-1', set(-100_960_159)],
    ]);
  });

  it('lets a do-not-disrupt duration that is over steer again', () => {
    const over = web('x-0', {
      annotations: { 'karpenter.sh/do-not-disrupt': '1m' },
      startTime: new Date(T0 - 60_000).toISOString(),
    });
    expect(writes(steer([m5xlargeMember('x', [over])]))).toEqual([['x/x-0', set(-101_920_695)]]);
  });
});

describe('steeredCost', () => {
  // The hashes (FNV-1a of the name, mod 1000) worked out by hand: "a" 220, "b" 77.
  it('is the group’s base less the dollars per pod in $0.0001/h, then a hash of the name', () => {
    expect(steeredCost(2, 0.192, 3, 'a')).toBe(-100_640_220);
    expect(steeredCost(1, 0.192, 3, 'a')).toBe(-200_640_220);
    expect(steeredCost(0, 0.192, 3, 'a')).toBe(-300_640_220);
    expect(steeredCost(2, 0.192, 3, 'b')).toBe(-100_640_077);
    expect(steeredCost(2, 0, 1, 'a')).toBe(-100_000_220);
  });

  it('keeps the dollars within the group, and the groups apart', () => {
    expect(steeredCost(2, 9.99985, 1, 'a')).toBe(-199_999_220);
    expect(steeredCost(2, 50, 1, 'a')).toBe(-199_999_220);
    expect(steeredCost(1, 0, 1, 'a')).toBeLessThan(steeredCost(2, 50, 1, 'zz'));
    expect(steeredCost(0, 50, 1, 'a')).toBeGreaterThanOrEqual(-(2 ** 31));
  });
});

describe('deletionCostChanges: which pods, and what is left alone', () => {
  it('writes only live ReplicaSet pods; a node with none takes no rank', () => {
    const others = [
      pod({ name: 'o-ds', ownerKind: 'DaemonSet' }),
      pod({ name: 'o-job', ownerKind: 'Job' }),
      pod({ name: 'o-sts', ownerKind: 'StatefulSet' }),
      web('o-going', { deleting: true }),
    ];
    const changes = steer([m5xlargeMember('o', others), m5xlargeMember('p', pods('p', 2))]);
    expect(writes(changes)).toEqual([
      ['p/p-0', set(-100_960_743)],
      ['p/p-1', set(-100_960_743)],
    ]);
  });

  it('never touches a cost a user set, and lets a user take over one podlift wrote', () => {
    const user = web('u-0', { annotations: { [COST]: '100' } });
    const takenOver = web('u-1', { annotations: { [COST]: '7', [MARK]: '-100640648' } });
    const changes = steer([m5xlargeMember('u', [user, takenOver, web('u-2')])]);
    expect(writes(changes)).toEqual([
      ['u/u-2', set(-100_640_648)],
      ['u/u-1', { [MARK]: null }],
    ]);
  });

  it('conditions each write on the resourceVersion the pod was read at', () => {
    const read = web('r-0', { resourceVersion: '4711' });
    const changes = steer([m5xlargeMember('r', [read, web('r-1')])]);
    expect(changes.map((c) => [c.name, c.resourceVersion])).toEqual([
      ['r-0', '4711'],
      ['r-1', undefined],
    ]);
    expect(changes[1]).not.toHaveProperty('resourceVersion');
  });

  it('writes nothing in a cluster already steered', () => {
    const steered = (name: string, cost: number) => web(name, { annotations: set(cost) });
    const changes = steer([
      m5xlargeMember('a', [steered('a-0', -101_920_220)]),
      m5xlargeMember('b', [steered('b-0', -100_960_077), steered('b-1', -100_960_077)]),
    ]);
    expect(changes).toEqual([]);
  });

  it('rewrites a steered pod whose node’s cost changed, and clears one whose node left the ranking', () => {
    const changes = steer([
      m5xlargeMember('a', [
        web('a-0', { annotations: set(-101_920_220) }),
        web('a-1', { annotations: set(-101_920_220) }),
      ]),
      m5xlargeMember('b', pods('b', 1)),
      withNode(m5xlargeMember('c', [web('c-0', { annotations: set(-101_920_458) })]), {
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      }),
    ]);
    expect(writes(changes)).toEqual([
      ['b/b-0', set(-101_920_077)],
      ['a/a-0', set(-100_960_220)],
      ['a/a-1', set(-100_960_220)],
      ['c/c-0', cleared],
    ]);
  });

  it('with the gate off removes every cost podlift wrote and writes none', () => {
    const changes = steer(
      [
        m5xlargeMember('a', [
          web('a-0', { annotations: set(-101_920_220) }),
          web('a-1', { annotations: { [COST]: '3' } }),
          web('a-2'),
        ]),
      ],
      false,
    );
    expect(writes(changes)).toEqual([['a/a-0', cleared]]);
  });

  it(`steers at most ${MAX_STEERED_NODES} nodes, the rest unannotated`, () => {
    const many = Array.from({ length: MAX_STEERED_NODES + 1 }, (_, i) => {
      const name = `n${String(i).padStart(2, '0')}`;
      return m5xlargeMember(name, [
        web(`${name}-0`, i === MAX_STEERED_NODES ? { annotations: set(-101_920_684) } : {}),
      ]);
    });
    const changes = writes(steer(many));
    expect(changes).toHaveLength(MAX_STEERED_NODES + 1);
    expect(changes[0]).toEqual(['n00/n00-0', set(-101_920_321)]);
    expect(changes[MAX_STEERED_NODES - 1]).toEqual(['n49/n49-0', set(-101_920_922)]);
    expect(changes[MAX_STEERED_NODES]).toEqual(['n50/n50-0', cleared]);
  });

  it(`gives none of the ${MAX_STEERED_NODES} places to a node without ReplicaSet pods`, () => {
    const empties = Array.from({ length: MAX_STEERED_NODES }, (_, i) =>
      m5xlargeMember(`e${String(i).padStart(2, '0')}`, [pod({ name: `ds-${i}`, ownerKind: 'DaemonSet' })]),
    );
    const changes = writes(steer([...empties, m5xlargeMember('z', pods('z', 1))]));
    expect(changes).toEqual([['z/z-0', set(-101_920_933)]]);
  });
});

// A node a scale-down just emptied is not Consolidatable until consolidateAfter has passed since
// its last pod event; Karpenter's consolidation may meanwhile move another node's pods onto it.
describe('leaveEmptyNodesEmpty: consolidation does not refill a node a scale-down emptied', () => {
  const notYetConsolidatable = (m: [StateNode, NodeClaim]): [StateNode, NodeClaim] =>
    withClaim(m, {
      status: {
        ...m[1].status,
        conditions: (m[1].status.conditions ?? []).filter((c) => c.type !== 'Consolidatable'),
      },
    });
  const heavy = (name: string) => ({ ...web(name), requests: { ...web(name).requests, cpu: 1000 } });
  const busy = m5xlargeMember('busy', [heavy('busy-0'), heavy('busy-1'), heavy('busy-2')], { price: 0.05 });
  const emptied = notYetConsolidatable(m5xlargeMember('emptied', []));
  const gates = { spotToSpotConsolidation: false, podDeletionCostManagement: true };

  it('Karpenter moves the busy node onto it; with the gate nothing moves', () => {
    const s = snapshotOf([busy, emptied]);
    expect(decideDisruption(s, T0 + 60_000).command).toMatchObject({
      candidates: ['claim-busy'],
      replace: false,
    });
    expect(decideDisruption(s, T0 + 60_000, gates).command).toBeUndefined();
  });

  it('cancels at validation a command that relied on it', () => {
    const s = snapshotOf([busy, emptied]);
    const { command } = decideDisruption(s, T0 + 60_000);
    if (!command) throw new Error('expected a command');
    expect(commandStillValid(command, s)).toBe(true);
    expect(commandStillValid(command, s, gates)).toBe(false);
  });

  it('waits for emptiness rather than replacing a node it could delete onto the emptied one', () => {
    // At $0.40/h the busy node's one 3-cpu pod has a cheaper node to go to, so kept off the
    // emptied node consolidation would replace it: an eviction and a launch, then emptiness
    // deletes the emptied node too. It waits instead.
    const big = pod({ name: 'busy-0', ownerKind: 'ReplicaSet', cpu: '3', memory: '12Gi' });
    const pricey = m5xlargeMember('busy', [big], { price: 0.4 });
    const s = snapshotOf([pricey, emptied]);
    expect(decideDisruption(s, T0 + 60_000).command).toMatchObject({
      candidates: ['claim-busy'],
      replace: false,
    });
    expect(decideDisruption(s, T0 + 60_000, gates).command).toBeUndefined();
    const [busyCandidate] = disruptionCandidates(s).filter((c) => c.node.name === 'busy');
    const replace = { action: 'replace', savings: 0.01, plans: [] } as never;
    expect(waitsForEmptiness([busyCandidate], replace, s, gates)).toBe(true);
    expect(waitsForEmptiness([busyCandidate], { action: 'delete', savings: 0.192 } as never, s, gates)).toBe(
      false,
    );
    // An emptied node too small for the pod is nothing to wait for either.
    const [small, smallClaim] = member('small', [], {
      instanceType: 't3.medium',
      cpu: '1930m',
      memory: '3Gi',
      price: 0.0416,
    });
    const tooSmall = snapshotOf([pricey, notYetConsolidatable([small, smallClaim])]);
    const [inTooSmall] = disruptionCandidates(tooSmall).filter((c) => c.node.name === 'busy');
    expect(waitsForEmptiness([inTooSmall], replace, tooSmall, gates)).toBe(false);
    // With no emptied node there is nothing to wait for: the replacement goes ahead.
    const alone = snapshotOf([pricey]);
    expect(decideDisruption(alone, T0 + 60_000, gates).command).toMatchObject({ replace: true });
  });

  it('keeps a node that stays as room: its Node says do-not-disrupt, or its NodePool never consolidates', () => {
    const pinned = withNode(emptied, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    expect(leaveEmptyNodesEmpty(snapshotOf([busy, pinned])).nodes.map((n) => n.unschedulable)).toEqual([
      undefined,
      undefined,
    ]);
    const never = nodePool({ name: 'keep', consolidateAfter: 'Never' });
    const kept = withClaim(emptied, { labels: { ...emptied[1].labels, 'karpenter.sh/nodepool': 'keep' } });
    const s = snapshotOf([busy, kept], { nodePools: [nodePool(), never] });
    expect(leaveEmptyNodesEmpty(s)).toBe(s);
    expect(leaveEmptyNodesEmpty(snapshotOf([busy, emptied])).nodes.map((n) => n.unschedulable)).toEqual([
      undefined,
      true,
    ]);
  });
});
