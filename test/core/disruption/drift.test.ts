import { describe, expect, it } from 'vitest';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { whyNotDeleteNow } from '../../../shared/core/disruption/commands-in-flight';
import { commandStillValid, decideDisruption } from '../../../shared/core/disruption/decide';
import {
  DRIFTED,
  driftConditionChanges,
  driftOf,
  driftOrder,
  networkDrift,
  requirementsDrift,
} from '../../../shared/core/disruption/drift';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../../../shared/core/model/drift-hash';
import { ANNOTATIONS } from '../../../shared/core/model/labels';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodeClass, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const condition = (type: string, minutes = 0, reason = type, message = ''): Condition => ({
  type,
  status: 'True',
  reason,
  message,
  lastTransitionTime: at(minutes),
});
const resolved = (subnets: readonly string[], groups: readonly string[], amis: readonly string[] = []) => ({
  subnets: subnets.map((id) => ({ id, zone: 'us-east-1a', availableIpAddressCount: 100 })),
  securityGroups: groups.map((id) => ({ id })),
  amis: amis.map((id) => ({ id, deprecated: false, requirements: [] })),
  conditions: [],
});
const pool = nodePool({ consolidateAfter: 'Never' });
const klass = nodeClass();
/** The hashes a claim made from today's NodePool and EC2NodeClass records. */
const currentHashes = {
  [ANNOTATIONS.nodePoolHash]: nodePoolHash(pool),
  [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
  [ANNOTATIONS.nodeClassHash]: nodeClassHash(klass),
  [ANNOTATIONS.nodeClassHashVersion]: DRIFT_HASH_VERSION,
};

interface MemberOptions {
  readonly pods?: readonly Pod[];
  readonly drifted?: number;
  readonly annotations?: Record<string, string>;
  readonly conditions?: readonly Condition[];
  readonly imageID?: string;
  readonly price?: number;
}

/** An initialized, launched node `name` of NodePool default; Drifted since minute `drifted` when given. */
function member(name: string, o: MemberOptions = {}): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: 'default',
    pods: (o.pods ?? []).map((p) => ({ ...p, nodeName: name })),
    lifecycle: { providerID, ready: true },
  });
  const conditions = o.conditions ?? [
    condition('Launched'),
    condition('Initialized'),
    ...(o.drifted !== undefined
      ? [condition(DRIFTED, o.drifted, 'NodePoolDrifted', 'NodePool default changed')]
      : []),
  ];
  const claim = nodeClaim({
    name: `claim-${name}`,
    creationTimestamp: at(0),
    annotations: { ...currentHashes, 'podlift.dev/hourly-price': String(o.price ?? 0.1), ...o.annotations },
    status: { providerID, conditions, ...(o.imageID ? { imageID: o.imageID } : {}) },
  });
  return [node, claim];
}

function snapshot(
  members: readonly [StateNode, NodeClaim][],
  more: Partial<ClusterSnapshot> = {},
): ClusterSnapshot {
  return snapshotOf(members, {
    nodePools: [pool],
    nodeClasses: [klass],
    nodeClassStatus: new Map([['default', resolved(['subnet-a'], ['sg-1'], ['ami-new'])]]),
    instances: new Map(
      members.map(([, c]) => [
        c.status.providerID ?? '',
        { subnetId: 'subnet-a', securityGroupIds: ['sg-1'] },
      ]),
    ),
    ...more,
  });
}

const web = (name: string) => pod({ name, cpu: '500m', memory: '512Mi', ownerKind: 'ReplicaSet' });

