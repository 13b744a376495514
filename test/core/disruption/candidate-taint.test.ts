import { describe, expect, it } from 'vitest';
import {
  CANDIDATE_TAINT,
  candidateNodes,
  candidateTaintChanges,
} from '../../../shared/core/disruption/candidate-taint';
import { MAX_CONSOLIDATION_SIMULATIONS } from '../../../shared/core/disruption/decide';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod } from '../../../sim/world/builders';
import { condition, m5xlargeMember, snapshotOf, T0 } from './snapshot';

// The Candidate state of kubernetes-sigs/karpenter issue #624: a node Karpenter would disrupt
// carries a PreferNoSchedule taint, and leaves candidacy as soon as it is no longer one.
const app = (name: string, cpu: string, annotations?: Record<string, string>): Pod => ({
  ...pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet' }),
  ...(annotations ? { annotations } : {}),
});
/** An m5.xlarge with no room left and a 3.5-cpu pod no other node holds: never a candidate's target. */
const full = (node: string) => m5xlargeMember(node, [app(`${node}1`, '3500m')]);
/** Within consolidateAfter of its last pod event: Initialized, not Consolidatable. */
const recent = ([node, claim]: [StateNode, NodeClaim]): [StateNode, NodeClaim] => [
  node,
  { ...claim, status: { ...claim.status, conditions: [condition('Initialized')] } },
];
const withNode = (
  [node, claim]: [StateNode, NodeClaim],
  more: Partial<StateNode>,
): [StateNode, NodeClaim] => [{ ...node, ...more }, claim];
/** On-demand m5 only, so the prices are hand-checkable; the budget and policy as given. */
const m5Pool = (more: { budget?: string; policy?: NodePool['disruption']['consolidationPolicy'] } = {}) => {
  const base = nodePool({
    requirements: [
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ],
  });
  return {
    ...base,
    disruption: {
      ...base.disruption,
      budgets: [{ nodes: more.budget ?? '100%' }],
      ...(more.policy ? { consolidationPolicy: more.policy } : {}),
    },
  };
};
const cluster = (members: readonly [StateNode, NodeClaim][], pool: NodePool = m5Pool()) =>
  snapshotOf(members, { nodePools: [pool] });
const global = { spotToSpotConsolidation: false, globalConsolidation: true };
const karpenters = { spotToSpotConsolidation: false, globalConsolidation: false };
const sorted = (names: Set<string>) => [...names].sort();

