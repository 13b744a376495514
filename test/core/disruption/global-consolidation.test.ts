import { describe, expect, it } from 'vitest';
import { nodePoolTotals } from '../../../shared/core/disruption/balanced';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { commandStillValid, decideDisruption } from '../../../shared/core/disruption/decide';
import {
  clearsGlobalThreshold,
  DEFAULT_SETTLE_AFTER_MS,
  globalConsolidation,
  MAX_GLOBAL_CANDIDATES,
  MAX_GLOBAL_REPLACEMENTS,
  thresholdK,
} from '../../../shared/core/disruption/global-consolidation';
import {
  countedUntilMoved,
  type DisruptionCommand,
  plannedCandidates,
  replacementPlans,
  VALIDATION_DELAY_MS,
} from '../../../shared/core/disruption/methods';
import { ANNOTATIONS } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { m5xlargeMember, member, snapshotOf, T0 } from './snapshot';

const app = (name: string, cpu: string, annotations?: Record<string, string>): Pod => ({
  ...pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet' }),
  ...(annotations ? { annotations } : {}),
});
/** Half an m5.xlarge: two 1-cpu pods of its 3.92 allocatable. */
const half = (node: string): Pod[] => [app(`${node}1`, '1'), app(`${node}2`, '1')];
/**
 * A busy m5.xlarge that is no candidate (still starting) and has no room for a 1-cpu pod: its
 * cost and its 7 pods count in the NodePool's totals Balanced's score is a share of.
 */
const busy = (name: string) =>
  m5xlargeMember(
    name,
    Array.from({ length: 7 }, (_, i) => app(`${name}${i}`, '500m')),
    { starting: true },
  );
/** On-demand m5 only, so the prices are hand-checkable; budgets as given (default 100 %). */
const m5Pool = (budget = '100%') => {
  const base = nodePool({
    requirements: [
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ],
  });
  return { ...base, disruption: { ...base.disruption, budgets: [{ nodes: budget }] } };
};
/** On-demand `families`, budgets 100 %, the global consolidation threshold's k when given. */
const pool = (families: string[], k?: number) => {
  const base = nodePool({
    requirements: [
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: families },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ],
  });
  return {
    ...base,
    disruption: {
      ...base.disruption,
      budgets: [{ nodes: '100%' }],
      ...(k !== undefined ? { globalConsolidationK: k } : {}),
    },
  };
};
const cluster = (members: readonly [StateNode, NodeClaim][], budget?: string) =>
  snapshotOf(members, { nodePools: [m5Pool(budget)] });
const threeHalfEmpty = (): [StateNode, NodeClaim][] => [
  m5xlargeMember('a', half('a')),
  m5xlargeMember('b', half('b')),
  m5xlargeMember('c', half('c')),
];

