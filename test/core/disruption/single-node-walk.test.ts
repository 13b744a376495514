import { describe, expect, it } from 'vitest';
import { type Candidate, disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import {
  interleaveByNodePool,
  resumeMarkChanges,
  resumeOrder,
  walkCandidates,
} from '../../../shared/core/disruption/single-node-walk';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

// kubernetes-sigs/karpenter pkg/controllers/disruption/singlenodeconsolidation.go
// `ComputeCommands` (every candidate until `SingleNodeConsolidationTimeoutDuration`),
// `SortCandidates` / `shuffleCandidates` (NodePools interleaved), `PreviouslyUnseenNodePools`;
// singlenodeconsolidation_test.go "Candidate Shuffling" and the timeout cases.

const condition = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
});

function member(
  name: string,
  pods: readonly Pod[],
  { pool = 'default', price = 0.192, resume = false } = {},
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  return [
    stateNode({
      name,
      nodePool: pool,
      allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
      pods: pods.map((p) => ({ ...p, nodeName: name })),
      lifecycle: { providerID, ready: true },
    }),
    nodeClaim({
      name: `claim-${name}`,
      nodePool: pool,
      creationTimestamp: new Date(T0).toISOString(),
      labels: {
        'karpenter.sh/nodepool': pool,
        'karpenter.sh/capacity-type': 'on-demand',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
      },
      annotations: {
        'podlift.dev/hourly-price': String(price),
        ...(resume ? { 'podlift.dev/consolidation-resume': 'true' } : {}),
      },
      status: { providerID, conditions: [condition('Initialized'), condition('Consolidatable')] },
    }),
  ];
}

const web = (name: string, cpu = '500m') => pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet' });
const roomy = (name = 'default') => nodePool({ name, budgets: [{ nodes: '100%' }] });
/** A full node priced below anything that could replace it: never consolidated. */
const full = (i: number, o: { pool?: string; resume?: boolean } = {}) =>
  member(`full-${String(i).padStart(3, '0')}`, [web(`big-${i}`, '3900m')], { ...o, price: 0.001 });
/** Two small pods: a cheaper node holds them; fewest-pods-first puts it after the full ones. */
const last = (o: { resume?: boolean } = {}) => member('z', [web('z1'), web('z2')], o);
const names = (cs: readonly Candidate[]) => cs.map((c) => c.node.name);

describe('interleaveByNodePool (shuffleCandidates)', () => {
  it('takes the first of each NodePool, then the second of each, in the order the NodePools come', () => {
    const s = snapshotOf(
      [
        member('a1', [web('1')], { pool: 'a' }),
        member('a2', [web('2')], { pool: 'a' }),
        member('b1', [web('3')], { pool: 'b' }),
        member('a3', [web('4')], { pool: 'a' }),
        member('c1', [web('5')], { pool: 'c' }),
        member('c2', [web('6')], { pool: 'c' }),
      ],
      { nodePools: [roomy('a'), roomy('b'), roomy('c')] },
    );
    expect(names(interleaveByNodePool(disruptionCandidates(s)))).toStrictEqual([
      'a1',
      'b1',
      'c1',
      'a2',
      'c2',
      'a3',
    ]);
    expect(interleaveByNodePool([])).toStrictEqual([]);
  });
});

describe('resumeOrder', () => {
  const order = (marked?: number) =>
    disruptionCandidates(
      snapshotOf(
        [0, 1, 2, 3].map((i) => full(i, { resume: i === marked })),
        { nodePools: [roomy()] },
      ),
    );

  it('starts at the marked candidate, the ones before it last', () => {
    expect(names(resumeOrder(order(2)))).toStrictEqual(['full-002', 'full-003', 'full-000', 'full-001']);
  });

  it('starts at the top when nothing is marked, or the first is', () => {
    expect(names(resumeOrder(order()))).toStrictEqual(['full-000', 'full-001', 'full-002', 'full-003']);
    expect(names(resumeOrder(order(0)))).toStrictEqual(['full-000', 'full-001', 'full-002', 'full-003']);
  });
});