describe('candidateNodes: where consolidation is heading', () => {
  /** An m5.xlarge ($0.192/h) running one 500m pod. */
  const light = (node: string) => m5xlargeMember(node, [app(`${node}1`, '500m')]);

  it('takes the nodes of the next step before consolidateAfter has passed, and the empty nodes', () => {
    // a, b, c: 1.5 cpu onto one new m5.large ($0.096/h for $0.576/h); f stays; e is empty.
    const members = [
      recent(light('a')),
      recent(light('b')),
      recent(light('c')),
      recent(m5xlargeMember('e', [])),
      full('f'),
    ];
    expect(sorted(candidateNodes(cluster(members), global))).toEqual(['a', 'b', 'c', 'e']);
    expect(sorted(candidateNodes(cluster(members), karpenters))).toEqual(['a', 'b', 'c', 'e']);
  });

  it('takes them whatever the budget allows now', () => {
    const members = [light('a'), light('b'), full('f')];
    expect(sorted(candidateNodes(cluster(members, m5Pool({ budget: '0%' })), global))).toEqual(['a', 'b']);
  });

  it('does not count the empty nodes as room: emptiness takes them first', () => {
    // f's 3.5 cpu would fit on e, were e staying.
    expect(sorted(candidateNodes(cluster([m5xlargeMember('e', []), full('f')]), global))).toEqual(['e']);
  });

  it('takes none of the busy nodes when no step saves', () => {
    expect(sorted(candidateNodes(cluster([full('f'), full('g')]), global))).toEqual([]);
    expect(sorted(candidateNodes(cluster([full('f'), full('g')]), karpenters))).toEqual([]);
  });

  /** A node that stays, with room for a 500m pod: a do-not-disrupt pod keeps it. */
  const kept = (node: string) =>
    m5xlargeMember(node, [app(`${node}1`, '3', { 'karpenter.sh/do-not-disrupt': 'true' })]);

  it("without the global gate, single-node's first move when multi-node has none", () => {
    // Only a is a candidate: multi-node needs two; single-node deletes a onto s.
    expect(sorted(candidateNodes(cluster([light('a'), kept('s')]), karpenters))).toEqual(['a']);
  });

  it('stops the single-node walk when out of time, taking nothing past it', () => {
    // f cannot move, g can; f comes first (as many pods, as dear, listed first).
    const members = [full('f'), light('g'), kept('s')];
    expect(sorted(candidateNodes(cluster(members), karpenters))).toEqual(['g']);
    expect(sorted(candidateNodes(cluster(members), { ...karpenters, outOfTime: () => true }))).toEqual([]);
  });

  it('leaves out nodes a do-not-disrupt pod or annotation keeps, busy or empty', () => {
    const members = [kept('s'), light('b'), light('c')];
    expect(sorted(candidateNodes(cluster(members), global))).toEqual(['b', 'c']);
    const keep = { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
    expect(sorted(candidateNodes(cluster([withNode(m5xlargeMember('e', []), keep)]), global))).toEqual([]);
  });

  it('leaves out empty nodes when consolidateAfter is Never', () => {
    const never = m5Pool();
    const pool = { ...never, disruption: { ...never.disruption, consolidateAfter: 'Never' } };
    expect(sorted(candidateNodes(cluster([m5xlargeMember('e', [])], pool), global))).toEqual([]);
  });

  it('takes only empty nodes under WhenEmpty, and none of a static NodePool', () => {
    const members = [light('a'), light('b'), m5xlargeMember('e', [])];
    expect(sorted(candidateNodes(cluster(members, m5Pool({ policy: 'WhenEmpty' })), global))).toEqual(['e']);
    expect(sorted(candidateNodes(cluster(members, { ...m5Pool(), replicas: 3 }), global))).toEqual([]);
  });

  it('takes the nodes of a recorded command, even under consolidateAfter: Never, unless now kept', () => {
    const base = m5Pool();
    const never = { ...base, disruption: { ...base.disruption, consolidateAfter: 'Never' } };
    const command = ([node, claim]: [StateNode, NodeClaim]): [StateNode, NodeClaim] => [
      node,
      { ...claim, annotations: { ...claim.annotations, 'podlift.dev/disruption-command': '{"id":"x"}' } },
    ];
    // Its pods go with the command (commands-in-flight.ts): a do-not-disrupt pod no longer keeps it.
    expect(sorted(candidateNodes(cluster([command(kept('a')), full('f')], never), global))).toEqual(['a']);
    expect(sorted(candidateNodes(cluster([kept('a'), full('f')], never), global))).toEqual([]);
    const annotated = withNode(command(light('b')), {
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    });
    expect(sorted(candidateNodes(cluster([annotated, full('f')]), global))).toEqual([]);
  });

  it("leaves out a command's replacements, empty as they are, while its candidates' pods move", () => {
    // a drains (deleted, its pod still on it); r was launched for that pod and holds none yet.
    const draining = ([node, claim]: [StateNode, NodeClaim]): [StateNode, NodeClaim] => [
      node,
      {
        ...claim,
        deletionTimestamp: new Date(T0).toISOString(),
        annotations: { ...claim.annotations, 'podlift.dev/disruption-command': '{"id":"x"}' },
      },
    ];
    const [rn, rc] = m5xlargeMember('r', []);
    const replacement: [StateNode, NodeClaim] = [
      rn,
      { ...rc, annotations: { ...rc.annotations, 'podlift.dev/replaces': 'x' } },
    ];
    expect(sorted(candidateNodes(cluster([draining(light('a')), replacement, full('f')]), global))).toEqual(
      [],
    );
    // Once a's pods have moved (elsewhere, here), the empty replacement is on its way out.
    const [an, ac] = draining(light('a'));
    const drained: [StateNode, NodeClaim] = [{ ...an, pods: [] }, ac];
    expect(sorted(candidateNodes(cluster([drained, replacement, full('f')]), global))).toEqual(['r']);
  });

  /** Many pods of 100m on one node: a large share of the NodePool's disruption. */
  const crowded = (node: string) =>
    m5xlargeMember(
      node,
      Array.from({ length: 6 }, (_, i) => app(`${node}${i}`, '100m')),
    );

  it("holds the global step to Balanced's threshold whatever the policy, as the decision does", () => {
    // Deleting c onto s saves a fifth of the NodePool's cost for 7/15 of its disruption: 0.43 < ½.
    const members = [crowded('c'), kept('s'), full('f'), full('g'), full('h')];
    expect(sorted(candidateNodes(cluster(members), global))).toEqual([]);
    expect(sorted(candidateNodes(cluster(members), karpenters))).toEqual(['c']);
    expect(sorted(candidateNodes(cluster(members, m5Pool({ policy: 'Balanced' })), karpenters))).toEqual([]);
  });

  it("holds single-node's move to Balanced's threshold: a replacement that saves too little", () => {
    // Deleted, d would pass (CanPassThreshold); replaced by an m5.large it saves half as much: 0.375 < ½.
    const d = m5xlargeMember('d', [app('d1', '700m'), app('d2', '700m')]);
    const members = [d, full('f'), full('g'), full('h')];
    expect(sorted(candidateNodes(cluster(members), karpenters))).toEqual(['d']);
    expect(sorted(candidateNodes(cluster(members, m5Pool({ policy: 'Balanced' })), karpenters))).toEqual([]);
  });

  it('walks the dearer of nodes with as many pods first', () => {
    // Priced below any replacement, so no merge saves; each 2-cpu pod fits on s alone.
    const two = (node: string, price: number) => m5xlargeMember(node, [app(`${node}1`, '2')], { price });
    const roomy = m5xlargeMember('s', [app('s1', '1500m', { 'karpenter.sh/do-not-disrupt': 'true' })]);
    const members = [two('a', 0.05), two('b', 0.07), two('c', 0.06), roomy];
    expect(sorted(candidateNodes(cluster(members), karpenters))).toEqual(['b']);
  });

  it(`searches at most ${MAX_CONSOLIDATION_SIMULATIONS} candidates for a multi-node step`, () => {
    const many = Array.from({ length: MAX_CONSOLIDATION_SIMULATIONS + 1 }, (_, i) =>
      m5xlargeMember(`n${String(i).padStart(3, '0')}`, [app(`p${i}`, '100m')]),
    );
    // Its binary search over the first 100 lands on 99 of them; over all 101 it would land on 97.
    const names = candidateNodes(cluster(many), karpenters);
    expect([names.size, names.has('n100')]).toEqual([99, false]);
  });
});

describe('candidateTaintChanges', () => {
  const tainted = (m: [StateNode, NodeClaim]) => withNode(m, { taints: [CANDIDATE_TAINT] });

  it('puts the taint on candidates that lack it and takes it off nodes that are no longer', () => {
    const members = [
      m5xlargeMember('e', []),
      tainted(m5xlargeMember('k', [])),
      tainted(full('f')),
      withNode(full('g'), { taints: [{ key: CANDIDATE_TAINT.key, effect: 'NoSchedule' }] }),
    ];
    expect(candidateTaintChanges(cluster(members), true, global)).toEqual([
      { node: 'e', taint: true },
      { node: 'f', taint: false },
    ]);
  });

  it('takes every one off when the gate is off, and puts none on', () => {
    const members = [m5xlargeMember('e', []), tainted(m5xlargeMember('k', [])), full('f')];
    expect(candidateTaintChanges(cluster(members), false, global)).toEqual([{ node: 'k', taint: false }]);
  });

  it('leaves nodes being deleted and NodeClaims not registered yet alone', () => {
    const members = [
      withNode(m5xlargeMember('d', []), { deleting: true }),
      withNode(tainted(full('x')), { deleting: true }),
      withNode(m5xlargeMember('n', []), { kind: 'nodeclaim' }),
    ];
    expect(candidateTaintChanges(cluster(members), true, global)).toEqual([]);
  });
});
