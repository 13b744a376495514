import { describe, expect, it } from 'vitest';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import { simulateConsolidation } from '../../../shared/core/disruption/methods';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { m5xlargeMember, snapshotOf, T0 } from './snapshot';

/** A registered, initialized m5.xlarge of NodePool default, `price` $/h, running `pods`. */
const member = (name: string, pods: readonly Pod[], price = 0.192, capacityType = 'on-demand') =>
  m5xlargeMember(name, pods, { price, capacityType });

function snapshot(members: readonly [StateNode, NodeClaim][], pool = nodePool()): ClusterSnapshot {
  return snapshotOf(members, { nodePools: [pool] });
}

const web = (name: string, cpu = '500m') => pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet' });

describe('simulateConsolidation', () => {
  it('counts pending pods first: no deletion onto room they are about to take', () => {
    const s = snapshot([member('a', [web('a1')]), member('b', [web('b1', '3')])]);
    const [a] = disruptionCandidates(s);
    expect(simulateConsolidation(a, s)?.action).toBe('delete');
    // Pending pods are about to fill what b has left: a's pod no longer fits there, so a goes
    // only if a replacement is launched for it first.
    const pending = ['p1', 'p2', 'p3'].map((n) => web(n, '300m'));
    expect(simulateConsolidation(a, { ...s, pendingPods: pending })?.action).not.toBe('delete');
  });

  it('does not rely on a node that is not initialized yet', () => {
    const [b, claimB] = member('b', []);
    const starting: [StateNode, NodeClaim] = [b, { ...claimB, status: { ...claimB.status, conditions: [] } }];
    const s = snapshot([member('a', [web('a1')]), starting]);
    const a = disruptionCandidates(s).find((c) => c.node.name === 'a');
    expect(a).toBeDefined();
    expect(simulateConsolidation(a!, s)).toBeUndefined();
  });

  it("lets pending pods wait on a starting node: only the candidates' pods must not (helpers.go UninitializedNodeError)", () => {
    const [c, claimC] = member('c', []);
    const starting: [StateNode, NodeClaim] = [c, { ...claimC, status: { ...claimC.status, conditions: [] } }];
    const s = snapshot([member('a', [web('a1')]), member('b', [web('b1', '3')]), starting]);
    const a = disruptionCandidates(s).find((x) => x.node.name === 'a');
    // The pending pod only fits on c, which is still starting; a's pod fits on b.
    const pending = [web('p1', '3500m')];
    expect(simulateConsolidation(a!, { ...s, pendingPods: pending })?.action).toBe('delete');
  });

  it('schedules the pods of a node being deleted for another reason first, and counts no room on it', () => {
    // x expires (deleted, no disruption command): its 2.5-cpu pod takes b's room, so a's pod
    // does not fit on b — nor on x, which is going.
    const [x, claimX] = member('x', [web('x1', '2500m')]);
    const expiring: [StateNode, NodeClaim] = [
      x,
      { ...claimX, deletionTimestamp: new Date(T0).toISOString() },
    ];
    const open = nodePool({ budgets: [{ nodes: '100%' }] });
    // b's pod has no controller: b is no candidate, only room.
    const b = member('b', [pod({ name: 'b1', cpu: '1', memory: '512Mi' })]);
    const s = snapshot([member('a', [web('a1', '1')]), b, expiring], open);
    const decided = decideDisruption(s, T0 + 60_000);
    expect(decided.command).toBeDefined();
    expect(decided.command?.replace).not.toBe(false);
  });

  it('deletes a node whose pods fit on the others', () => {
    const s = snapshot([member('a', [web('a1'), web('a2')]), member('b', [web('b1')])]);
    const [, b] = disruptionCandidates(s);
    expect(simulateConsolidation(b, s)).toStrictEqual({ action: 'delete', savings: 0.192 });
  });

  it('replaces a lone node with a cheaper one that holds its pods', () => {
    const s = snapshot([member('a', [web('a1', '250m')])]);
    const [a] = disruptionCandidates(s);
    const result = simulateConsolidation(a, s);
    expect(result?.action).toBe('replace');
    expect(result && result.action === 'replace' ? result.plans[0].price : Number.NaN).toBeLessThan(0.192);
    expect(result?.savings).toBeGreaterThan(0);
  });

  it('does nothing when no cheaper node would hold the pods', () => {
    const s = snapshot([member('a', [web('a1', '3'), web('a2', '700m')], 0.0001)]);
    const [a] = disruptionCandidates(s);
    expect(simulateConsolidation(a, s)).toBeUndefined();
  });

  it('moves spot to spot only with the gate on and at least 15 cheaper spot types to choose from', () => {
    const pool = nodePool({
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
    });
    const narrow = nodePool({
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
        {
          key: 'node.kubernetes.io/instance-type',
          operator: 'In',
          values: ['t3.small', 't3.medium', 'm5.xlarge'],
        },
      ],
    });
    const spot = member('a', [web('a1', '250m')], 0.2, 'spot');
    const gate = { spotToSpotConsolidation: true };
    const wide = snapshot([spot], pool);
    expect(simulateConsolidation(disruptionCandidates(wide)[0], wide, gate)?.action).toBe('replace');
    expect(simulateConsolidation(disruptionCandidates(wide)[0], wide)).toBeUndefined();
    const few = snapshot([spot], narrow);
    expect(simulateConsolidation(disruptionCandidates(few)[0], few, gate)).toBeUndefined();
  });
});

