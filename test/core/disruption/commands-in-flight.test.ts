import { describe, expect, it } from 'vitest';
import { commandIdOf, underCommand } from '../../../shared/core/disruption/command-record';
import {
  besideCommandsInFlight,
  commandStartedAt,
  commandTimeoutMs,
  DISRUPTION_REASON,
  staleDisruptionMarks,
  whyNotDeleteNow,
} from '../../../shared/core/disruption/commands-in-flight';
import {
  commandStillValid,
  decideDisruption,
  unconsolidatableBecause,
} from '../../../shared/core/disruption/decide';
import type { DisruptionCommand } from '../../../shared/core/disruption/methods';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { PodDisruptionBudget, StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const iso = (ms: number) => new Date(ms).toISOString();
const condition = (type: string, at = T0, status: Condition['status'] = 'True'): Condition => ({
  type,
  status,
  reason: type,
  message: '',
  lastTransitionTime: iso(at),
});
const web = (name: string, cpu = '500m') =>
  pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet', labels: { app: 'web' } });
const guarded = (name: string): Pod => ({
  ...pod({ name, ownerKind: 'ReplicaSet' }),
  annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
});
/** The PodDisruptionBudget `web` over the pods labelled app=web, allowing `allowed` evictions. */
const budget = (allowed: number): PodDisruptionBudget => ({
  namespace: 'default',
  name: 'web',
  selector: { matchLabels: { app: 'web' } },
  disruptionsAllowed: allowed,
  currentHealthy: 2,
  desiredHealthy: 2 - allowed,
  expectedPods: 2,
});
const command = (
  id: string,
  candidates: string[],
  more: Partial<DisruptionCommand> = {},
): DisruptionCommand => ({
  id,
  method: 'emptiness',
  reason: 'Empty',
  decidedAt: iso(T0),
  candidates,
  replace: false,
  savings: 0.192,
  ...more,
});

/** A NodePool whose budget lets every node go at once. */
const roomy = nodePool({ budgets: [{ nodes: '100%' }] });

interface Options {
  readonly pods?: readonly Pod[];
  readonly under?: DisruptionCommand;
  readonly conditions?: readonly Condition[];
  readonly annotations?: Record<string, string>;
}

/** A registered, initialized, Consolidatable m5.xlarge `name` (claim `claim-<name>`) running `pods`. */
function member(name: string, o: Options = {}): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: 'default',
    allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
    pods: (o.pods ?? []).map((p) => ({ ...p, nodeName: name })),
    lifecycle: { providerID, ready: true },
  });
  const claim = nodeClaim({
    name: `claim-${name}`,
    labels: { 'karpenter.sh/capacity-type': 'on-demand', 'node.kubernetes.io/instance-type': 'm5.xlarge' },
    annotations: {
      'podlift.dev/hourly-price': '0.192',
      ...(o.under ? { 'podlift.dev/disruption-command': JSON.stringify(o.under) } : {}),
      ...o.annotations,
    },
    status: {
      providerID,
      conditions: o.conditions ?? [condition('Initialized'), condition('Consolidatable')],
    },
  });
  return [node, claim];
}

describe('commandTimeoutMs', () => {
  // queue.go GetMaxRetryDuration: 80 ms per command candidate, clamped to [10m, 1h].
  it('scales with the candidates in flight between 10 minutes and an hour', () => {
    expect(commandTimeoutMs(0)).toBe(600_000);
    expect(commandTimeoutMs(7_500)).toBe(600_000);
    expect(commandTimeoutMs(7_501)).toBe(600_080);
    expect(commandTimeoutMs(45_000)).toBe(3_600_000);
    expect(commandTimeoutMs(45_001)).toBe(3_600_000);
  });
});

describe('commandStartedAt', () => {
  it('is the earliest True DisruptionReason of the candidates, undefined before any', () => {
    const claim = (conditions: Condition[]) => ({ status: { conditions } });
    expect(commandStartedAt([claim([condition('Initialized')])])).toBeUndefined();
    expect(commandStartedAt([claim([condition(DISRUPTION_REASON, T0, 'False')])])).toBeUndefined();
    expect(
      commandStartedAt([
        claim([condition(DISRUPTION_REASON, T0 + 5_000)]),
        claim([condition(DISRUPTION_REASON, T0 + 2_000)]),
        claim([]),
      ]),
    ).toBe(T0 + 2_000);
  });
});

