import { describe, expect, it } from 'vitest';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { commandStillValid, decideDisruption } from '../../../shared/core/disruption/decide';
import { DRIFTED } from '../../../shared/core/disruption/drift';
import { staticDriftChoice, staticReplacementPlans } from '../../../shared/core/disruption/static-drift';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodeClass, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const condition = (type: string, minutes = 0): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: `${type} happened`,
  lastTransitionTime: at(minutes),
});

/** An initialized node `name` of static NodePool `pool`, drifted since minute `drifted` unless it is undefined. */
function member(
  name: string,
  pool: string,
  drifted: number | undefined,
  o: { annotations?: Record<string, string>; pods?: number } = {},
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: pool,
    pods: Array.from({ length: o.pods ?? 0 }, (_, i) => ({
      ...pod({ name: `${name}-p${i}`, ownerKind: 'ReplicaSet', cpu: '100m' }),
      nodeName: name,
    })),
    lifecycle: { providerID, ready: true, ...(o.annotations ? { annotations: o.annotations } : {}) },
  });
  const claim = nodeClaim({
    name: `claim-${name}`,
    nodePool: pool,
    annotations: { 'podlift.dev/hourly-price': '0.1' },
    status: {
      providerID,
      conditions: [
        condition('Launched'),
        condition('Initialized'),
        ...(drifted !== undefined ? [condition(DRIFTED, drifted)] : []),
      ],
    },
  });
  return [node, claim];
}

const fixed = (o: { name?: string; replicas: number; nodes?: number; budget?: string }): NodePool =>
  nodePool({
    name: o.name ?? 'fixed',
    replicas: o.replicas,
    ...(o.nodes !== undefined ? { limits: { nodes: o.nodes } } : {}),
    budgets: [{ nodes: o.budget ?? '100%' }],
  });

function world(pools: readonly NodePool[], members: readonly [StateNode, NodeClaim][]): ClusterSnapshot {
  return snapshotOf(members, { nodePools: pools });
}

/** The NodeClaims static drift would replace now, deciding as the disruption loop does. */
function replaced(snapshot: ClusterSnapshot): readonly string[] {
  const { command } = decideDisruption(snapshot, T0);
  expect(command === undefined || (command.method === 'drift' && command.replace)).toBe(true);
  return command?.candidates ?? [];
}

const many = (n: number, pool = 'fixed', o: { pods?: number } = {}) =>
  Array.from({ length: n }, (_, i) => member(`${pool}-${i}`, pool, i, o));