describe('decideDisruption: consolidation', () => {
  it('records a delete command for the node with the fewest pods, saving its price', () => {
    const s = snapshot([member('a', [web('a1'), web('a2')]), member('b', [web('b1')])]);
    const { command } = decideDisruption(s, T0 + 60_000);
    expect(command).toMatchObject({
      method: 'consolidation',
      reason: 'Underutilized',
      candidates: ['claim-b'],
      replace: false,
      savings: 0.192,
    });
  });

  it('takes several nodes at once when the budget allows: two nodes whose pods fit on the third', () => {
    const base = nodePool();
    const open = { ...base, disruption: { ...base.disruption, budgets: [{ nodes: '100%' }] } };
    const s = snapshot([member('a', [web('a1')]), member('b', [web('b1')]), member('c', [web('c1')])], open);
    const { command } = decideDisruption(s, T0 + 60_000);
    expect(command).toMatchObject({ candidates: ['claim-a', 'claim-b'], replace: false });
    expect(command?.savings).toBeCloseTo(0.384, 6);
  });

  it('passes over a node with a pod that has no controller, and says so', () => {
    const bare = pod({ name: 'bare', cpu: '100m' });
    const s = snapshot([member('a', [web('a1'), web('a2')]), member('b', [bare])]);
    const { command, passedOver } = decideDisruption(s, T0 + 60_000);
    expect(command?.candidates).toStrictEqual(['claim-a']);
    expect(passedOver).toContainEqual({
      nodeClaim: 'claim-b',
      node: 'b',
      why: 'pod default/bare has no controller',
    });
  });

  it('consolidates nothing under WhenEmpty', () => {
    const base = nodePool();
    const whenEmpty = {
      ...base,
      disruption: { ...base.disruption, consolidationPolicy: 'WhenEmpty' as const },
    };
    const s = snapshot([member('a', [web('a1')]), member('b', [web('b1')])], whenEmpty);
    expect(decideDisruption(s, T0 + 60_000).command).toBeUndefined();
  });
});

describe('decideDisruption: candidates within the budget before the search', () => {
  const withBudget = (nodes: string) => {
    const base = nodePool();
    return { ...base, disruption: { ...base.disruption, budgets: [{ nodes }] } };
  };
  /** `count` m5.xlarge nodes with one 500m pod each: any few of them fit on the rest. */
  const underused = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const name = `n${String(i).padStart(2, '0')}`;
      return member(name, [web(`${name}-web`)]);
    });
  const names = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `claim-n${String(from + i).padStart(2, '0')}`);

  it('deletes 5 of 50 under-used nodes in one multi-node command under the 10 % budget', () => {
    const s = snapshot(underused(50), withBudget('10%'));
    const { command } = decideDisruption(s, T0 + 60_000);
    expect(command).toMatchObject({ method: 'consolidation', replace: false, candidates: names(0, 5) });
    expect(command?.savings).toBeCloseTo(5 * 0.192, 6);
  });

  it('takes as many as a count budget allows', () => {
    const { command } = decideDisruption(snapshot(underused(50), withBudget('2')), T0 + 60_000);
    expect(command?.candidates).toStrictEqual(names(0, 2));
  });

  it('counts the nodes already disrupting against the budget', () => {
    const members = underused(50).map(([node, claim], i): [StateNode, NodeClaim] =>
      i >= 47 ? [node, { ...claim, deletionTimestamp: new Date(T0).toISOString() }] : [node, claim],
    );
    const { command } = decideDisruption(snapshot(members, withBudget('10%')), T0 + 60_000);
    expect(command?.candidates).toStrictEqual(names(0, 2));
  });

  it('leaves uninitialized NodeClaims out of the total a percentage budget is taken of', () => {
    // 40 working nodes and 10 replacements still booting: 10 % of 40 is 4, not 10 % of 50.
    const members = underused(50).map(([node, claim], i): [StateNode, NodeClaim] =>
      i >= 40 ? [node, { ...claim, status: { ...claim.status, conditions: [] } }] : [node, claim],
    );
    const { command } = decideDisruption(snapshot(members, withBudget('10%')), T0 + 60_000);
    expect(command?.candidates).toStrictEqual(names(0, 4));
  });

  it('counts a NotReady node as disrupting, as Karpenter does', () => {
    const members = underused(50).map(([node, claim], i): [StateNode, NodeClaim] =>
      i >= 48 ? [{ ...node, ready: false }, claim] : [node, claim],
    );
    const { command } = decideDisruption(snapshot(members, withBudget('10%')), T0 + 60_000);
    expect(command?.candidates).toHaveLength(3);
    expect(command?.candidates).not.toContain('claim-n48');
  });

  it('decides nothing under a budget of 0, and says why for each node', () => {
    const { command, passedOver } = decideDisruption(snapshot(underused(50), withBudget('0')), T0 + 60_000);
    expect(command).toBeUndefined();
    expect(passedOver).toHaveLength(50);
    expect(passedOver[0]).toStrictEqual({
      nodeClaim: 'claim-n00',
      node: 'n00',
      why: "the NodePool's disruption budget for Underutilized allows no more nodes now",
    });
  });

  it('empties as many empty nodes as the Empty budget allows, in one command', () => {
    const { command, passedOver } = decideDisruption(
      snapshot(
        underused(50).map(([node]) => member(node.name, [])),
        withBudget('10%'),
      ),
      T0 + 3_600_000,
    );
    expect(command).toMatchObject({ method: 'emptiness', candidates: names(0, 5) });
    expect(passedOver).toHaveLength(45);
  });
});