describe('underCommand and commandIdOf', () => {
  it('read the command recorded on a NodeClaim', () => {
    const annotated = (text: string) => ({ annotations: { 'podlift.dev/disruption-command': text } });
    expect(underCommand({ annotations: {} })).toBe(false);
    expect(underCommand(annotated('garbage'))).toBe(true);
    expect(commandIdOf({ annotations: {} })).toBeUndefined();
    expect(commandIdOf(annotated('garbage'))).toBeUndefined();
    expect(commandIdOf(annotated('{"id":7}'))).toBeUndefined();
    expect(commandIdOf(annotated('{"id":"x"}'))).toBe('x');
  });
});

describe('besideCommandsInFlight', () => {
  it('keeps pods off the nodes of other commands and schedules their pods first', () => {
    const ds = pod({ name: 'ds', ownerKind: 'DaemonSet' });
    const held = command('held', ['claim-a']);
    const s = snapshotOf([
      member('a', { pods: [web('a1'), ds], under: held }),
      member('b', { pods: [web('b1')] }),
    ]);
    const beside = besideCommandsInFlight(s);
    const a = beside.nodes.find((n) => n.name === 'a');
    expect(a?.unschedulable).toBe(true);
    expect(a?.pods.map((p) => p.name)).toEqual(['ds']);
    expect(beside.pendingPods.map((p) => [p.name, p.nodeName])).toEqual([['a1', undefined]]);
    expect(beside.nodes.find((n) => n.name === 'b')).toBe(s.nodes[1]);
    expect(besideCommandsInFlight(s, 'held')).toBe(s);
    expect(besideCommandsInFlight(snapshotOf([member('b')]))).toEqual(snapshotOf([member('b')]));
  });

  it('keeps a second command from counting on the room the first command’s pods need', () => {
    // a's 3 cpu must go to b once a's command runs; c's 3 cpu then no longer fits on b.
    const first = command('first', ['claim-a'], { method: 'consolidation', reason: 'Underutilized' });
    const members = [
      member('a', { pods: [web('a1', '3')], under: first }),
      member('b', { pods: [web('b1', '500m')], conditions: [condition('Initialized')] }),
      member('c', { pods: [web('c1', '3')] }),
    ];
    const decided = decideDisruption(snapshotOf(members, { nodePools: [roomy] }), T0).command;
    // Not deleted onto b: only replaced by a node of its own (or left).
    expect(decided?.candidates ?? ['claim-c']).toEqual(['claim-c']);
    expect(decided?.replace ?? true).toBe(true);
  });
});

