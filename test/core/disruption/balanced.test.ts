import { describe, expect, it } from 'vitest';
import {
  balancedApproves,
  canPassBalanced,
  everyPoolApproves,
  type NodePoolTotals,
  nodePoolTotals,
  scoreMove,
} from '../../../shared/core/disruption/balanced';
import { type Candidate, disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import { multiNodeConsolidation } from '../../../shared/core/disruption/methods';
import { evictionCost } from '../../../shared/core/model/eviction-cost';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, pods, stateNode } from '../../../sim/world/builders';
import { m5xlargeMember, snapshotOf, T0 } from './snapshot';

/** A registered, initialized on-demand m5.xlarge ($0.192/h) running `pods`. */
const member = (name: string, pods: readonly Pod[]) => m5xlargeMember(name, pods);

const pool = (consolidationPolicy: NodePool['disruption']['consolidationPolicy']) =>
  nodePool({
    consolidationPolicy,
    requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
  });

function snapshot(members: readonly [StateNode, NodeClaim][], p: NodePool): ClusterSnapshot {
  return snapshotOf(members, { nodePools: [p] });
}

const web = (name: string, cpu: string, priority = 0) =>
  pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet', priority });

/**
 * Three full nodes (one 3.5-cpu pod each: nothing fits elsewhere, and a cheaper 4-cpu type saves
 * only a little) and node b with one small pod, which a much cheaper node can take.
 */
const cluster = (bPriority = 0) => [
  member('a', [web('a1', '3500m')]),
  member('b', [web('b1', '500m', bPriority)]),
  member('c', [web('c1', '3500m')]),
  member('d', [web('d1', '3500m')]),
];

describe('evictionCost', () => {
  it('is 1 for a plain pod, moved by pod-deletion-cost and priority, clamped to [-10, 10]', () => {
    expect(evictionCost({ priority: 0 })).toBe(1);
    expect(evictionCost({ priority: 2 ** 25 })).toBe(2);
    expect(
      evictionCost({
        priority: 0,
        annotations: { 'controller.kubernetes.io/pod-deletion-cost': String(2 ** 27) },
      }),
    ).toBe(2);
    expect(evictionCost({ priority: 1_000_000_000 })).toBe(10);
    expect(evictionCost({ priority: -2_000_000_000 })).toBe(-10);
    expect(
      evictionCost({ priority: 0, annotations: { 'controller.kubernetes.io/pod-deletion-cost': 'x' } }),
    ).toBe(1);
  });

  it('leaves out a pod-deletion-cost podlift wrote to steer scale-downs, not one a user changed since', () => {
    const cost = String(-(2 ** 27));
    const steered = {
      'controller.kubernetes.io/pod-deletion-cost': cost,
      'podlift.dev/managed-deletion-cost': cost,
    };
    expect(evictionCost({ priority: 0, annotations: steered })).toBe(1);
    const changed = { ...steered, 'controller.kubernetes.io/pod-deletion-cost': String(2 ** 27) };
    expect(evictionCost({ priority: 0, annotations: changed })).toBe(2);
  });
});

describe('scoreMove', () => {
  it('approves at savings share / disruption share ≥ 1/2, and never a move that saves nothing', () => {
    expect(scoreMove(1, 2, { cost: 4, disruptionCost: 4 })).toMatchObject({ score: 0.5, approved: true });
    expect(scoreMove(1, 2.1, { cost: 4, disruptionCost: 4 }).approved).toBe(false);
    expect(scoreMove(0, 1, { cost: 4, disruptionCost: 4 })).toMatchObject({ score: 0, approved: false });
    expect(scoreMove(1, 1, { cost: 0, disruptionCost: 4 }).approved).toBe(false);
  });
});

