import { describe, expect, it } from 'vitest';
import { balancedApproves, nodePoolTotals, scoreMove } from '../../../shared/core/disruption/balanced';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import { multiNodeConsolidation } from '../../../shared/core/disruption/methods';
import { evictionCost } from '../../../shared/core/model/eviction-cost';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
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