describe('decideDisruption beside commands in flight', () => {
  it('does not take a candidate another command holds', () => {
    const held = command('held', ['claim-a']);
    const s = snapshotOf([member('a', { under: held }), member('b')], { nodePools: [roomy] });
    expect(decideDisruption(s, T0).command?.candidates).toEqual(['claim-b']);
  });

  it('takes for emptiness and consolidation only Consolidatable candidates', () => {
    const waiting = [condition('Initialized')];
    expect(decideDisruption(snapshotOf([member('a', { conditions: waiting })]), T0).command).toBeUndefined();
    const busy = snapshotOf([
      member('a', { pods: [web('a1')], conditions: waiting }),
      member('b', { pods: [web('b1')] }),
    ]);
    expect(decideDisruption(busy, T0).command?.candidates).toEqual(['claim-b']);
  });

  // The provisioner nominates a command's replacements for its candidates' pods while they are
  // marked for deletion (queue.go `StartCommand`; statenode.go `ValidateNodeDisruptable`).
  it("leaves a command's empty replacement to its candidates' pods until they have moved", () => {
    const replacing = command('r', ['claim-a'], {
      method: 'consolidation',
      reason: 'Underutilized',
      replace: true,
    });
    const [an, ac] = member('a', { pods: [web('a1')], under: replacing });
    const deleting: [StateNode, NodeClaim] = [an, { ...ac, deletionTimestamp: iso(T0) }];
    const replacement = member('n', { annotations: { 'podlift.dev/replaces': 'r' } });
    const s = (a: [StateNode, NodeClaim]) => snapshotOf([a, replacement], { nodePools: [roomy] });
    expect(decideDisruption(s(deleting), T0).command).toBeUndefined();
    // Drained (its pod elsewhere): the replacement, still empty, is emptiness's.
    const drained: [StateNode, NodeClaim] = [{ ...an, pods: [] }, deleting[1]];
    expect(decideDisruption(s(drained), T0).command?.candidates).toEqual(['claim-n']);
  });

  it('says why consolidation may not take a candidate, in Karpenter’s words', () => {
    const s = snapshotOf([member('a', { pods: [web('a1')] })], {
      nodePools: [nodePool({ consolidationPolicy: 'WhenEmpty' })],
    });
    expect(decideDisruption(s, T0).unconsolidatable).toEqual([
      {
        nodeClaim: 'claim-a',
        node: 'a',
        why: 'NodePool "default" has consolidation policy WhenEmpty, but node is not empty',
      },
    ]);
    // The run removed Consolidatable (consolidatable.ts); Karpenter's methods say why each time.
    const never = snapshotOf([member('a', { conditions: [condition('Initialized')] })], {
      nodePools: [nodePool({ consolidateAfter: 'Never' })],
    });
    expect(decideDisruption(never, T0)).toMatchObject({
      unconsolidatable: [{ why: 'NodePool "default" has consolidation disabled' }],
    });
    expect(decideDisruption(never, T0).command).toBeUndefined();
    const empty = snapshotOf([member('a')], { nodePools: [nodePool({ consolidationPolicy: 'WhenEmpty' })] });
    expect(decideDisruption(empty, T0).unconsolidatable).toEqual([]);
    expect(unconsolidatableBecause({ pool: nodePool(), pods: [web('x')] } as never)).toBeUndefined();
  });
});

describe('whyNotDeleteNow', () => {
  const cancel = (why: string) => ({ why, wait: false });
  it('stops a command whose candidate went, got blocked, or took pods it was to leave empty', () => {
    const s = snapshotOf([member('a'), member('b', { pods: [web('b1')] })]);
    expect(whyNotDeleteNow(command('x', ['claim-a']), s)).toBeUndefined();
    expect(whyNotDeleteNow(command('x', ['claim-gone']), s)).toEqual(
      cancel('NodeClaim claim-gone is no longer a disruption candidate'),
    );
    expect(whyNotDeleteNow(command('x', ['claim-a', 'claim-b']), s)).toEqual(
      cancel('1 pods landed on NodeClaim claim-b since the command started'),
    );
    expect(whyNotDeleteNow(command('x', ['claim-b'], { replace: true }), s)).toBeUndefined();
    // A consolidation that deletes moves its candidates' pods onto the nodes that stay.
    const consolidation = { method: 'consolidation' as const, reason: 'Underutilized' as const };
    expect(whyNotDeleteNow(command('x', ['claim-a', 'claim-b'], consolidation), s)).toBeUndefined();
    expect(whyNotDeleteNow(command('x', ['claim-b'], { method: 'drift', reason: 'Drifted' }), s)).toEqual(
      cancel('1 pods landed on NodeClaim claim-b since the command started'),
    );
    const blocked = snapshotOf([member('a', { pods: [guarded('g')] })]);
    expect(whyNotDeleteNow(command('x', ['claim-a'], { replace: true }), blocked)).toEqual(
      cancel('pod default/g has karpenter.sh/do-not-disrupt'),
    );
  });

  // Karpenter deletes without looking and its drain waits for the budget (terminator.go `Drain`);
  // podlift waits before deleting, its replacements kept, rather than cancel and leave them empty.
  it('waits for a PodDisruptionBudget at 0, unless something else about the command stops it', () => {
    const consolidation = {
      method: 'consolidation' as const,
      reason: 'Underutilized' as const,
      replace: true,
    };
    const atZero = { podDisruptionBudgets: [budget(0)] };
    const held = snapshotOf([member('a', { pods: [web('a1')] }), member('b', { pods: [web('b1')] })], atZero);
    const waitFor = {
      why: 'PodDisruptionBudget default/web allows no eviction of pod default/a1',
      wait: true,
    };
    expect(whyNotDeleteNow(command('x', ['claim-a', 'claim-b'], consolidation), held)).toEqual(waitFor);
    // Any candidate that must cancel does, wherever it comes in the command.
    expect(whyNotDeleteNow(command('x', ['claim-a', 'claim-gone'], consolidation), held)).toEqual(
      cancel('NodeClaim claim-gone is no longer a disruption candidate'),
    );
    const mixed = snapshotOf(
      [member('a', { pods: [web('a1')] }), member('g', { pods: [guarded('g1')] })],
      atZero,
    );
    expect(whyNotDeleteNow(command('x', ['claim-a', 'claim-g'], consolidation), mixed)).toEqual(
      cancel('pod default/g1 has karpenter.sh/do-not-disrupt'),
    );
    // A pod under the budget that also has do-not-disrupt: the budget opening would not end the wait.
    const both = { ...guarded('a1'), labels: { app: 'web' } };
    const guardedToo = snapshotOf([member('a', { pods: [both] })], atZero);
    expect(whyNotDeleteNow(command('x', ['claim-a'], consolidation), guardedToo)).toEqual(
      cancel('pod default/a1 has karpenter.sh/do-not-disrupt'),
    );
    // A deletion-only emptiness command whose node took pods since is cancelled, budget or not.
    expect(whyNotDeleteNow(command('x', ['claim-a']), held)).toEqual(
      cancel('1 pods landed on NodeClaim claim-a since the command started'),
    );
    // The budget allows an eviction again: the command deletes.
    const open = snapshotOf([member('a', { pods: [web('a1')] })], { podDisruptionBudgets: [budget(1)] });
    expect(whyNotDeleteNow(command('x', ['claim-a'], consolidation), open)).toBeUndefined();
  });
});

