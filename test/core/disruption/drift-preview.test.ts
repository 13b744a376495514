import { describe, expect, it } from 'vitest';
import {
  changedState,
  driftedByChange,
  planDriftReplacement,
  previewDrift,
} from '../../../shared/core/disruption/drift-preview';
import { nodeClassStatusFromObject } from '../../../shared/core/manifests/ec2nodeclass-status-object';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../../../shared/core/model/drift-hash';
import { ANNOTATIONS } from '../../../shared/core/model/labels';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import { nodeClass, nodePool, pod } from '../../../sim/world/builders';
import { m5xlargeMember, snapshotOf } from './snapshot';

const pool = nodePool();
const klass = nodeClass();
const at = '2026-01-01T00:00:00Z';
const launched: Condition = {
  type: 'Launched',
  status: 'True',
  reason: 'Launched',
  message: '',
  lastTransitionTime: at,
};
const drifted: Condition = {
  type: 'Drifted',
  status: 'True',
  reason: 'NodePoolDrifted',
  message: 'NodePool default changed',
  lastTransitionTime: at,
};
/** The EC2NodeClass resolved, so drift by the AMI and the network can be told. */
const resolved = new Map([
  [
    'default',
    {
      subnets: [{ id: 'subnet-1', zone: 'us-east-1a', availableIpAddressCount: 10 }],
      securityGroups: [{ id: 'sg-1' }],
      amis: [{ id: 'ami-1', deprecated: false, requirements: [] }],
      conditions: [],
    },
  ],
]);
const stateOf = (members: Parameters<typeof snapshotOf>[0], more: Parameters<typeof snapshotOf>[1] = {}) =>
  snapshotOf(members, { nodeClassStatus: resolved, ...more });

