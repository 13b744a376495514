import { describe, expect, it } from 'vitest';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../../shared/core/model/labels';
import type { Taint } from '../../../shared/core/model/taints';
import { groupPods } from '../../../shared/core/scheduling/pod-groups';
import { affinityRetries, awaitsAffinityMatch } from '../../../shared/core/scheduling/relaxation';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import {
  formatReason,
  type NodePoolRejection,
  someReason,
  type UnschedulableReason,
  unschedulablePods,
} from '../../../shared/core/scheduling/unschedulable-reason';
import { nodePool, pod, pods, resources } from '../../../sim/world/builders';
import { schedulingInput } from './fixtures';

/**
 * The typed reasons a pod cannot be scheduled: each kind's message (the text `podlift plan`
 * prints and the scheduler tests compare), the walk over gathered per-NodePool reasons, and the
 * affinity retry that branches on them.
 */

const GPU_TAINT: Taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };
const WEB = { matchLabels: { app: 'web' } };
const inPool = (rejection: NodePoolRejection): UnschedulableReason => ({
  kind: 'nodepool',
  nodePool: 'default',
  rejection,
});

describe('formatReason', () => {
  it.each<[string, UnschedulableReason]>([
    ['no NodePool exists', { kind: 'no-nodepool' }],
    [
      'no NodePool tolerates taint gpu=true:NoSchedule',
      { kind: 'no-nodepool-tolerates-taint', taint: GPU_TAINT },
    ],
    [
      'required pod affinity matches no pod on topology.kubernetes.io/zone: {"matchLabels":{"app":"web"}}',
      { kind: 'no-affinity-match', topologyKey: LABEL_ZONE, selector: WEB },
    ],
    [
      'pod affinity on kubernetes.io/hostname: the nodes running pods that match {"matchLabels":{"app":"web"}} have no room',
      { kind: 'affinity-nodes-full', topologyKey: LABEL_HOSTNAME, selector: WEB },
    ],
    [
      'topology rules on kubernetes.io/hostname rule out a new node',
      { kind: 'hostname-rules', topologyKey: LABEL_HOSTNAME },
    ],
    [
      'topology spread on topology.kubernetes.io/zone (maxSkew 2) cannot be satisfied: no domain keeps the skew',
      { kind: 'spread-unsatisfiable', topologyKey: LABEL_ZONE, maxSkew: 2 },
    ],
    [
      'pod affinity on topology.kubernetes.io/zone cannot be satisfied',
      { kind: 'affinity-unsatisfiable', topologyKey: LABEL_ZONE },
    ],
    [
      'pod anti-affinity on topology.kubernetes.io/zone: every eligible domain has a matching pod',
      { kind: 'anti-affinity', topologyKey: LABEL_ZONE },
    ],
    [
      'anti-affinity of existing pods on topology.kubernetes.io/zone: every eligible domain has a matching pod',
      { kind: 'existing-anti-affinity', topologyKey: LABEL_ZONE },
    ],
  ])('says "%s"', (message, reason) => {
    expect(formatReason(reason)).toBe(message);
  });

  it.each<[string, NodePoolRejection]>([
    [
      'EC2NodeClass missing not found',
      { kind: 'node-class-not-found', nodeClassKind: 'EC2NodeClass', nodeClassName: 'missing' },
    ],
    [
      'no instance type with an available offering satisfies its requirements',
      { kind: 'no-offered-instance-type' },
    ],
    ['taint gpu=true:NoSchedule not tolerated', { kind: 'untolerated-taint', taint: GPU_TAINT }],
    [
      'label team does not have known values',
      { kind: 'incompatible-requirements', detail: 'label team does not have known values' },
    ],
    [
      'no instance type satisfies kubernetes.io/arch In [s390x]',
      { kind: 'no-instance-type-satisfies', requirements: 'kubernetes.io/arch In [s390x]' },
    ],
    ['no instance type satisfies its requirements', { kind: 'no-instance-type-satisfies', requirements: '' }],
    [
      'no allowed topology domain (topology.kubernetes.io/zone, rack) is offered',
      { kind: 'no-allowed-domain-offered', topologyKeys: [LABEL_ZONE, 'rack'] },
    ],
    ['no instance type offered in the required domain', { kind: 'no-instance-type-in-domain' }],
    [
      'no instance type has room for requests pods=1, cpu=500m, example.com/widget=1',
      {
        kind: 'no-room-for-requests',
        requests: resources({ pods: 1, cpu: '500m', 'example.com/widget': 1 }),
        daemonSetOverhead: {},
      },
    ],
    [
      'no instance type has room for requests pods=1, cpu=1 plus DaemonSet overhead pods=1, memory=256Mi',
      {
        kind: 'no-room-for-requests',
        requests: resources({ pods: 1, cpu: '1' }),
        daemonSetOverhead: resources({ pods: 1, memory: '256Mi' }),
      },
    ],
    ['limit cpu=50 reached', { kind: 'limit-reached', resource: 'cpu', limit: resources({ cpu: '50' }).cpu }],
    [
      'limit memory=8Gi reached',
      { kind: 'limit-reached', resource: 'memory', limit: resources({ memory: '8Gi' }).memory },
    ],
    ['limit nodes=2 reached', { kind: 'limit-reached', resource: 'nodes', limit: 2 }],
    ['limit cpu reached', { kind: 'limit-reached-by-node', resource: 'cpu' }],
    ['no instance type option is compatible', { kind: 'no-compatible-option' }],
    ['no instance type option has room', { kind: 'no-option-has-room' }],
    ['no instance type fits', { kind: 'no-instance-type-fits' }],
    ['no instance type that fits has an available offering', { kind: 'no-available-offering' }],
    ['no instance type holds the pods and DaemonSet overhead', { kind: 'no-instance-type-holds-pods' }],
    [
      'minValues 3 for karpenter.k8s.aws/instance-family not satisfied: only 2 value(s) among instance types that fit',
      { kind: 'min-values', key: 'karpenter.k8s.aws/instance-family', minValues: 3, available: 2 },
    ],
  ])('says "NodePool default: %s" for a NodePool\'s rejection', (message, rejection) => {
    expect(formatReason(inPool(rejection))).toBe(`NodePool default: ${message}`);
  });

  it('joins the reasons of every NodePool with "; "', () => {
    const reason: UnschedulableReason = {
      kind: 'every-nodepool-rejected',
      reasons: [
        { kind: 'nodepool', nodePool: 'gpu', rejection: { kind: 'untolerated-taint', taint: GPU_TAINT } },
        { kind: 'hostname-rules', topologyKey: LABEL_HOSTNAME },
        inPool({ kind: 'limit-reached', resource: 'nodes', limit: 2 }),
      ],
    };
    expect(formatReason(reason)).toBe(
      'NodePool gpu: taint gpu=true:NoSchedule not tolerated; ' +
        'topology rules on kubernetes.io/hostname rule out a new node; ' +
        'NodePool default: limit nodes=2 reached',
    );
  });
});