describe('globalConsolidation', () => {
  it('replaces 3 half-empty m5.xlarge ($0.576/h) by one m5.2xlarge ($0.384/h), the three deleted', () => {
    const s = cluster([...threeHalfEmpty(), busy('x'), busy('y')]);
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(step?.candidates.map((c) => c.node.name)).toStrictEqual(['a', 'b', 'c']);
    const plan = step?.consolidation.action === 'replace' ? step.consolidation.plans[0] : undefined;
    expect(plan).toMatchObject({ instanceType: 'm5.2xlarge', capacityType: 'on-demand' });
    expect(plan?.pods).toHaveLength(6);
    // Saving $0.192 of the pool's $0.960/h (0.2) for 9 of its 25 disruption (0.36): 0.56 ≥ 1/2.
    expect(step?.consolidation.savings).toBeCloseTo(0.192, 9);
    expect(step?.detail).toBe(
      `global consolidation saves $0.1920/h: moves 6 pod(s) off a, b, c onto a new m5.2xlarge (on-demand, $${plan?.price.toFixed(4)}/h) and the nodes that stay`,
    );
  });

  it("takes nothing under the threshold, k = 2 as Balanced's; the NodePool's k = 3 takes it", () => {
    // x, y, z (one 2.5-cpu pod each) onto one m5.2xlarge save $0.192 of the pool's $0.768/h
    // (0.25) for 6 of its 9 disruption (0.667): score 0.375, under 1/2, over 1/3. w (starting,
    // full) is no candidate; no smaller set moves (two 2.5-cpu pods need an m5.2xlarge too).
    const one = (n: string) => m5xlargeMember(n, [app(`${n}1`, '2500m')]);
    const full = m5xlargeMember('w', [app('w1', '1900m'), app('w2', '1900m')], { starting: true });
    const members = [one('x'), one('y'), one('z'), full];
    const s = cluster(members);
    expect(globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s))).toBeUndefined();
    const pool = m5Pool();
    // Settled: no NodeClaim created (all at T0) and no pod event for the 3 minutes k = 3 waits.
    const k3 = snapshotOf(members, {
      now: T0 + DEFAULT_SETTLE_AFTER_MS,
      nodePools: [{ ...pool, disruption: { ...pool.disruption, globalConsolidationK: 3 } }],
    });
    const step = globalConsolidation(disruptionCandidates(k3), k3, nodePoolTotals(k3));
    expect(step?.candidates.map((c) => c.node.name)).toStrictEqual(['x', 'y', 'z']);
    expect(step?.consolidation.savings).toBeCloseTo(0.192, 9);
  });

  describe("the NodePool's k applies once it has settled; until then no more than Balanced's 2", () => {
    // The cluster of the test above: the move scores 0.375, under 1/2, over 1/3.
    const one = (n: string) => m5xlargeMember(n, [app(`${n}1`, '2500m')]);
    const full = m5xlargeMember('w', [app('w1', '1900m'), app('w2', '1900m')], { starting: true });
    const base = m5Pool();
    const at = (now: number, members: readonly [StateNode, NodeClaim][], k = 3, settleAfter?: string) => {
      const s = snapshotOf(members, {
        now,
        nodePools: [
          {
            ...base,
            disruption: {
              ...base.disruption,
              globalConsolidationK: k,
              ...(settleAfter !== undefined ? { globalConsolidationSettleAfter: settleAfter } : {}),
            },
          },
        ],
      });
      return globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s))?.candidates.length ?? 0;
    };
    const members = [one('x'), one('y'), one('z'), full];
    const settled = T0 + DEFAULT_SETTLE_AFTER_MS;

    it('waits 3 minutes from the last NodeClaim created', () => {
      expect(at(settled, members)).toBe(3);
      expect(at(settled - 1, members)).toBe(0);
      // k = 1 is stricter than Balanced's, and stays so while the NodePool changes.
      expect(at(T0, members, 1)).toBe(0);
    });

    it('waits 3 minutes from the last pod event on any of its nodes', () => {
      const [wn, wc] = full;
      const event = (ms: number): [StateNode, NodeClaim] => [
        wn,
        { ...wc, status: { ...wc.status, lastPodEventTime: new Date(ms).toISOString() } },
      ];
      const later = [one('x'), one('y'), one('z'), event(T0 + 60_000)];
      expect(at(settled, later)).toBe(0);
      expect(at(settled + 60_000, later)).toBe(3);
    });

    it('waits as long as podlift.dev/global-consolidation-settle-after says', () => {
      expect(at(T0, members, 3, '0s')).toBe(3);
      expect(at(settled, members, 3, '10m')).toBe(0);
      expect(at(T0 + 600_000, members, 3, '10m')).toBe(3);
    });

    it('counts from the latest change across the NodePool, and is long without a NodeClaim', () => {
      const s = snapshotOf(members, { now: T0 + 5_000 });
      expect(nodePoolTotals(s).get('default')?.settledForMs).toBe(5_000);
      expect(thresholdK(base, undefined)).toBe(2);
      const k4 = { ...base, disruption: { ...base.disruption, globalConsolidationK: 4 } };
      expect(thresholdK(k4, undefined)).toBe(4);
      expect(thresholdK(k4, { cost: 1, disruptionCost: 1, settledForMs: DEFAULT_SETTLE_AFTER_MS - 1 })).toBe(
        2,
      );
    });
  });

  it('takes nothing when the planned fleet is not cheaper than the candidates', () => {
    const full = (n: string) => [app(`${n}1`, '1900m'), app(`${n}2`, '1900m')];
    const s = cluster([m5xlargeMember('a', full('a')), m5xlargeMember('b', full('b')), busy('x'), busy('y')]);
    expect(globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s))).toBeUndefined();
  });

  it('replaces four by two new nodes when one would not hold their pods: $0.768/h by $0.480/h', () => {
    // d's 3.8 cpu does not fit with the others' 6 on one m5.2xlarge (7.9 allocatable); a, b, c
    // alone onto one saves $0.192/h, all four onto an m5.2xlarge and an m5.large ($0.096/h, 1.93
    // allocatable: one of d's 1.9-cpu pods) $0.288/h, Karpenter's one replacement cannot.
    const d = m5xlargeMember('d', [app('d1', '1900m'), app('d2', '1900m')]);
    const s = cluster([d, ...threeHalfEmpty(), busy('x'), busy('y')]);
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(step?.candidates.map((c) => c.node.name).sort()).toStrictEqual(['a', 'b', 'c', 'd']);
    const plans = step?.consolidation.action === 'replace' ? step.consolidation.plans : [];
    expect(plans.map((p) => [p.instanceType, p.pods.length])).toStrictEqual([
      ['m5.large', 1],
      ['m5.2xlarge', 7],
    ]);
    expect(step?.consolidation.savings).toBeCloseTo(0.288, 9);
    // Each narrowed below its share of the $0.768/h: $0.768 × 0.096 / 0.48 = $0.1536 keeps the
    // m5.large only; $0.6144 keeps the m5.2xlarge, not the m5.4xlarge ($0.768/h).
    expect(plans.map((p) => p.instanceTypeOptions.map((o) => o.name))).toStrictEqual([
      ['m5.large'],
      ['m5.2xlarge'],
    ]);
    expect(step?.detail).toBe(
      'global consolidation saves $0.2880/h: moves 8 pod(s) off a, b, c, d onto a new m5.large (on-demand, $0.0960/h), a new m5.2xlarge (on-demand, $0.3840/h) and the nodes that stay',
    );
  });
});