describe('staleDisruptionMarks', () => {
  it('finds NodeClaims marked DisruptionReason that no command holds, and leaves the rest', () => {
    const marked = [condition('Initialized'), condition(DISRUPTION_REASON)];
    const stale = member('a', { conditions: marked });
    const held = member('b', { conditions: marked, under: command('x', ['claim-b']) });
    const interrupted = member('c', {
      conditions: marked,
      annotations: { 'podlift.dev/interruption': '{}' },
    });
    const [dn, dc] = member('d', { conditions: marked });
    const deleting: [StateNode, NodeClaim] = [dn, { ...dc, deletionTimestamp: iso(T0) }];
    const plain = member('e');
    const s = snapshotOf([stale, held, interrupted, deleting, plain]);
    expect(staleDisruptionMarks(s).map((c) => c.name)).toEqual(['claim-a']);
  });
});

describe('commandStillValid', () => {
  // validation.go: the candidates are gathered again with the method's ShouldDisrupt, so an
  // emptiness or consolidation command whose candidate lost Consolidatable no longer holds.
  const waiting = [condition('Initialized')];
  it('holds an emptiness command while its candidates stay empty and Consolidatable', () => {
    const empty = command('e', ['claim-a', 'claim-b']);
    expect(commandStillValid(empty, snapshotOf([member('a'), member('b')]))).toBe(true);
    expect(commandStillValid(empty, snapshotOf([member('a'), member('b', { pods: [web('b1')] })]))).toBe(
      false,
    );
    expect(commandStillValid(empty, snapshotOf([member('a'), member('b', { conditions: waiting })]))).toBe(
      false,
    );
    expect(commandStillValid(empty, snapshotOf([member('a')]))).toBe(false);
    const guarded = { ...web('g'), annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
    expect(commandStillValid(command('e', ['claim-a']), snapshotOf([member('a', { pods: [guarded] })]))).toBe(
      false,
    );
  });

  it('holds a consolidation while it is Consolidatable, possible and the same kind of move', () => {
    const members = [member('a', { pods: [web('a1')] }), member('b', { pods: [web('b1')] })];
    const s = snapshotOf(members);
    const del = command('c', ['claim-a'], { method: 'consolidation', reason: 'Underutilized' });
    expect(commandStillValid(del, s)).toBe(true);
    expect(commandStillValid({ ...del, replace: true }, s)).toBe(false);
    const lost = snapshotOf([member('a', { pods: [web('a1')], conditions: waiting }), members[1]]);
    expect(commandStillValid(del, lost)).toBe(false);
    // b's pods grew: a's pod no longer fits beside them.
    const full = snapshotOf([members[0], member('b', { pods: [web('b1', '3800m')] })]);
    expect(commandStillValid(del, full)).toBe(false);
  });

  it('judges a drift command by Drifted alone, not Consolidatable', () => {
    const drifted = [condition('Initialized'), condition('Drifted')];
    const drift = command('d', ['claim-a'], { method: 'drift', reason: 'Drifted', replace: true });
    expect(
      commandStillValid(drift, snapshotOf([member('a', { pods: [web('a1')], conditions: drifted })])),
    ).toBe(true);
    expect(commandStillValid(drift, snapshotOf([member('a', { pods: [web('a1')] })]))).toBe(false);
  });
});

describe('decideDisruption: the emptiness command', () => {
  it('deletes every empty Consolidatable candidate together, saving their prices', () => {
    const s = snapshotOf([member('a'), member('b'), member('c', { pods: [web('c1')] })], {
      nodePools: [roomy],
    });
    expect(decideDisruption(s, T0 + 5)).toStrictEqual({
      command: {
        id: `emptiness-claim-a-${T0 + 5}`,
        method: 'emptiness',
        reason: 'Empty',
        decidedAt: iso(T0 + 5),
        candidates: ['claim-a', 'claim-b'],
        replace: false,
        savings: 0.384,
      },
      passedOver: [],
      unconsolidatable: [],
    });
  });
});

describe('decideDisruption: what consolidation takes', () => {
  it('does not take a NodeClaim whose Consolidatable is False', () => {
    const no = [condition('Initialized'), condition('Consolidatable', T0, 'False')];
    expect(decideDisruption(snapshotOf([member('a', { conditions: no })]), T0).command).toBeUndefined();
  });

  it('leaves an empty node to emptiness: no Empty budget, no consolidation of it either', () => {
    const pool = nodePool({
      budgets: [
        { nodes: '0', reasons: ['Empty'] },
        { nodes: '100%', reasons: ['Underutilized'] },
      ],
    });
    const decision = decideDisruption(snapshotOf([member('a'), member('b')], { nodePools: [pool] }), T0);
    expect(decision.command).toBeUndefined();
    expect(decision.passedOver.map((p) => p.why)).toEqual([
      "the NodePool's disruption budget for Empty allows no more nodes now",
      "the NodePool's disruption budget for Empty allows no more nodes now",
    ]);
  });

  it('records a multi-node consolidation as Underutilized, replacing three nodes with one cheaper', () => {
    const members = [
      member('a', { pods: [web('a1')] }),
      member('b', { pods: [web('b1')] }),
      member('c', { pods: [web('c1', '2')] }),
    ];
    const { command: decided } = decideDisruption(snapshotOf(members, { nodePools: [roomy] }), T0);
    expect(decided).toMatchObject({
      method: 'consolidation',
      reason: 'Underutilized',
      candidates: ['claim-a', 'claim-b', 'claim-c'],
      replace: true,
    });
  });
});

describe('decideDisruption: the order of the methods', () => {
  // kubernetes-sigs/karpenter pkg/controllers/disruption/controller.go `NewMethods`: emptiness,
  // (static) drift, multi-node, then single-node consolidation; `Reconcile` stops at the first
  // method that yields a command.
  const drifted = [condition('Initialized'), condition('Consolidatable'), condition('Drifted')];

  it('tries emptiness before drift, and drift before consolidation', () => {
    const empty = member('a');
    const busyDrifted = member('b', { pods: [web('b1')], conditions: drifted });
    const underused = member('c', { pods: [web('c1')] });
    const all = decideDisruption(snapshotOf([empty, busyDrifted, underused], { nodePools: [roomy] }), T0);
    expect(all.command).toMatchObject({ method: 'emptiness', candidates: ['claim-a'] });
    const noEmpty = decideDisruption(snapshotOf([busyDrifted, underused], { nodePools: [roomy] }), T0);
    expect(noEmpty.command).toMatchObject({ method: 'drift', candidates: ['claim-b'], replace: true });
  });
});