describe('nodePoolTotals', () => {
  it('sums the prices of the pool and 1 + the eviction costs of each node', () => {
    const totals = nodePoolTotals(snapshot(cluster(9 * 2 ** 25), pool('Balanced')));
    expect(totals.get('default')?.cost).toBeCloseTo(0.768, 6);
    expect(totals.get('default')?.disruptionCost).toBe(2 + 11 + 2 + 2);
  });
});

describe('decideDisruption: consolidationPolicy Balanced', () => {
  it('replaces the node whose move is worth its disruption, where WhenEmptyOrUnderutilized takes the first saving', () => {
    const balanced = decideDisruption(snapshot(cluster(), pool('Balanced')), T0 + 60_000).command;
    expect(balanced).toMatchObject({ method: 'consolidation', candidates: ['claim-b'], replace: true });
    const any = decideDisruption(snapshot(cluster(), pool('WhenEmptyOrUnderutilized')), T0 + 60_000).command;
    expect(any).toMatchObject({ method: 'consolidation', candidates: ['claim-a'], replace: true });
  });

  it('leaves alone full nodes whose replacements save 12 % of the pool each for 25 % of its disruption', () => {
    const full = ['a', 'b', 'c', 'd'].map((n) => member(n, [web(`${n}1`, '3500m')]));
    expect(decideDisruption(snapshot(full, pool('Balanced')), T0 + 60_000).command).toBeUndefined();
    const any = decideDisruption(snapshot(full, pool('WhenEmptyOrUnderutilized')), T0 + 60_000).command;
    expect(any).toMatchObject({ candidates: ['claim-a'], replace: true });
    expect(any?.savings).toBeLessThan(0.192 / 2);
  });

  it('scores a multi-NodePool move per pool, each credited its share of the savings', () => {
    const s = snapshot(cluster(), pool('Balanced'));
    const [a, b] = disruptionCandidates(s);
    const totals = nodePoolTotals(s);
    // Deleting b outright: 25 % of the cost for 2 of 8 disruption → 1.0.
    expect(balancedApproves([b], 0.192, totals)).toBe(true);
    // Saving 0.02 $/h on a: 2.6 % of the cost for 25 % of the disruption → 0.1.
    expect(balancedApproves([a], 0.02, totals)).toBe(false);
  });

  it('shrinks the multi-node window when a move is rejected, as an impossible one does', () => {
    const small = ['a', 'b', 'c', 'd'].map((n) => member(n, [web(`${n}1`, '250m')]));
    const s = snapshot(small, pool('Balanced'));
    const ordered = disruptionCandidates(s);
    expect(multiNodeConsolidation(ordered, s)?.candidates).toHaveLength(4);
    const atMostTwo = multiNodeConsolidation(ordered, s, (chosen) => chosen.length <= 2);
    expect(atMostTwo?.candidates.map((c) => c.claim.name)).toStrictEqual(['claim-a', 'claim-b']);
  });
});

// Karpenter's own cases, kubernetes-sigs/karpenter pkg/controllers/disruption balanced_test.go,
// balanced_scoring_test.go and balanced_adversarial_test.go, on podlift's functions.

/** balanced_test.go's RFC example pool: eight m7i.xlarge and two m7i.2xlarge, 80 pods. */
const rfcTotals: NodePoolTotals = { cost: 58.08, disruptionCost: 90 };
const zeroScore = { savingsFraction: 0, disruptionFraction: 0, score: 0, approved: false };