/** An m5.xlarge member whose claim is launched and carries `annotations` (default: today's hashes). */
function member(name: string, annotations?: Record<string, string>, more: Partial<NodeClaim['status']> = {}) {
  const [node, claim] = m5xlargeMember(name, [
    pod({ name: `${name}-pod`, cpu: '1', ownerKind: 'ReplicaSet' }),
  ]);
  const hashes = annotations ?? {
    [ANNOTATIONS.nodePoolHash]: nodePoolHash(pool),
    [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
    [ANNOTATIONS.nodeClassHash]: nodeClassHash(klass),
    [ANNOTATIONS.nodeClassHashVersion]: DRIFT_HASH_VERSION,
  };
  return [
    node,
    {
      ...claim,
      labels: { ...claim.labels, 'topology.kubernetes.io/zone': 'us-east-1a' },
      annotations: { ...claim.annotations, ...hashes },
      status: { ...claim.status, conditions: [...(claim.status.conditions ?? []), launched], ...more },
    },
  ] as const;
}

const labelled = nodePool({ templateLabels: { team: 'web' } });

describe('previewDrift', () => {
  it('drifts claims whose NodePool hash the change alters, and no others', () => {
    const s = stateOf([member('a'), member('b')]);
    const rows = previewDrift(s, { nodePools: [labelled] });
    expect(rows.map((r) => [r.nodeClaim, r.before.kind, r.after.kind])).toEqual([
      [rows[0].nodeClaim, 'not-drifted', 'drifted'],
      [rows[1].nodeClaim, 'not-drifted', 'drifted'],
    ]);
    expect(driftedByChange(rows)).toHaveLength(2);
    expect(driftedByChange(previewDrift(s, { nodePools: [pool] }))).toEqual([]);
  });

  it('re-stamps hashes of another version against today’s objects first, as the loop does', () => {
    // Karpenter's own hash cannot be compared: after re-stamping, only the change is drift.
    const karpenter = {
      [ANNOTATIONS.nodePoolHash]: '4133640512923484327',
      [ANNOTATIONS.nodePoolHashVersion]: 'v3',
    };
    const s = stateOf([member('a', karpenter)]);
    expect(previewDrift(s, { nodePools: [pool] })[0].after.kind).toBe('not-drifted');
    expect(previewDrift(s, { nodePools: [labelled] })[0].after).toMatchObject({
      kind: 'drifted',
      drift: { reason: 'NodePoolDrifted' },
    });
  });

  it('keeps a claim drifted before the change apart from those the change drifts', () => {
    const [node, claim] = member('a', {
      ...{},
      [ANNOTATIONS.nodePoolHash]: 'old',
      [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
    });
    const s = stateOf([
      [
        node,
        { ...claim, status: { ...claim.status, conditions: [...(claim.status.conditions ?? []), drifted] } },
      ],
    ]);
    const rows = previewDrift(s, { nodePools: [labelled] });
    expect(rows[0].before.kind).toBe('drifted');
    expect(driftedByChange(rows)).toEqual([]);
  });

  it('leaves out claims not launched, being deleted, or of a NodePool the cluster does not have', () => {
    const [n1, c1] = member('a');
    const [n2, c2] = member('b');
    const [n3, c3] = member('c');
    const s = stateOf([
      [n1, { ...c1, status: { ...c1.status, conditions: [] } }],
      [n2, { ...c2, deletionTimestamp: '2026-01-01T00:00:00Z' }],
      [n3, { ...c3, labels: { ...c3.labels, 'karpenter.sh/nodepool': 'gone' } }],
    ]);
    expect(previewDrift(s, { nodePools: [labelled] })).toEqual([]);
  });

  it('prices each claim and names its node, instance type, zone and capacity type', () => {
    const rows = previewDrift(stateOf([member('a')]), {});
    expect(rows[0]).toMatchObject({
      node: 'a',
      instanceType: 'm5.xlarge',
      zone: 'us-east-1a',
      capacityType: 'on-demand',
      price: 0.192,
    });
  });

  it('says it cannot tell when a changed EC2NodeClass selects AMIs by other terms, unless its hash drifted', () => {
    const status = new Map([
      [
        'default',
        {
          subnets: [],
          securityGroups: [],
          amis: [{ id: 'ami-1', deprecated: false, requirements: [] }],
          conditions: [],
        },
      ],
    ]);
    const s = stateOf([member('a', undefined, { imageID: 'ami-1' })], { nodeClassStatus: status });
    const pinned = { ...klass, amiSelectorTerms: [{ id: 'ami-2' }] };
    expect(previewDrift(s, { nodeClasses: [pinned] })[0].after).toEqual({
      kind: 'unknown',
      why: "EC2NodeClass default's amiSelectorTerms changed: what they select only EC2 can tell",
    });
    const tagged = { ...pinned, tags: { team: 'web' } };
    expect(previewDrift(s, { nodeClasses: [tagged] })[0].after).toMatchObject({
      drift: { reason: 'NodeClassDrift' },
    });
  });
});

describe('planDriftReplacement', () => {
  it('plans the drifted nodes’ pods onto the nodes that stay and new ones, and prices before and after', () => {
    // Two m5.xlarge with 1 CPU each: one drifts, its pod fits beside the other's.
    const s = stateOf([member('a'), member('b')], { nodePools: [pool] });
    const rows = previewDrift(s, {});
    const r = planDriftReplacement(s, {}, rows, [rows[0]]);
    expect(r.plan.nodeClaims).toEqual([]);
    expect(r.plan.placements.flatMap((p) => p.pods.map((x) => x.name))).toEqual(['a-pod']);
    expect(r.dollarsPerHourBefore).toBeCloseTo(0.384);
    expect(r.dollarsPerHourAfter).toBeCloseTo(0.192);
    // Both going: new nodes for both pods, and only their price.
    const both = planDriftReplacement(s, {}, rows, rows);
    expect(both.plan.nodeClaims.flatMap((c) => c.pods.map((x) => x.name)).sort()).toEqual(['a-pod', 'b-pod']);
    expect(both.dollarsPerHourAfter).toBeCloseTo(both.plan.nodeClaims.reduce((n, c) => n + c.price, 0));
  });
});

describe('changedState', () => {
  it('replaces objects by name and adds new ones', () => {
    const other = nodePool({ name: 'other' });
    const s = changedState({ nodePools: [pool], nodeClasses: [klass] }, { nodePools: [labelled, other] });
    expect(s.nodePools).toEqual([labelled, other]);
    expect(s.nodeClasses).toEqual([klass]);
  });
});

describe('nodeClassStatusFromObject', () => {
  it('reads the AMIs, subnets, security groups and profile Karpenter writes', () => {
    expect(
      nodeClassStatusFromObject({
        amis: [
          {
            id: 'ami-1',
            name: 'al2023',
            requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          },
        ],
        subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1' }],
        securityGroups: [{ id: 'sg-1' }],
        instanceProfile: 'p',
        conditions: [{ type: 'Ready', status: 'True' }],
      }),
    ).toEqual({
      amis: [
        {
          id: 'ami-1',
          name: 'al2023',
          deprecated: false,
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
        },
      ],
      subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1', availableIpAddressCount: 0 }],
      securityGroups: [{ id: 'sg-1' }],
      instanceProfile: 'p',
      conditions: [],
    });
  });

  it('is undefined for no status, an empty one, or one of another shape', () => {
    expect(nodeClassStatusFromObject(undefined)).toBeUndefined();
    expect(nodeClassStatusFromObject({ conditions: [] })).toBeUndefined();
    expect(nodeClassStatusFromObject({ amis: 'ami-1' })).toBeUndefined();
  });
});