describe('networkDrift', () => {
  it('is not drift while the instance runs in a selected subnet with exactly the selected groups', () => {
    expect(
      networkDrift(
        { subnetId: 'subnet-a', securityGroupIds: ['sg-2', 'sg-1'] },
        resolved(['subnet-b', 'subnet-a'], ['sg-1', 'sg-2']),
      ),
    ).toEqual({ kind: 'not-drifted' });
  });

  it('names the subnet when it is no longer selected', () => {
    expect(
      networkDrift({ subnetId: 'subnet-a', securityGroupIds: ['sg-1'] }, resolved(['subnet-b'], ['sg-1'])),
    ).toEqual({
      kind: 'drifted',
      drift: { reason: 'SubnetDrift', message: 'subnet subnet-a is no longer selected' },
    });
  });

  it('drifts when a security group was added to or removed from the selection (set equality), before the subnet', () => {
    expect(
      networkDrift(
        { subnetId: 'subnet-x', securityGroupIds: ['sg-1'] },
        resolved(['subnet-a'], ['sg-1', 'sg-2']),
      ),
    ).toEqual({
      kind: 'drifted',
      drift: {
        reason: 'SecurityGroupDrift',
        message: 'security groups sg-1 are no longer the selected sg-1, sg-2',
      },
    });
    expect(
      networkDrift(
        { subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] },
        resolved(['subnet-a'], ['sg-1']),
      ),
    ).toMatchObject({ drift: { reason: 'SecurityGroupDrift' } });
  });

  it('cannot tell from an empty resolution, and sees no drift on what EC2 said nothing about', () => {
    expect(networkDrift({ subnetId: 'subnet-a', securityGroupIds: ['sg-1'] }, resolved([], [])).kind).toBe(
      'unknown',
    );
    expect(
      networkDrift({ subnetId: 'subnet-a', securityGroupIds: ['sg-1'] }, resolved([], ['sg-1'])).kind,
    ).toBe('unknown');
    expect(networkDrift({}, resolved(['subnet-b'], ['sg-2']))).toEqual({ kind: 'not-drifted' });
  });
});

describe('driftOf', () => {
  const verdict = (o: MemberOptions, more: Partial<ClusterSnapshot> = {}) => {
    const m = member('a', o);
    return driftOf(m[1], pool, snapshot([m], more));
  };

  it('names the NodePool, the EC2NodeClass and the AMI with Karpenter’s reasons, in its order', () => {
    expect(verdict({ annotations: { [ANNOTATIONS.nodePoolHash]: 'old' } })).toMatchObject({
      drift: { reason: 'NodePoolDrifted', message: 'NodePool default changed' },
    });
    expect(
      verdict({ annotations: { [ANNOTATIONS.nodePoolHash]: 'old', [ANNOTATIONS.nodeClassHash]: 'old' } }),
    ).toMatchObject({ drift: { reason: 'NodePoolDrifted' } });
    expect(
      verdict({ annotations: { [ANNOTATIONS.nodeClassHash]: 'old' }, imageID: 'ami-old' }),
    ).toMatchObject({
      drift: { reason: 'NodeClassDrift', message: 'EC2NodeClass default changed' },
    });
    expect(verdict({ imageID: 'ami-old' })).toMatchObject({
      drift: { reason: 'AMIDrift', message: 'AMI ami-old is no longer selected' },
    });
    expect(verdict({ imageID: 'ami-new' })).toEqual({ kind: 'not-drifted' });
  });

  it('compares a hash only under the same hash version', () => {
    expect(
      verdict({
        annotations: { [ANNOTATIONS.nodePoolHash]: 'old', [ANNOTATIONS.nodePoolHashVersion]: 'v0' },
      }),
    ).toEqual({ kind: 'not-drifted' });
  });

  it('cannot tell without the resolved EC2NodeClass or the described instance', () => {
    expect(verdict({}, { nodeClassStatus: new Map() }).kind).toBe('unknown');
    expect(verdict({}, { instances: new Map() }).kind).toBe('unknown');
    // The NodePool hash needs neither.
    expect(
      verdict({ annotations: { [ANNOTATIONS.nodePoolHash]: 'old' } }, { instances: new Map() }).kind,
    ).toBe('drifted');
  });
});

describe('driftConditionChanges', () => {
  it('sets Drifted=True with the reason on a drifted claim that does not say so yet', () => {
    const m = member('a', { annotations: { [ANNOTATIONS.nodePoolHash]: 'old' } });
    expect(driftConditionChanges(snapshot([m]))).toEqual([
      {
        nodeClaim: 'claim-a',
        change: 'set',
        drift: { reason: 'NodePoolDrifted', message: 'NodePool default changed' },
        update: {
          conditions: [
            {
              type: 'Drifted',
              status: 'True',
              reason: 'NodePoolDrifted',
              message: 'NodePool default changed',
            },
          ],
        },
      },
    ]);
  });

  it('writes nothing while the condition already says it, and rewrites it when the reason changes', () => {
    const same = member('a', { annotations: { [ANNOTATIONS.nodePoolHash]: 'old' }, drifted: 3 });
    expect(driftConditionChanges(snapshot([same]))).toEqual([]);
    const other = member('a', { imageID: 'ami-old', drifted: 3 });
    expect(driftConditionChanges(snapshot([other]))).toMatchObject([
      { change: 'set', drift: { reason: 'AMIDrift' } },
    ]);
  });

  it('clears the condition when the claim is no longer drifted or not launched, and only then', () => {
    expect(driftConditionChanges(snapshot([member('a', { drifted: 3 })]))).toEqual([
      { nodeClaim: 'claim-a', change: 'cleared', update: { removeConditions: ['Drifted'] } },
    ]);
    const unlaunched = member('a', {
      annotations: { [ANNOTATIONS.nodePoolHash]: 'old' },
      conditions: [condition(DRIFTED, 1, 'NodePoolDrifted')],
    });
    expect(driftConditionChanges(snapshot([unlaunched]))).toMatchObject([{ change: 'cleared' }]);
    expect(driftConditionChanges(snapshot([member('a')]))).toEqual([]);
  });

  it('leaves the condition as it is when drift cannot be told, and skips deleted or orphaned claims', () => {
    const m = member('a', { drifted: 3 });
    expect(driftConditionChanges(snapshot([m], { instances: new Map() }))).toEqual([]);
    const deleting: [StateNode, NodeClaim] = [m[0], { ...m[1], deletionTimestamp: at(5) }];
    expect(driftConditionChanges(snapshot([deleting]))).toEqual([]);
    expect(driftConditionChanges(snapshot([m], { nodePools: [] }))).toEqual([]);
  });
});