describe('globalConsolidation: the search', () => {
  /** A pod no node can take (a label none has): a set holding its node never moves. */
  const pinned = (name: string) => ({
    ...app(name, '3500m'),
    nodeSelector: { 'example.com/nowhere': 'true' },
  });
  const stuck = (name: string) => m5xlargeMember(name, [pinned(`${name}1`)]);
  const one = (name: string, cpu: string) => m5xlargeMember(name, [app(`${name}1`, cpu)]);
  const names = (step: ReturnType<typeof globalConsolidation>) => step?.candidates.map((c) => c.node.name);

  it('splits a node whose pods cost less on several: an m5.xlarge ($0.192/h) onto two t3.micro', () => {
    // Two 1.5-cpu pods: one t3.micro (2 cpu, 1 GiB) holds one; the cheapest one node for both is
    // a t3.xlarge ($0.1664/h). Saving $0.1712/h of the pool's $0.384/h (0.45) for 3 of its 11
    // disruption (0.27).
    const s = snapshotOf([m5xlargeMember('a', [app('a1', '1500m'), app('a2', '1500m')]), busy('x')], {
      nodePools: [pool(['m5', 't3'])],
    });
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(names(step)).toStrictEqual(['a']);
    const plans = step?.consolidation.action === 'replace' ? step.consolidation.plans : [];
    expect(plans.map((p) => [p.instanceType, p.pods.length])).toStrictEqual([
      ['t3.micro', 1],
      ['t3.micro', 1],
    ]);
    expect(step?.consolidation.savings).toBeCloseTo(0.192 - 2 * 0.0104, 9);
    // Each below its half of the m5.xlarge's price ($0.096/h): t3.micro to t3.large ($0.0832/h),
    // not the m5.large at exactly $0.096/h nor a t3.xlarge that would hold both.
    expect(plans[0].instanceTypeOptions.map((o) => o.name)).toStrictEqual([
      't3.micro',
      't3.small',
      't3.medium',
      't3.large',
    ]);
  });

  it(`launches at most ${MAX_GLOBAL_REPLACEMENTS} new nodes in one step`, () => {
    // 1.4-cpu pods on an m5.4xlarge ($0.768/h): a t3.medium each ($0.0416/h), k = 10 so the
    // score (pool = this node) passes: 10 pods move, 11 would need 11 new nodes.
    const split = (pods: number) => {
      const s = snapshotOf(
        [
          member(
            'big',
            Array.from({ length: pods }, (_, i) => app(`big${i}`, '1400m')),
            { instanceType: 'm5.4xlarge', cpu: '15890m', memory: '57Gi', price: 0.768 },
          ),
        ],
        { nodePools: [pool(['m5', 't3'], 10)] },
      );
      return globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    };
    const ten = split(MAX_GLOBAL_REPLACEMENTS);
    expect(ten?.consolidation.action === 'replace' ? ten.consolidation.plans.length : 0).toBe(10);
    expect(split(MAX_GLOBAL_REPLACEMENTS + 1)).toBeUndefined();
  });

  it('grows a set past a candidate that cannot move, and keeps the set that saves most', () => {
    // b's pod can go nowhere. Growing from a: a+b fails and b is skipped; a+c moves onto d
    // ($0.384/h saved); a+c+d onto one m5.large ($0.480/h saved), the best.
    const s = cluster([
      one('a', '600m'),
      stuck('b'),
      one('c', '600m'),
      one('d', '600m'),
      busy('x'),
      busy('y'),
    ]);
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(names(step)).toStrictEqual(['a', 'c', 'd']);
    expect(step?.consolidation.savings).toBeCloseTo(0.48, 9);
  });

  it('grows a set once more without the first candidate when nothing joins it', () => {
    // a cannot move, so every prefix and the set grown from it fail; b and c (a 1.5-cpu pod each)
    // move alone onto a t3.micro ($0.1816/h saved) and together onto two ($0.3632/h), which only
    // the set grown from the second candidate finds.
    const s = snapshotOf([stuck('a'), one('b', '1500m'), one('c', '1500m'), busy('x')], {
      nodePools: [pool(['m5', 't3'])],
    });
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(names(step)).toStrictEqual(['b', 'c']);
    expect(step?.consolidation.savings).toBeCloseTo(2 * (0.192 - 0.0104), 9);
  });

  it('stops searching once the run is out of time, keeping the best step found so far', () => {
    // b cannot move: the first three sets tried (prefixes of a, b, c, d holding b) do not move,
    // the fourth (a alone, onto c) does; the growth later finds a, c and d onto one m5.large.
    const s = cluster([one('a', '600m'), stuck('b'), one('c', '600m'), one('d', '600m'), busy('x')]);
    const within = (simulations: number) => {
      let asked = 0;
      const outOfTime = () => ++asked > simulations;
      return globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s), {
        spotToSpotConsolidation: false,
        outOfTime,
      });
    };
    expect(within(3)).toBeUndefined();
    expect(names(within(4))).toStrictEqual(['a']);
    expect(names(within(100))).toStrictEqual(['a', 'c', 'd']);
  });

  it('finds a prefix whose pairs do not move: three 2.5-cpu pods, then a node that cannot move', () => {
    const s = cluster([
      one('x', '2500m'),
      one('y', '2500m'),
      one('z', '2500m'),
      stuck('zz'),
      busy('p'),
      busy('q'),
    ]);
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(names(step)).toStrictEqual(['x', 'y', 'z']);
    expect(step?.consolidation.savings).toBeCloseTo(0.192, 9);
  });

  it(`looks at the first ${MAX_GLOBAL_CANDIDATES} candidates in its order only, whatever order they come in`, () => {
    // z (a 900m pod, onto an m5.large) comes after the stuck nodes sorted by name (the same pods
    // per dollar): 14th after 13 of them, 15th after 14.
    const withStuck = (n: number) => {
      const stuckNodes = Array.from({ length: n }, (_, i) => stuck(`s${String(i).padStart(2, '0')}`));
      const s = cluster([one('z', '900m'), ...stuckNodes, busy('p')]);
      return globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    };
    expect(names(withStuck(MAX_GLOBAL_CANDIDATES - 1))).toStrictEqual(['z']);
    expect(withStuck(MAX_GLOBAL_CANDIDATES)).toBeUndefined();
  });

  it('says a step that launches nothing moves its pods onto the nodes that stay', () => {
    const s = cluster([one('a', '500m'), one('b', '500m'), m5xlargeMember('r', []), busy('x'), busy('y')]);
    const eligible = disruptionCandidates(s).filter((c) => c.node.name !== 'r');
    const step = globalConsolidation(eligible, s, nodePoolTotals(s));
    expect(step?.consolidation.action).toBe('delete');
    expect(step?.detail).toBe(
      'global consolidation saves $0.3840/h: moves 2 pod(s) off a, b onto the nodes that stay',
    );
  });
});