describe('scoreMove: balanced_test.go "ScoreMove"', () => {
  it('approves an oversized node consolidation and a spare capacity delete', () => {
    const oversized = scoreMove(7.26, 4, rfcTotals);
    expect(oversized.savingsFraction).toBeCloseTo(7.26 / 58.08, 9);
    expect(oversized.disruptionFraction).toBeCloseTo(4 / 90, 9);
    expect(oversized).toMatchObject({ score: expect.closeTo(2.8125, 9), approved: true });
    expect(scoreMove(4.84, 5, rfcTotals)).toMatchObject({ score: expect.closeTo(1.5, 9), approved: true });
  });

  it('rejects a marginal move and a well-packed node with zero savings', () => {
    expect(scoreMove(2.42, 9, rfcTotals)).toMatchObject({
      score: expect.closeTo(5 / 12, 9),
      approved: false,
    });
    expect(scoreMove(0, 11, rfcTotals)).toMatchObject({ score: 0, approved: false });
  });

  it('approves a replace in a uniform pool at exactly the threshold 1/2', () => {
    expect(scoreMove(2.42, 9, { cost: 48.4, disruptionCost: 90 })).toMatchObject({
      score: 0.5,
      approved: true,
    });
  });

  it('approves low-disruption nodes and rejects high-disruption nodes', () => {
    const het = { cost: 58.08, disruptionCost: 117 };
    expect(scoreMove(4.84, 5, het)).toMatchObject({ score: expect.closeTo(1.95, 9), approved: true });
    expect(scoreMove(4.84, 32, het)).toMatchObject({ score: expect.closeTo(0.3047, 4), approved: false });
  });

  it('scores the same regardless of pool size, and proportionally equivalent moves of two pools alike', () => {
    expect(scoreMove(7.26, 4, { cost: 580.8, disruptionCost: 900 }).score).toBeCloseTo(
      scoreMove(7.26, 4, rfcTotals).score,
      9,
    );
    const onDemand = scoreMove(4.84, 4, { cost: 48.4, disruptionCost: 90 });
    const spot = scoreMove(1.45, 4, { cost: 14.5, disruptionCost: 90 });
    expect(spot.score).toBeCloseTo(onDemand.score, 9);
    expect([onDemand.approved, spot.approved]).toStrictEqual([true, true]);
  });

  it('approves with +Inf score when the move disrupts nothing and saves something', () => {
    expect(scoreMove(4.84, 0, rfcTotals)).toMatchObject({ score: Number.POSITIVE_INFINITY, approved: true });
  });

  it('scores 0 when nothing or less than nothing is saved, whatever the disruption', () => {
    // balanced_scoring_test.go entries "zero savings", "negative savings"; balanced_test.go
    // "should reject when both savings and disruption are zero".
    expect(scoreMove(0, 10, { cost: 100, disruptionCost: 100 })).toMatchObject({ score: 0, approved: false });
    expect(scoreMove(-5, 10, { cost: 100, disruptionCost: 100 })).toMatchObject({
      score: 0,
      approved: false,
    });
    expect(scoreMove(0, 0, rfcTotals)).toMatchObject({ score: 0, approved: false });
  });

  it('scores 0 with zero totals: nothing to normalize against (balanced.go ScoreMove)', () => {
    expect(scoreMove(4.84, 5, { cost: 0, disruptionCost: 90 })).toStrictEqual(zeroScore);
    expect(scoreMove(4.84, 5, { cost: 58.08, disruptionCost: 0 })).toStrictEqual(zeroScore);
    // balanced_scoring_test.go "should reject when candidate NodePool is missing from totals map".
    expect(scoreMove(4.84, 2, undefined)).toStrictEqual(zeroScore);
  });

  it('moves the threshold with k: rejects the marginal move at k=2 and k=1, approves it at k=3', () => {
    expect(scoreMove(2.42, 9, rfcTotals, 2).approved).toBe(false);
    expect(scoreMove(2.42, 9, rfcTotals, 3).approved).toBe(true);
    expect(scoreMove(2.42, 9, rfcTotals, 1).approved).toBe(false);
  });
});

/** A 4.84 $/h member of `poolName` (its NodeClaim labelled so) running `podList`. */
function poolMember(
  name: string,
  poolName: string,
  podList: readonly Pod[],
  price = 4.84,
): [StateNode, NodeClaim] {
  const [node, claim] = m5xlargeMember(name, podList, { price });
  return [node, { ...claim, labels: { ...claim.labels, 'karpenter.sh/nodepool': poolName } }];
}