describe('someReason', () => {
  const full: UnschedulableReason = {
    kind: 'affinity-nodes-full',
    topologyKey: LABEL_HOSTNAME,
    selector: WEB,
  };
  const isFull = (r: UnschedulableReason) => r.kind === 'affinity-nodes-full';

  it('tests the reason itself', () => {
    expect(someReason(full, isFull)).toBe(true);
    expect(someReason({ kind: 'no-nodepool' }, isFull)).toBe(false);
  });

  it('looks into the reasons gathered from every NodePool', () => {
    const gathered: UnschedulableReason = {
      kind: 'every-nodepool-rejected',
      reasons: [inPool({ kind: 'no-option-has-room' }), full],
    };
    expect(someReason(gathered, isFull)).toBe(true);
    expect(someReason({ ...gathered, reasons: gathered.reasons.slice(0, 1) }, isFull)).toBe(false);
  });
});

describe('unschedulablePods', () => {
  it('gives every pod the cause and its message', () => {
    const [a, b] = pods(2, { cpu: '1' });
    const cause: UnschedulableReason = { kind: 'no-nodepool' };
    expect(unschedulablePods([a, b], cause)).toEqual([
      { pod: a, cause, reason: 'no NodePool exists' },
      { pod: b, cause, reason: 'no NodePool exists' },
    ]);
  });
});

describe('the affinity retry', () => {
  const noMatch: UnschedulableReason = { kind: 'no-affinity-match', topologyKey: LABEL_ZONE, selector: WEB };

  it('waits for a match only when required pod affinity matched no pod, alone or among NodePools', () => {
    expect(awaitsAffinityMatch(noMatch)).toBe(true);
    expect(
      awaitsAffinityMatch({
        kind: 'every-nodepool-rejected',
        reasons: [inPool({ kind: 'no-option-has-room' }), noMatch],
      }),
    ).toBe(true);
    expect(awaitsAffinityMatch({ kind: 'affinity-unsatisfiable', topologyKey: LABEL_ZONE })).toBe(false);
    expect(awaitsAffinityMatch(inPool({ kind: 'limit-reached', resource: 'nodes', limit: 1 }))).toBe(false);
  });

  it('retries the failed pods of groups with required pod affinity, in group order', () => {
    const follower = pods(2, {
      name: 'follower',
      cpu: '1',
      podAffinity: [{ labelSelector: WEB, topologyKey: LABEL_ZONE }],
    });
    const plain = pods(1, { name: 'plain', cpu: '1' });
    const groups = groupPods([...follower, ...plain]);
    const retries = affinityRetries(groups, [
      ...unschedulablePods([follower[1]], noMatch),
      // Failed for another reason, or without pod affinity: not retried.
      ...unschedulablePods([follower[0]], { kind: 'no-nodepool' }),
      ...unschedulablePods(plain, noMatch),
    ]);
    expect(retries.map((r) => r.pods)).toEqual([[follower[1]]]);
  });

  it('places a pod whose affinity names a group placed after it', () => {
    // The follower sorts first (larger), so on the first pass no pod matches its affinity yet.
    const follower = pod({
      name: 'follower',
      cpu: '2',
      podAffinity: [{ labelSelector: WEB, topologyKey: LABEL_ZONE }],
    });
    const leader = pod({ name: 'leader', cpu: '1', labels: { app: 'web' } });
    const r = schedule(schedulingInput({ nodePools: [nodePool()], pods: [follower, leader] }));
    expect(r.unschedulable).toEqual([]);
    const zoneOf = (name: string) => r.nodeClaims.find((c) => c.pods.some((p) => p.name === name))?.zone;
    expect(zoneOf('follower')).toBe(zoneOf('leader'));
  });
});

describe('schedule', () => {
  it('reports the cause behind each message', () => {
    const r = schedule(
      schedulingInput({ nodePools: [nodePool({ limits: { nodes: 0 } })], pods: pods(1, { cpu: '1' }) }),
    );
    expect(r.unschedulable.map((u) => [u.cause, u.reason])).toEqual([
      [
        inPool({ kind: 'limit-reached', resource: 'nodes', limit: 0 }),
        'NodePool default: limit nodes=0 reached',
      ],
    ]);
  });
});