describe('decideDisruption with GlobalConsolidation', () => {
  const gate = { spotToSpotConsolidation: false, globalConsolidation: true };
  /**
   * Three m5.xlarge ($0.192/h each), one 2.5-cpu pod on each: two of them together need 5 cpu,
   * an m5.2xlarge no cheaper than they are, so multi-node's binary search (first probe: 2 of 3)
   * stops there and single-node finds nothing; all three fit on one m5.2xlarge and save $0.192/h.
   */
  const big = (n: string, annotations?: Record<string, string>) => [app(`${n}1`, '2500m', annotations)];
  const missed = (pinned?: Record<string, string>) => [
    m5xlargeMember('x', big('x')),
    m5xlargeMember('y', big('y')),
    m5xlargeMember('z', big('z', pinned)),
    busy('p'),
    busy('q'),
  ];

  it("moves the three that Karpenter's methods miss, in one command replacing them by an m5.2xlarge", () => {
    const s = cluster(missed());
    expect(decideDisruption(s, T0 + 60_000).command).toBeUndefined();
    const { command } = decideDisruption(s, T0 + 60_000, gate);
    expect(command).toMatchObject({
      method: 'consolidation',
      reason: 'Underutilized',
      candidates: ['claim-x', 'claim-y', 'claim-z'],
      replace: true,
    });
    expect(command?.savings).toBeCloseTo(0.192, 9);
    expect(command?.detail).toMatch(
      /^global consolidation saves \$0\.1920\/h: moves 3 pod\(s\) off x, y, z onto a new m5\.2xlarge/,
    );
  });

  it("splits a node Karpenter's methods leave, saying why they do: its pods need two new nodes", () => {
    const s = snapshotOf([m5xlargeMember('a', [app('a1', '1500m'), app('a2', '1500m')]), busy('x')], {
      nodePools: [pool(['m5', 't3'])],
    });
    const karpenter = decideDisruption(s, T0 + 60_000);
    expect(karpenter.command).toBeUndefined();
    expect(karpenter.unconsolidatable).toContainEqual({
      nodeClaim: 'claim-a',
      node: 'a',
      why: "Can't remove without creating 2 candidates",
    });
    const { command } = decideDisruption(s, T0 + 60_000, gate);
    expect(command).toMatchObject({ candidates: ['claim-a'], replace: true, replacements: 2 });
    expect(command?.detail).toMatch(/moves 2 pod\(s\) off a onto a new t3\.micro .*, a new t3\.micro /);
  });

  it("comes before Karpenter's methods, when its step saves more than theirs would", () => {
    // Four under-used m5.xlarge: Karpenter's multi-node moves a prefix onto the rest plus at
    // most one node; the global step moves all four onto an m5.2xlarge and an m5.large.
    const d = m5xlargeMember('d', [app('d1', '1900m'), app('d2', '1900m')]);
    const s = cluster([d, ...threeHalfEmpty(), busy('x'), busy('y')]);
    const karpenter = decideDisruption(s, T0 + 60_000).command;
    expect(karpenter?.savings).toBeLessThan(0.288);
    const { command } = decideDisruption(s, T0 + 60_000, gate);
    expect(command?.candidates).toStrictEqual(['claim-a', 'claim-b', 'claim-c', 'claim-d']);
    expect(command).toMatchObject({ replace: true, replacements: 2 });
    expect(command?.savings).toBeCloseTo(0.288, 9);
  });

  it('searches past its window for the longest prefix that moves, as multi-node does: 12 of 14 deleted', () => {
    // 14 m5.xlarge with one 500m pod each: the 11 it looks at closely could go onto the last
    // three; the binary search past them finds 12 (their pods onto the last two), 13 do not fit.
    const s = cluster(
      Array.from({ length: 14 }, (_, i) => {
        const name = `n${String(i).padStart(2, '0')}`;
        return m5xlargeMember(name, [app(`${name}p`, '500m')]);
      }),
    );
    const { command } = decideDisruption(s, T0 + 60_000, gate);
    expect(command?.candidates).toHaveLength(12);
    expect(command?.savings).toBeCloseTo(12 * 0.192, 9);
    expect(command?.detail).toMatch(/^global consolidation saves \$2\.3040\/h: moves 12 pod\(s\)/);
  });

  it("scores Karpenter's methods at the NodePool's k too: no replacement for cents under the threshold", () => {
    // a (three 500m pods) onto an m5.large saves $0.096 of the pool's $0.768/h (0.125) for 4 of
    // its 13 disruption (0.31): score 0.41, under 1/2, over 1/3. The global step sees the same
    // move and declines it; single-node consolidation takes any saving.
    const a = m5xlargeMember('a', [app('a1', '500m'), app('a2', '500m'), app('a3', '500m')]);
    const full = (n: string) =>
      m5xlargeMember(n, [app(`${n}1`, '1900m'), app(`${n}2`, '1900m')], { starting: true });
    const members = [a, full('x'), full('y'), full('z')];
    const s = cluster(members);
    expect(decideDisruption(s, T0 + 60_000).command).toMatchObject({
      candidates: ['claim-a'],
      replace: true,
      savings: 0.096,
    });
    expect(decideDisruption(s, T0 + 60_000, gate).command).toBeUndefined();
    const k3 = snapshotOf(members, { now: T0 + DEFAULT_SETTLE_AFTER_MS, nodePools: [pool(['m5'], 3)] });
    expect(decideDisruption(k3, T0 + 60_000, gate).command).toMatchObject({
      candidates: ['claim-a'],
      replace: true,
    });
    // The score itself, at the NodePool's k whatever its policy (WhenEmptyOrUnderutilized here).
    const [candidate] = disruptionCandidates(s);
    expect(clearsGlobalThreshold([candidate], 0.096, nodePoolTotals(s))).toBe(false);
    const [k3Candidate] = disruptionCandidates(k3);
    expect(clearsGlobalThreshold([k3Candidate], 0.096, nodePoolTotals(k3))).toBe(true);
    expect(clearsGlobalThreshold([k3Candidate], 0.06, nodePoolTotals(k3))).toBe(false);
  });

  describe('a step the budget cuts short, in two phases', () => {
    /** The cluster the command's validation sees: its candidates marked, 15 s on. */
    const validating = (
      command: DisruptionCommand,
      members: readonly [StateNode, NodeClaim][],
      nodePool: NodePool,
    ) =>
      snapshotOf(
        members.map(([node, claim]): [StateNode, NodeClaim] =>
          command.candidates.includes(claim.name)
            ? [
                node,
                {
                  ...claim,
                  annotations: {
                    ...claim.annotations,
                    [ANNOTATIONS.disruptionCommand]: JSON.stringify(command),
                  },
                },
              ]
            : [node, claim],
        ),
        { nodePools: [nodePool], now: T0 + 60_000 + VALIDATION_DELAY_MS },
      );
    /** The m5.2xlarge the first phase launched, holding x's and y's pods, z's still to come. */
    const afterFirstPhase = (pinned?: Record<string, string>) =>
      cluster(
        [
          member('r', [...big('x'), ...big('y')], {
            instanceType: 'm5.2xlarge',
            cpu: '7910m',
            memory: '29Gi',
            price: 0.384,
          }),
          m5xlargeMember('z', big('z', pinned)),
          busy('p'),
          busy('q'),
        ],
        '2',
      );

    it('takes the two nodes the budget allows now, their m5.2xlarge sized for the third', () => {
      // Two of three onto an m5.2xlarge save nothing and single-node finds nothing: without the
      // phases the cluster stays at $0.576/h for good.
      const { command } = decideDisruption(cluster(missed(), '2'), T0 + 60_000, gate);
      expect(command).toMatchObject({
        candidates: ['claim-x', 'claim-y'],
        makesRoomFor: ['claim-z'],
        replace: true,
      });
      expect(command?.replacements).toBeUndefined();
      expect(command?.savings).toBeCloseTo(0, 9);
      expect(command?.detail).toBe(
        'global consolidation, first of two phases, saves $0.0000/h: moves 2 pod(s) off x, y onto a new m5.2xlarge (on-demand, $0.3840/h) and the nodes that stay; the new nodes make room for the pods of z, which move once the budget allows (both phases save $0.1920/h)',
      );
    });

    it('moves the third onto their room once the first phase is done, saving its whole price', () => {
      const { command } = decideDisruption(afterFirstPhase(), T0 + 60_000, gate);
      expect(command).toMatchObject({ candidates: ['claim-z'], replace: false });
      expect(command?.makesRoomFor).toBeUndefined();
      expect(command?.savings).toBeCloseTo(0.192, 9);
      // Karpenter's methods find the same deletion.
      expect(decideDisruption(afterFirstPhase(), T0 + 60_000).command).toMatchObject({
        candidates: ['claim-z'],
        replace: false,
      });
    });

    it('takes a first phase that costs more under a budget of one, and says so', () => {
      // Budget 1: x alone onto the m5.2xlarge all three need ($0.192/h more until y and z move).
      const { command } = decideDisruption(cluster(missed(), '1'), T0 + 60_000, gate);
      expect(command).toMatchObject({ candidates: ['claim-x'], makesRoomFor: ['claim-y', 'claim-z'] });
      expect(command?.savings).toBeCloseTo(-0.192, 9);
      expect(command?.detail).toBe(
        'global consolidation, first of two phases, costs $0.1920/h more: moves 1 pod(s) off x onto a new m5.2xlarge (on-demand, $0.3840/h) and the nodes that stay; the new nodes make room for the pods of y, z, which move once the budget allows (both phases save $0.1920/h)',
      );
    });

    it('takes no phase without a candidate the budget allows now, nor when the whole step saves nothing', () => {
      // e (a 3.5-cpu pod, first in consolidation's order) is the one the budget of one allows;
      // x, y and z together would save, but without e: a step of held candidates alone is none.
      // Its pod's deletion cost (eviction cost 2) puts e last in the search's order, after them.
      const e = m5xlargeMember('e', [
        app('e1', '3500m', { 'controller.kubernetes.io/pod-deletion-cost': `${2 ** 27}` }),
      ]);
      expect(decideDisruption(cluster([e, ...missed()], '1'), T0 + 60_000, gate).command).toBeUndefined();
      // Two of the three, one allowed now: together they save nothing.
      const two = missed().filter(([n]) => n.name !== 'z');
      expect(decideDisruption(cluster(two, '1'), T0 + 60_000, gate).command).toBeUndefined();
    });

    it("counts all its nodes against the NodePool's limits until they have moved", () => {
      // Five m5.xlarge, 20 vCPU. The new m5.2xlarge (8) runs beside x and y until they have
      // drained and beside z until the second phase: within limits.cpu 28, not 27 — though with
      // x's and y's freed, as a replacement of Karpenter's frees them, it would be (24), and with
      // z's too (16).
      const limitedPool = (cpu: number) => ({ ...m5Pool('2'), limits: { cpu } });
      const limited = (cpu: number) => snapshotOf(missed(), { nodePools: [limitedPool(cpu)] });
      expect(decideDisruption(limited(28_000), T0 + 60_000, gate).command).toMatchObject({
        candidates: ['claim-x', 'claim-y'],
        makesRoomFor: ['claim-z'],
      });
      expect(decideDisruption(limited(27_000), T0 + 60_000, gate).command).toBeUndefined();
      // The validation and the launch's plan count them too: the limits lowered to 27, the step no
      // longer holds, and the launch's plan finds room for one of the three pods (an m5.xlarge).
      const command = decideDisruption(limited(28_000), T0 + 60_000, gate).command;
      if (!command) throw new Error('no command');
      expect(commandStillValid(command, validating(command, missed(), limitedPool(28_000)))).toBe(true);
      expect(commandStillValid(command, validating(command, missed(), limitedPool(27_000)))).toBe(false);
      const s = limited(27_000);
      const chosen = plannedCandidates(command, disruptionCandidates(s));
      expect(replacementPlans(chosen, s).unschedulable).toBe(0);
      expect(replacementPlans(chosen, s, countedUntilMoved(command, chosen)).unschedulable).toBe(2);
      // A command of no phased step counts none of its candidates, as Karpenter's.
      expect(countedUntilMoved({ ...command, makesRoomFor: undefined }, chosen)).toStrictEqual([]);
    });

    it('takes no phase for a candidate held back by something other than the budget', () => {
      const pinned = { 'karpenter.sh/do-not-disrupt': 'true' };
      expect(decideDisruption(cluster(missed(pinned), '2'), T0 + 60_000, gate).command).toBeUndefined();
    });

    it('takes no phase when nothing is past the budget, nor the whole step when the budget allows it', () => {
      // Budget 3: the whole step in one command, no phases.
      const { command } = decideDisruption(cluster(missed(), '3'), T0 + 60_000, gate);
      expect(command?.candidates).toStrictEqual(['claim-x', 'claim-y', 'claim-z']);
      expect(command?.makesRoomFor).toBeUndefined();
    });

    it('plans its replacements for the pods of the third too, unless another command took it', () => {
      const command = decideDisruption(cluster(missed(), '2'), T0 + 60_000, gate).command;
      if (!command) throw new Error('no command');
      const names = (s: ReturnType<typeof cluster>) =>
        plannedCandidates(command, disruptionCandidates(s)).map((c) => c.claim.name);
      expect(names(cluster(missed(), '2'))).toStrictEqual(['claim-x', 'claim-y', 'claim-z']);
      const other = JSON.stringify({ ...command, id: 'other', candidates: ['claim-z'] });
      const taken = missed().map(([node, claim]): [StateNode, NodeClaim] =>
        claim.name === 'claim-z'
          ? [
              node,
              { ...claim, annotations: { ...claim.annotations, [ANNOTATIONS.disruptionCommand]: other } },
            ]
          : [node, claim],
      );
      expect(names(cluster(taken, '2'))).toStrictEqual(['claim-x', 'claim-y']);
      // A command without phases plans for its own candidates only.
      expect(
        plannedCandidates(
          { ...command, makesRoomFor: undefined },
          disruptionCandidates(cluster(missed(), '2')),
        ).map((c) => c.claim.name),
      ).toStrictEqual(['claim-x', 'claim-y']);
    });

    it('is held to the whole step by its validation: the third still a candidate, unclaimed', () => {
      const { command } = decideDisruption(cluster(missed(), '2'), T0 + 60_000, gate);
      if (!command) throw new Error('no command');
      const recorded = (members: [StateNode, NodeClaim][]) => validating(command, members, m5Pool('2'));
      expect(commandStillValid(command, recorded(missed()))).toBe(true);
      // z gone, or pinned: the first phase alone would save nothing.
      expect(commandStillValid(command, recorded(missed().filter(([n]) => n.name !== 'z')))).toBe(false);
      expect(commandStillValid(command, recorded(missed({ 'karpenter.sh/do-not-disrupt': 'true' })))).toBe(
        false,
      );
      // z taken by another command.
      const other = { ...command, id: 'other', candidates: ['claim-z'] };
      const taken = missed().map(([node, claim]): [StateNode, NodeClaim] =>
        claim.name === 'claim-z'
          ? [
              node,
              {
                ...claim,
                annotations: { ...claim.annotations, [ANNOTATIONS.disruptionCommand]: JSON.stringify(other) },
              },
            ]
          : [node, claim],
      );
      expect(commandStillValid(command, recorded(taken))).toBe(false);
    });
  });

  it('takes nothing when one of the three has a do-not-disrupt pod', () => {
    const s = cluster(missed({ 'karpenter.sh/do-not-disrupt': 'true' }));
    expect(decideDisruption(s, T0 + 60_000, gate).command).toBeUndefined();
  });

  it('takes nothing when the run is out of time', () => {
    expect(
      decideDisruption(cluster(missed()), T0 + 60_000, { ...gate, outOfTime: () => true }).command,
    ).toBeUndefined();
  });
});