/** balanced_scoring_test.go `makeCandidate`: a candidate of `p` at `price` whose `podList` would move. */
function candidate(name: string, p: NodePool, price: number, podList: readonly Pod[]): Candidate {
  const [node, claim] = poolMember(name, p.name, podList, price);
  return { claim, node, pool: p, pods: podList, price, capacityType: 'on-demand' };
}

const balancedPool = (name: string) => nodePool({ name, consolidationPolicy: 'Balanced' });
const onePod = (name: string) => [pod({ name, ownerKind: 'ReplicaSet' })];

describe('nodePoolTotals: balanced_scoring_test.go "computeNodePoolTotals"', () => {
  const fiveNodes = ['a', 'b', 'c', 'd', 'e'].map((n) => poolMember(n, 'pool-a', onePod(`${n}1`)));

  it('sums every node of the pool: 5 × 4.84 $/h, 5 × (1 per node + 1 per pod)', () => {
    const totals = nodePoolTotals(snapshotOf(fiveNodes));
    expect([...totals.keys()]).toStrictEqual(['pool-a']);
    expect(totals.get('pool-a')?.cost).toBeCloseTo(24.2, 9);
    expect(totals.get('pool-a')?.disruptionCost).toBe(10);
  });

  it('keeps each NodePool apart', () => {
    const totals = nodePoolTotals(snapshotOf([...fiveNodes, poolMember('x', 'pool-b', onePod('x1'), 1)]));
    expect(totals.get('pool-a')).toStrictEqual({
      cost: expect.closeTo(24.2, 9),
      disruptionCost: 10,
      settledForMs: 0,
    });
    expect(totals.get('pool-b')).toStrictEqual({ cost: 1, disruptionCost: 2, settledForMs: 0 });
  });

  it('accumulates the disruption of zero-priced nodes, and lets no NaN price poison the cost', () => {
    // "should accumulate disruption from zero-priced candidates"; balanced_adversarial_test.go
    // "should not allow NaN price to poison NodePool totals".
    const [unpricedNode, unpricedClaim] = poolMember('u', 'pool-a', onePod('u1'));
    const [nanNode, nanClaim] = poolMember('n', 'pool-a', onePod('n1'));
    const totals = nodePoolTotals(
      snapshotOf([
        fiveNodes[0],
        [unpricedNode, { ...unpricedClaim, annotations: {} }],
        [nanNode, { ...nanClaim, annotations: { 'podlift.dev/hourly-price': 'NaN' } }],
        fiveNodes[1],
      ]),
    );
    expect(totals.get('pool-a')).toStrictEqual({
      cost: expect.closeTo(9.68, 9),
      disruptionCost: 8,
      settledForMs: 0,
    });
    expect(scoreMove(4.84, 2, totals.get('pool-a')).score).toBeCloseTo(4.84 / 9.68 / (2 / 8), 9);
  });

  it('counts only non-DaemonSet pods, each at its positive eviction cost (statenode.go updateForPod)', () => {
    const daemon = pod({ name: 'agent', ownerKind: 'DaemonSet', priority: 9 * 2 ** 25 });
    const cheap = pod({ name: 'cheap', ownerKind: 'ReplicaSet', priority: -(2 ** 30) });
    const totals = nodePoolTotals(snapshotOf([poolMember('a', 'pool-a', [daemon, cheap, ...onePod('a1')])]));
    expect(totals.get('pool-a')?.disruptionCost).toBe(1 + 0 + 1);
  });

  it('counts an in-flight NodeClaim (no Node yet) at its price and the per-node base cost', () => {
    // statenode.go `Labels` reads an unregistered NodeClaim's labels; `DisruptionCost` is 1 + its pods.
    const inFlight = nodeClaim({
      name: 'claim-new',
      nodePool: 'pool-a',
      annotations: { 'podlift.dev/hourly-price': '1.5' },
    });
    const s = snapshotOf(fiveNodes);
    const totals = nodePoolTotals({ ...s, nodeClaims: [...s.nodeClaims, inFlight] });
    expect(totals.get('pool-a')).toStrictEqual({
      cost: expect.closeTo(25.7, 9),
      disruptionCost: 11,
      settledForMs: 0,
    });
  });

  it('skips a node without a NodePool label, Karpenter-managed or not (`if !ok { continue }`)', () => {
    const foreign = stateNode({ name: 'static', pods: onePod('s1') });
    const [node, claim] = poolMember('x', 'pool-a', onePod('x1'));
    const { 'karpenter.sh/nodepool': _, ...unlabelled } = claim.labels;
    const s = snapshotOf([...fiveNodes, [node, { ...claim, labels: unlabelled }]]);
    const totals = nodePoolTotals({ ...s, nodes: [...s.nodes, foreign] });
    expect([...totals.keys()]).toStrictEqual(['pool-a']);
    expect(totals.get('pool-a')?.disruptionCost).toBe(10);
  });
});