describe('drift in decideDisruption', () => {
  it('goes by the condition alone, the longest drifted first', () => {
    const s = snapshot([
      member('new', { pods: [web('n1')], drifted: 9 }),
      member('old', { pods: [web('o1')], drifted: 2 }),
      member('hash-only', { pods: [web('h1')], annotations: { [ANNOTATIONS.nodePoolHash]: 'old' } }),
    ]);
    expect(driftOrder(disruptionCandidates(s)).map((c) => c.claim.name)).toEqual(['claim-old', 'claim-new']);
    expect(decideDisruption(s, T0 + 3_600_000).command).toMatchObject({
      method: 'drift',
      reason: 'Drifted',
      candidates: ['claim-old'],
      replace: true,
      detail: 'NodePool default changed',
    });
  });

  it('names each different drift message once in the detail, "drifted" for a condition without one', () => {
    // The detail is podlift's Event text; Karpenter's drift.go names the Drifted condition's
    // reason on its DisruptionBlocked and Disrupting events.
    const quiet = [
      condition('Launched'),
      condition('Initialized'),
      condition(DRIFTED, 4, 'NodePoolDrifted', ''),
    ];
    const s = snapshot(
      [member('e1', { drifted: 1 }), member('e2', { drifted: 2 }), member('e3', { conditions: quiet })],
      { nodePools: [{ ...pool, disruption: { ...pool.disruption, budgets: [{ nodes: '3' }] } }] },
    );
    expect(decideDisruption(s, T0 + 3_600_000).command).toMatchObject({
      method: 'drift',
      candidates: ['claim-e1', 'claim-e2', 'claim-e3'],
      detail: 'NodePool default changed; drifted',
    });
  });

  it('deletes every empty drifted node the budget allows together, before a non-empty one drifted earlier', () => {
    const s = snapshot(
      [
        member('busy', { pods: [web('b1')], drifted: 1 }),
        member('e3', { drifted: 7, price: 0.2 }),
        member('e1', { drifted: 5, price: 0.1 }),
        member('e2', { drifted: 6, price: 0.3 }),
      ],
      { nodePools: [{ ...pool, disruption: { ...pool.disruption, budgets: [{ nodes: '2' }] } }] },
    );
    const { command, passedOver } = decideDisruption(s, T0 + 3_600_000);
    expect(command).toMatchObject({ method: 'drift', candidates: ['claim-e1', 'claim-e2'], replace: false });
    expect(command?.savings).toBeCloseTo(0.4);
    expect(passedOver).toEqual([
      expect.objectContaining({ nodeClaim: 'claim-e3', why: expect.stringContaining('budget for Drifted') }),
    ]);
  });

  it('replaces the oldest non-empty drifted node once no empty one may go', () => {
    const s = snapshot([member('busy', { pods: [web('b1')], drifted: 1 }), member('e1', { drifted: 5 })], {
      nodePools: [{ ...pool, disruption: { ...pool.disruption, budgets: [{ nodes: '1' }] } }],
    });
    const blocked = {
      ...s,
      nodes: s.nodes.map((n) =>
        n.name === 'e1' ? { ...n, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : n,
      ),
    };
    expect(decideDisruption(blocked, T0 + 3_600_000).command).toMatchObject({
      candidates: ['claim-busy'],
      replace: true,
    });
  });

  it('passes over a drifted node whose pods would not schedule, and replaces the next one', () => {
    // Nothing in the catalog offers 1,000 CPUs: the pod can move nowhere.
    const huge = pod({ name: 'huge', cpu: '1000', memory: '1Gi', ownerKind: 'ReplicaSet' });
    const s = snapshot([
      member('stuck', { pods: [huge], drifted: 1 }),
      member('next', { pods: [web('n1')], drifted: 4 }),
    ]);
    const { command, passedOver } = decideDisruption(s, T0 + 3_600_000);
    expect(command).toMatchObject({ candidates: ['claim-next'], replace: true });
    expect(passedOver).toEqual([
      expect.objectContaining({
        nodeClaim: 'claim-stuck',
        why: expect.stringContaining('1 of its pods would not schedule'),
      }),
    ]);
  });

  it('cancels a deletion-only drift command when a pod has landed on the node since', () => {
    const s = snapshot([member('e1', { drifted: 5 })]);
    const { command } = decideDisruption(s, T0 + 3_600_000);
    expect(command?.replace).toBe(false);
    if (!command) return;
    expect(commandStillValid(command, s)).toBe(true);
    const landed = snapshot([member('e1', { drifted: 5, pods: [web('late')] })]);
    expect(commandStillValid(command, landed)).toBe(false);
    const cleared = snapshot([member('e1')]);
    expect(commandStillValid(command, cleared)).toBe(false);
  });

  // kubernetes-sigs/karpenter pkg/controllers/disruption/types.go `NewCandidate` (eventual class with
  // terminationGracePeriod ignores `PodBlockEvictionError`) and drift_test.go "should drift nodes
  // that have pods with the karpenter.sh/do-not-disrupt annotation when the NodeClaim has a
  // TerminationGracePeriod configured" / "... PDB ...".
  it('drifts past a do-not-disrupt pod or a PodDisruptionBudget when the NodeClaim has a terminationGracePeriod', () => {
    const guarded = { ...web('g1'), annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
    const [node, claim] = member('busy', { pods: [guarded], drifted: 1 });
    const graced = { ...claim, spec: { ...claim.spec, terminationGracePeriod: '1h' } };
    const without = decideDisruption(snapshot([[node, claim]]), T0 + 3_600_000);
    expect(without.command).toBeUndefined();
    expect(without.passedOver.map((p) => p.why)).toStrictEqual([
      'pod default/g1 has karpenter.sh/do-not-disrupt',
    ]);
    const s = snapshot([[node, graced]]);
    const { command } = decideDisruption(s, T0 + 3_600_000);
    expect(command).toMatchObject({ method: 'drift', candidates: ['claim-busy'], replace: true });
    // It holds when validated and before deletion: the drain honours the pod until the grace period ends.
    if (!command) return;
    expect(commandStillValid(command, s)).toBe(true);
    expect(whyNotDeleteNow(command, s)).toBeUndefined();
    expect(whyNotDeleteNow(command, snapshot([[node, claim]]))).toEqual({
      why: 'pod default/g1 has karpenter.sh/do-not-disrupt',
      wait: false,
    });
    const pdb = {
      namespace: 'default',
      name: 'web',
      selector: {},
      disruptionsAllowed: 0,
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 1,
    };
    const plain = member('busy', { pods: [web('p1')], drifted: 1 });
    const graceful = { ...plain[1], spec: { ...plain[1].spec, terminationGracePeriod: '1h' } };
    expect(decideDisruption(snapshot([plain], { podDisruptionBudgets: [pdb] }), T0).command).toBeUndefined();
    expect(
      decideDisruption(snapshot([[plain[0], graceful]], { podDisruptionBudgets: [pdb] }), T0).command,
    ).toMatchObject({
      candidates: ['claim-busy'],
    });
  });

  it('is still stopped by the Node’s own karpenter.sh/do-not-disrupt with a terminationGracePeriod', () => {
    const [node, claim] = member('e1', { drifted: 1 });
    const pinned = { ...node, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
    const graced = { ...claim, spec: { ...claim.spec, terminationGracePeriod: '1h' } };
    const { command, passedOver } = decideDisruption(snapshot([[pinned, graced]]), T0);
    expect(command).toBeUndefined();
    expect(passedOver.map((p) => p.why)).toStrictEqual(['the Node has karpenter.sh/do-not-disrupt']);
  });

  it('does not let an eventual-only pass carry over to consolidation: a graced node with a do-not-disrupt pod is not consolidated', () => {
    const guarded = { ...web('g1'), annotations: { 'karpenter.sh/do-not-disrupt': 'true' } };
    const [node, claim] = member('busy', { pods: [guarded] });
    const graced = { ...claim, spec: { ...claim.spec, terminationGracePeriod: '1h' } };
    const [c] = disruptionCandidates(snapshot([[node, graced]]));
    expect([c.blocked, c.eventualBlocked]).toStrictEqual([
      'pod default/g1 has karpenter.sh/do-not-disrupt',
      undefined,
    ]);
  });

  // helpers.go `SimulateScheduling` makes room only for `IsCurrentlyReschedulable` pods; drift_test.go
  // "should not create replacements for drifted nodes that have pods with the blocking PDBs when the
  // NodePool's TerminationGracePeriod is not nil".
  it('makes no room for pods that will not be evicted before the grace period, so they hold up nothing', () => {
    const huge = {
      ...pod({ name: 'huge', cpu: '1000', ownerKind: 'ReplicaSet' }),
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    };
    const [node, claim] = member('busy', { pods: [huge], drifted: 1 });
    const graced = { ...claim, spec: { ...claim.spec, terminationGracePeriod: '1h' } };
    expect(decideDisruption(snapshot([[node, graced]]), T0).command).toMatchObject({
      candidates: ['claim-busy'],
      replace: true,
    });
  });
});

/**
 * kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift_test.go, Context
 * "NodeRequirement Drift": a claim labelled from the old requirements, checked against the new.
 */
describe('requirementsDrift', () => {
  const ct = (...values: string[]) => ({
    key: 'karpenter.sh/capacity-type',
    operator: 'In' as const,
    values,
  });
  const os = (operator: 'In' | 'Exists' | 'DoesNotExist', ...values: string[]) => ({
    key: 'kubernetes.io/os',
    operator,
    values,
  });
  const drifts = (requirements: readonly NodeSelectorRequirement[], labels: Record<string, string>) => {
    const claim = nodeClaim({ labels });
    const pool = nodePool({ requirements });
    return requirementsDrift(claim, pool) !== undefined;
  };
  const onDemandLinux = { 'karpenter.sh/capacity-type': 'on-demand', 'kubernetes.io/os': 'linux' };

  it.each([
    ['an updated requirement', [ct('spot')], { ...onDemandLinux, 'kubernetes.io/arch': 'amd64' }, true],
    [
      'a new requirement the claim has no label for',
      [
        ct('on-demand'),
        os('In', 'linux'),
        { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
      ],
      onDemandLinux,
      true,
    ],
    ['a reduced requirement', [ct('on-demand'), os('In', 'windows')], onDemandLinux, true],
    ['an expanded requirement', [ct('on-demand'), os('In', 'linux', 'windows')], onDemandLinux, false],
    ['a requirement set to Exists', [ct('on-demand'), os('Exists')], onDemandLinux, false],
    ['a requirement set to DoesNotExist', [ct('on-demand'), os('DoesNotExist')], onDemandLinux, true],
    [
      'a Gt the label no longer exceeds',
      [ct('on-demand'), { key: 'test-label', operator: 'Gt' as const, values: ['10'] }],
      { 'karpenter.sh/capacity-type': 'on-demand', 'test-label': '5' },
      true,
    ],
    [
      'an Lt the label no longer stays under',
      [ct('on-demand'), { key: 'test-label', operator: 'Lt' as const, values: ['1'] }],
      { 'karpenter.sh/capacity-type': 'on-demand', 'test-label': '2' },
      true,
    ],
  ])('%s', (_what, requirements, labels, drifted) => {
    expect(drifts(requirements, labels)).toBe(drifted);
  });

  it('is checked after the NodePool hash and before the EC2NodeClass (drift.go isDrifted)', () => {
    const spotOnly = nodePool({ consolidateAfter: 'Never', requirements: [ct('spot')] });
    const [, claim] = member('a', {
      annotations: { [ANNOTATIONS.nodeClassHash]: 'old' },
    });
    const labelled = { ...claim, labels: { ...claim.labels, 'karpenter.sh/capacity-type': 'on-demand' } };
    expect(driftOf(labelled, spotOnly, snapshot([member('a')]))).toMatchObject({
      kind: 'drifted',
      drift: { reason: 'RequirementsDrifted' },
    });
    const hashed = {
      ...labelled,
      annotations: { ...labelled.annotations, [ANNOTATIONS.nodePoolHash]: 'old' },
    };
    expect(driftOf(hashed, spotOnly, snapshot([member('a')]))).toMatchObject({
      drift: { reason: 'NodePoolDrifted' },
    });
  });
});