describe('a Node that is not Ready, with GlobalConsolidation', () => {
  const gate = { spotToSpotConsolidation: false, globalConsolidation: true };
  const notReady = ([node, claim]: [StateNode, NodeClaim]): [StateNode, NodeClaim] => [
    { ...node, ready: false },
    claim,
  ];
  /** Empty nodes d (dead kubelet) and e, beside `ready` busy nodes, under a budget of one node. */
  const withDead = (dead: number, ready = 3) =>
    cluster(
      [
        ...Array.from({ length: dead }, (_, i) => notReady(m5xlargeMember(`d${i}`, []))),
        m5xlargeMember('e', []),
        ...Array.from({ length: ready }, (_, i) => m5xlargeMember(`r${i}`, [app(`r${i}p`, '3')])),
      ],
      '1',
    );

  it("is charged to the budget once: Karpenter's methods take nothing, podlift's take it (not e)", () => {
    // 5 nodes, budget 1, the dead one already disrupting: Karpenter charges it again as a
    // candidate; podlift does not, while e (Ready) still finds the budget spent by it.
    expect(decideDisruption(withDead(1), T0 + 60_000).command).toBeUndefined();
    expect(decideDisruption(withDead(1), T0 + 60_000, gate).command).toMatchObject({
      method: 'emptiness',
      candidates: ['claim-d0'],
    });
  });

  it('is charged as Karpenter charges it when more than 20 % of the NodePool is not Ready', () => {
    // 2 of 6 not Ready (33 %): a failure that wide is not the nodes'; 2 of 10 (20 %) still is.
    expect(decideDisruption(withDead(2), T0 + 60_000, gate).command).toBeUndefined();
    expect(decideDisruption(withDead(2, 7), T0 + 60_000, gate).command).toMatchObject({
      candidates: ['claim-d0', 'claim-d1'],
    });
  });

  it('leaves a Ready candidate charged: one Ready node at a time under a budget of one', () => {
    const s = cluster(
      [
        m5xlargeMember('e', []),
        m5xlargeMember('f', []),
        ...Array.from({ length: 3 }, (_, i) => m5xlargeMember(`r${i}`, [app(`r${i}p`, '3')])),
      ],
      '1',
    );
    expect(decideDisruption(s, T0 + 60_000, gate).command?.candidates).toStrictEqual(['claim-e']);
  });
});