describe('walkCandidates', () => {
  const cs = disruptionCandidates(
    snapshotOf(
      [0, 1, 2, 3].map((i) => full(i)),
      { nodePools: [roomy()] },
    ),
  );

  it('stops when out of time, to start at the first it did not simulate', () => {
    const seen: string[] = [];
    const walked = walkCandidates(
      cs,
      (c) => {
        seen.push(c.node.name);
        return undefined;
      },
      () => seen.length >= 2,
    );
    expect(seen).toStrictEqual(['full-000', 'full-001']);
    expect(walked).toStrictEqual({ resumeAt: 'claim-full-002' });
  });

  it('simulates the first even when out of time already, so every run makes progress', () => {
    const seen: string[] = [];
    const walked = walkCandidates(
      cs,
      (c) => void seen.push(c.node.name),
      () => true,
    );
    expect(seen).toStrictEqual(['full-000']);
    expect(walked.resumeAt).toBe('claim-full-001');
  });

  it('returns the first found, to start after it; nothing to resume when it went round', () => {
    const found = walkCandidates(
      cs,
      (c) => (c.node.name === 'full-001' ? 'yes' : undefined),
      () => false,
    );
    expect(found.found?.candidate.node.name).toBe('full-001');
    expect(found.found?.result).toBe('yes');
    expect(found.resumeAt).toBe('claim-full-002');
    expect(
      walkCandidates(
        cs,
        (c) => (c.node.name === 'full-003' ? 1 : undefined),
        () => false,
      ).resumeAt,
    ).toBe(undefined);
    expect(
      walkCandidates(
        cs,
        () => undefined,
        () => false,
      ),
    ).toStrictEqual({});
  });
});

describe('decideDisruption: single-node consolidation walks every candidate', () => {
  it('reaches a consolidatable candidate past the first 100', () => {
    const within = Array.from({ length: 101 }, (_, i) => full(i));
    const { command, resumeAt } = decideDisruption(
      snapshotOf([...within, last()], { nodePools: [roomy()] }),
      T0,
    );
    expect(command).toMatchObject({ method: 'consolidation', candidates: ['claim-z'] });
    expect(resumeAt).toBeNull();
  });

  it('goes on where the last run ran out of time', () => {
    const members = [0, 1, 2, 3].map((i) => full(i));
    let simulated = 0;
    const budget = { spotToSpotConsolidation: false, outOfTime: () => ++simulated >= 3 };
    const first = decideDisruption(snapshotOf([...members, last()], { nodePools: [roomy()] }), T0, budget);
    expect(first.command).toBeUndefined();
    expect(first.resumeAt).toBe('claim-full-003');
    // The next run, the mark on full-003: z is reached within the same budget.
    simulated = 0;
    const marked = [full(0), full(1), full(2), full(3, { resume: true }), last()];
    const second = decideDisruption(snapshotOf(marked, { nodePools: [roomy()] }), T0, budget);
    expect(second.command).toMatchObject({ candidates: ['claim-z'] });
    // Without the mark the same budget never gets there.
    simulated = 0;
    const again = decideDisruption(snapshotOf([...members, last()], { nodePools: [roomy()] }), T0, budget);
    expect(again.command).toBeUndefined();
  });

  it('clears the mark once it went round every candidate without a command', () => {
    const marked = [full(0), full(1, { resume: true }), full(2)];
    expect(decideDisruption(snapshotOf(marked, { nodePools: [roomy()] }), T0).resumeAt).toBeNull();
  });

  it('leaves the mark alone when single-node consolidation does not walk', () => {
    const marked = [member('e', []), full(1, { resume: true })];
    const decided = decideDisruption(snapshotOf(marked, { nodePools: [roomy()] }), T0 + 60_000);
    expect(decided.command?.method).toBe('emptiness');
    expect(decided.resumeAt).toBeUndefined();
  });
});

describe('resumeMarkChanges', () => {
  const claims = [full(0), full(1, { resume: true }), full(2)].map(([, c]) => c);

  it('moves the mark to the NodeClaim to start at, touching only the two that change', () => {
    expect(resumeMarkChanges(claims, 'claim-full-002')).toStrictEqual([
      { nodeClaim: 'claim-full-001', mark: false },
      { nodeClaim: 'claim-full-002', mark: true },
    ]);
    expect(resumeMarkChanges(claims, 'claim-full-001')).toStrictEqual([]);
  });

  it('removes every mark when the walk went round, a stray one a crash left included', () => {
    const stray = [...claims, full(3, { resume: true })[1]];
    expect(resumeMarkChanges(stray, null)).toStrictEqual([
      { nodeClaim: 'claim-full-001', mark: false },
      { nodeClaim: 'claim-full-003', mark: false },
    ]);
  });
});