describe('balancedApproves: balanced_scoring_test.go "EvaluateBalancedMove"', () => {
  const ten = Array.from({ length: 10 }, (_, i) =>
    candidate(`n${i}`, balancedPool('pool-single'), 4.84, onePod(`p${i}`)),
  );
  const tenTotals = new Map([['pool-single', { cost: 48.4, disruptionCost: 20 }]]);

  it('approves deleting 1 of 10 uniform nodes of a Balanced pool (score 1.0), not 1/5 of its saving', () => {
    expect(balancedApproves([ten[0]], 4.84, tenTotals)).toBe(true);
    expect(balancedApproves([ten[0]], 4.84 / 2, tenTotals)).toBe(true);
    expect(balancedApproves([ten[0]], 4.84 / 2.01, tenTotals)).toBe(false);
  });

  it('rejects when the candidate NodePool is missing from the totals', () => {
    expect(balancedApproves([ten[0]], 4.84, new Map())).toBe(false);
  });

  it('skips non-Balanced pools and approves them unconditionally', () => {
    const p = nodePool({ name: 'pool-nobalanced', consolidationPolicy: 'WhenEmptyOrUnderutilized' });
    const two = [0, 1].map((i) => candidate(`w${i}`, p, 4.84, onePod(`w${i}`)));
    expect(
      balancedApproves(two, 0.01, new Map([['pool-nobalanced', { cost: 24.2, disruptionCost: 10 }]])),
    ).toBe(true);
  });

  it('credits each pool of a cross-NodePool move its share of the source cost', () => {
    // "should attribute savings proportionally in cross-NodePool scenarios": 5 + 5 nodes, one of
    // each deleted; the Balanced pool is credited half the 9.68 saved: 0.2 / 0.2 = 1.0.
    const empty = nodePool({ name: 'pool-empty', consolidationPolicy: 'WhenEmptyOrUnderutilized' });
    const move = [
      candidate('b0', balancedPool('pool-balanced'), 4.84, onePod('b0')),
      candidate('e0', empty, 4.84, onePod('e0')),
    ];
    const totals = new Map([
      ['pool-balanced', { cost: 24.2, disruptionCost: 10 }],
      ['pool-empty', { cost: 24.2, disruptionCost: 10 }],
    ]);
    expect(balancedApproves(move, 9.68, totals)).toBe(true);
    // A replacement at 5 $/h leaves 4.68 net, 2.34 of it credited: 0.48 < 1/2 (all of it: 0.97).
    expect(balancedApproves(move, 4.68, totals)).toBe(false);
  });

  it('rejects when any Balanced pool rejects, approves when every one approves', () => {
    // "AllPoolsMustApprove": pool A 10 nodes at 4.84 with a pod each, pool B a 1 $/h node with
    // 20 pods and one with 1 pod; the move deletes a node of A and B's heavy one (5.84 $/h).
    const a = candidate('a0', balancedPool('pool-a'), 4.84, onePod('a0'));
    const heavy = candidate(
      'b0',
      balancedPool('pool-b'),
      1,
      pods(20, { name: 'heavy', ownerKind: 'ReplicaSet' }),
    );
    const totals = new Map([
      ['pool-a', { cost: 48.4, disruptionCost: 20 }],
      ['pool-b', { cost: 2, disruptionCost: 23 }],
    ]);
    // Deleted outright: A scores 1.0, B 0.5 / (21/23) = 0.548, both pass.
    expect(balancedApproves([a, heavy], 5.84, totals)).toBe(true);
    // Replaced for 4.0 net: A scores 0.68 and passes, B 0.37 and rejects the move, in either order.
    expect(balancedApproves([a, heavy], 4, totals)).toBe(false);
    expect(balancedApproves([heavy, a], 4, totals)).toBe(false);
  });
});