// kubernetes-sigs/karpenter pkg/controllers/disruption/staticdrift_test.go
describe('static drift', () => {
  it('replaces as many drifted nodes as the Drifted budget allows (Nodes count), the longest drifted first', () => {
    expect(replaced(world([fixed({ replicas: 3, budget: '2' })], many(3)))).toStrictEqual([
      'claim-fixed-0',
      'claim-fixed-1',
    ]);
  });

  it('respects a percentage budget', () => {
    // 10 % of 3 nodes rounds up to 1 (GetAllowedDisruptionsByReason).
    expect(replaced(world([fixed({ replicas: 3, budget: '10%' })], many(3)))).toStrictEqual([
      'claim-fixed-0',
    ]);
  });

  it('does not drift nodes when the node limit leaves no room for a replacement', () => {
    expect(replaced(world([fixed({ replicas: 5, nodes: 5 })], many(5)))).toStrictEqual([]);
    const { passedOver } = decideDisruption(world([fixed({ replicas: 5, nodes: 5 })], many(5)), T0);
    expect(passedOver[0].why).toBe("static NodePool fixed's node limit leaves no room for a replacement");
  });

  it('drifts as many as the limit leaves room for, all of them when it leaves room for all', () => {
    expect(replaced(world([fixed({ replicas: 5, nodes: 7 })], many(5)))).toHaveLength(2);
    expect(replaced(world([fixed({ replicas: 5, nodes: 5 })], many(2)))).toHaveLength(2);
    const { passedOver } = decideDisruption(world([fixed({ replicas: 5, nodes: 7 })], many(5)), T0);
    expect(passedOver.map((p) => p.why)).toStrictEqual(
      Array(3).fill("the NodePool's node limit leaves no room for another replacement"),
    );
  });

  it('waits until the NodePool is scaled down to its replicas', () => {
    const pool = fixed({ replicas: 1 });
    expect(replaced(world([pool], many(2)))).toStrictEqual([]);
    const { passedOver } = decideDisruption(world([pool], many(2)), T0);
    expect(passedOver[0].why).toBe(
      'static NodePool fixed has 2 NodeClaims for 1 replicas; waiting for it to scale down',
    );
    expect(replaced(world([pool], many(1)))).toStrictEqual(['claim-fixed-0']);
  });

  it('handles several static NodePools independently, each within its own budget', () => {
    const pools = [
      fixed({ name: 'a', replicas: 2, budget: '1' }),
      fixed({ name: 'b', replicas: 2, budget: '2' }),
    ];
    expect(replaced(world(pools, [...many(2, 'a'), ...many(2, 'b')]))).toStrictEqual([
      'claim-a-0',
      'claim-b-0',
      'claim-b-1',
    ]);
  });

  it('does nothing for zero replicas or a budget of 0, and passes the candidates over saying why', () => {
    expect(replaced(world([fixed({ replicas: 0 })], []))).toStrictEqual([]);
    const { passedOver } = decideDisruption(world([fixed({ replicas: 2, budget: '0' })], many(2)), T0);
    expect(passedOver.map((p) => p.why)).toStrictEqual(
      Array(2).fill("the NodePool's disruption budget for Drifted allows no more nodes now"),
    );
  });

  it('ignores nodes without Drifted=True and nodes with karpenter.sh/do-not-disrupt', () => {
    const pool = fixed({ replicas: 3 });
    const notDrifted = member('quiet', 'fixed', undefined);
    const pinned = member('pinned', 'fixed', 0, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const falseDrift: [StateNode, NodeClaim] = (() => {
      const [n, c] = member('false', 'fixed', 0);
      const conditions = (c.status.conditions ?? []).map((k) =>
        k.type === DRIFTED ? { ...k, status: 'False' as const } : k,
      );
      return [n, { ...c, status: { ...c.status, conditions } }];
    })();
    expect(replaced(world([pool], [notDrifted, pinned, falseDrift]))).toStrictEqual([]);
    const { passedOver } = decideDisruption(world([pool], [notDrifted, pinned, falseDrift]), T0);
    expect(passedOver).toStrictEqual([
      { nodeClaim: 'claim-pinned', node: 'pinned', why: 'the Node has karpenter.sh/do-not-disrupt' },
    ]);
  });

  it('replaces a busy static node from the template whatever its pods, before drift of dynamic NodePools', () => {
    const dynamic = member('dyn', 'default', 0);
    const snapshot = world([fixed({ replicas: 1 }), nodePool()], [many(1, 'fixed', { pods: 3 })[0], dynamic]);
    const { command } = decideDisruption(snapshot, T0);
    expect(command).toMatchObject({
      method: 'drift',
      reason: 'Drifted',
      candidates: ['claim-fixed-0'],
      replace: true,
      savings: 0,
      detail: 'Drifted happened',
    });
    expect(commandStillValid(command as NonNullable<typeof command>, snapshot)).toBe(true);
  });

  it("counts only the NodePool's own NodeClaims against its replicas, and says which bound stopped the rest", () => {
    const others = many(2, 'other');
    const snapshot = world(
      [fixed({ replicas: 1, nodes: 2, budget: '1' }), nodePool({ name: 'other' })],
      [...many(1), ...others],
    );
    expect(replaced(snapshot)).toStrictEqual(['claim-fixed-0']);
    // A budget for another reason does not hold static drift back.
    const otherReason = nodePool({
      name: 'fixed',
      replicas: 1,
      budgets: [{ nodes: '0', reasons: ['Underutilized'] }],
    });
    expect(replaced(world([otherReason], many(1)))).toStrictEqual(['claim-fixed-0']);
    // Budget and room both 1: the budget is named.
    const two = world([fixed({ replicas: 2, nodes: 3, budget: '1' })], many(2));
    expect(decideDisruption(two, T0).passedOver.map((p) => p.why)).toStrictEqual([
      "the NodePool's disruption budget for Drifted allows no more nodes now",
    ]);
  });

  it('counts deleting NodeClaims out of the NodePool, as Karpenter counts active ones', () => {
    const [n, c] = member('gone', 'fixed', undefined);
    const gone: [StateNode, NodeClaim] = [n, { ...c, deletionTimestamp: at(0) }];
    const snapshot = world([fixed({ replicas: 1, nodes: 2 })], [...many(1), gone]);
    expect(replaced(snapshot)).toStrictEqual(['claim-fixed-0']);
  });
});

describe('staticDriftChoice', () => {
  it('passes over a blocked candidate without spending the budget on it', () => {
    const pool = fixed({ replicas: 2, budget: '1' });
    const snapshot = world([pool], [member('pinned', 'fixed', 0, { pods: 0 }), member('free', 'fixed', 1)]);
    const candidates = disruptionCandidates(snapshot).map((c, i) =>
      i === 0 ? { ...c, eventualBlocked: 'blocked for a test' } : c,
    );
    const choice = staticDriftChoice(candidates, snapshot, () => 1);
    expect(choice.chosen.map((c) => c.claim.name)).toStrictEqual(['claim-free']);
    expect(choice.passedOver.map((p) => p.why)).toStrictEqual(['blocked for a test']);
  });
});

describe('staticDriftChoice: budgets', () => {
  const budget = "the NodePool's disruption budget for Drifted allows no more nodes now";

  it("asks for the NodePool's Drifted budget (staticdrift.go Reason: DisruptionReasonDrifted)", () => {
    const snapshot = world([fixed({ replicas: 1 })], many(1));
    const choice = staticDriftChoice(disruptionCandidates(snapshot), snapshot, (_, reason) =>
      reason === 'Drifted' ? 1 : 0,
    );
    expect(choice.chosen.map((c) => c.claim.name)).toStrictEqual(['claim-fixed-0']);
  });

  it('names a budget of 0 before a scale-down under way or a blocked candidate, as ComputeCommands checks it first', () => {
    // staticdrift.go ComputeCommands: `if disruptionBudgetMapping[npName] == 0 { continue }`
    // comes before the replicas check.
    const over = world([fixed({ replicas: 1 })], many(2));
    const candidates = disruptionCandidates(over).map((c, i) =>
      i === 0 ? { ...c, eventualBlocked: 'blocked for a test' } : c,
    );
    const choice = staticDriftChoice(candidates, over, () => 0);
    expect(choice.chosen).toStrictEqual([]);
    expect(choice.passedOver.map((p) => p.why)).toStrictEqual([budget, budget]);
  });
});

describe('staticReplacementPlans', () => {
  it('plans one NodeClaim from the template per static candidate, none for dynamic ones', () => {
    const pool = nodePool({
      name: 'fixed',
      replicas: 2,
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
    });
    const snapshot = snapshotOf(
      [member('a', 'fixed', 0), member('b', 'fixed', 0), member('c', 'default', 0)],
      {
        nodePools: [pool, nodePool()],
      },
    );
    const { plans, missing } = staticReplacementPlans(disruptionCandidates(snapshot), snapshot);
    expect(missing).toBe(0);
    expect(plans.map((p) => [p.nodePool, p.instanceType, p.pods.length])).toStrictEqual([
      ['fixed', 'm5.large', 0],
      ['fixed', 'm5.large', 0],
    ]);
    expect(staticReplacementPlans([], snapshot)).toStrictEqual({ plans: [], missing: 0 });
  });

  it('counts the candidates it cannot plan for: no catalog, or no instance type the NodePool allows', () => {
    const impossible = nodePool({
      name: 'fixed',
      replicas: 1,
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['x9.huge'] }],
    });
    const snapshot = snapshotOf([member('a', 'fixed', 0)], {
      nodePools: [impossible],
      nodeClasses: [nodeClass()],
    });
    const candidates = disruptionCandidates(snapshot);
    expect(staticReplacementPlans(candidates, snapshot)).toStrictEqual({ plans: [], missing: 1 });
    expect(staticReplacementPlans(candidates, { ...snapshot, catalog: undefined })).toStrictEqual({
      plans: [],
      missing: 1,
    });
    // A NodePool whose EC2NodeClass is gone has no instance types (plan-capacity.ts
    // `instanceTypesByNodePool`), so nothing to replace with either.
    const orphaned = nodePool({ name: 'fixed', replicas: 1, nodeClass: 'gone' });
    const withoutClass = snapshotOf([member('a', 'fixed', 0)], { nodePools: [orphaned] });
    expect(staticReplacementPlans(disruptionCandidates(withoutClass), withoutClass)).toStrictEqual({
      plans: [],
      missing: 1,
    });
  });
});
