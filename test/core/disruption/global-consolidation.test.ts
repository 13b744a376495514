import { describe, expect, it } from 'vitest';
import { nodePoolTotals } from '../../../shared/core/disruption/balanced';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import { globalConsolidation } from '../../../shared/core/disruption/global-consolidation';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { m5xlargeMember, snapshotOf, T0 } from './snapshot';

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
    const plan = step?.consolidation.action === 'replace' ? step.consolidation.plan : undefined;
    expect(plan).toMatchObject({ instanceType: 'm5.2xlarge', capacityType: 'on-demand' });
    expect(plan?.pods).toHaveLength(6);
    // Saving $0.192 of the pool's $0.960/h (0.2) for 9 of its 25 disruption (0.36): 0.56 ≥ 1/2.
    expect(step?.consolidation.savings).toBeCloseTo(0.192, 9);
    expect(step?.detail).toBe(
      `global consolidation saves $0.1920/h: moves 6 pod(s) off a, b, c onto one new m5.2xlarge (on-demand, $${plan?.price.toFixed(4)}/h) and the nodes that stay`,
    );
  });

  it("takes nothing under Balanced's threshold: the three are the whole pool and save a third of its cost", () => {
    // The move causes all of the pool's disruption (fraction 1), so it must save at least half
    // the pool's $0.576/h; the m5.2xlarge leaves $0.192/h, a third.
    const s = cluster(threeHalfEmpty());
    expect(globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s))).toBeUndefined();
  });

  it('takes nothing when the planned fleet is not cheaper than the candidates', () => {
    const full = (n: string) => [app(`${n}1`, '1900m'), app(`${n}2`, '1900m')];
    const s = cluster([m5xlargeMember('a', full('a')), m5xlargeMember('b', full('b')), busy('x'), busy('y')]);
    expect(globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s))).toBeUndefined();
  });

  it('leaves out a candidate whose pods do not fit with the others on one new node', () => {
    // d's 3.8 cpu does not fit with the others on one new node; a, b and c still go together.
    const s = cluster([
      m5xlargeMember('d', [app('d1', '1900m'), app('d2', '1900m')]),
      ...threeHalfEmpty(),
      busy('x'),
      busy('y'),
    ]);
    const step = globalConsolidation(disruptionCandidates(s), s, nodePoolTotals(s));
    expect(step?.candidates.map((c) => c.node.name).sort()).toStrictEqual(['a', 'b', 'c']);
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
      /^global consolidation saves \$0\.1920\/h: moves 3 pod\(s\) off x, y, z onto one new m5\.2xlarge/,
    );
  });

  it('takes nothing past the budget: two nodes of the three are not enough', () => {
    expect(decideDisruption(cluster(missed(), '2'), T0 + 60_000, gate).command).toBeUndefined();
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