describe('canPassBalanced: balanced.go "CanPassThreshold"', () => {
  const het = new Map([['pool', { cost: 58.08, disruptionCost: 117 }]]);
  const light = candidate('light', balancedPool('pool'), 4.84, pods(4, { ownerKind: 'ReplicaSet' }));
  const busy = candidate('busy', balancedPool('pool'), 4.84, pods(31, { ownerKind: 'ReplicaSet' }));

  it('passes a candidate whose delete would pass, not one whose delete would not (best case)', () => {
    expect(canPassBalanced(light, het)).toBe(true);
    expect(canPassBalanced(busy, het)).toBe(false);
  });

  it('passes every candidate of a non-Balanced pool', () => {
    const p = nodePool({ name: 'pool', consolidationPolicy: 'WhenEmptyOrUnderutilized' });
    expect(canPassBalanced({ ...busy, pool: p }, het)).toBe(true);
  });

  it('passes when its pool has no totals or no cost', () => {
    expect(canPassBalanced(busy, new Map())).toBe(true);
    expect(canPassBalanced(busy, new Map([['pool', { cost: 0, disruptionCost: 117 }]]))).toBe(true);
  });
});

describe('everyPoolApproves: each NodePool at the k it is given', () => {
  const p = (name: string) => nodePool({ name, consolidationPolicy: 'WhenEmptyOrUnderutilized' });
  const ten = Array.from({ length: 10 }, (_, i) => candidate(`n${i}`, p('pool-a'), 4.84, onePod(`p${i}`)));
  const totals = new Map([
    ['pool-a', { cost: 48.4, disruptionCost: 20 }],
    ['pool-b', { cost: 48.4, disruptionCost: 20 }],
  ]);

  it('scores a pool whatever its policy: 1/3 of the saving passes at k = 3, not at k = 2', () => {
    expect(everyPoolApproves([ten[0]], 4.84 / 3, totals, () => 3)).toBe(true);
    expect(everyPoolApproves([ten[0]], 4.84 / 3, totals, () => 2)).toBe(false);
    expect(everyPoolApproves([ten[0]], 4.84 / 3.01, totals, () => 3)).toBe(false);
  });

  it('lets a pool without a k pass, and needs every pool with one', () => {
    const b = candidate('b0', p('pool-b'), 4.84, onePod('b0'));
    const kOf = (pool: { name: string }) => (pool.name === 'pool-b' ? 2 : undefined);
    // Each pool credited half of what the move saves: pool-b's 0.05 for 0.1 of its disruption.
    expect(everyPoolApproves([ten[0], b], 4.84 * 2 * 0.5, totals, kOf)).toBe(true);
    expect(everyPoolApproves([ten[0], b], 4.84 * 2 * 0.49, totals, kOf)).toBe(false);
    expect(everyPoolApproves([ten[0]], 0.01, totals, kOf)).toBe(true);
  });
});
