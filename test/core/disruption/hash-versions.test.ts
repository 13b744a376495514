import { describe, expect, it } from 'vitest';
import { DRIFTED, driftConditionChanges } from '../../../shared/core/disruption/drift';
import { hashRestamps } from '../../../shared/core/disruption/hash-versions';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../../../shared/core/model/drift-hash';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import { nodeClaim, nodeClass, nodePool } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const POOL_HASH = 'karpenter.sh/nodepool-hash';
const POOL_VERSION = 'karpenter.sh/nodepool-hash-version';
const CLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';
const CLASS_VERSION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';
const pool = nodePool();
const klass = nodeClass();

const claim = (name: string, annotations: Record<string, string>, drifted?: 'True' | 'False'): NodeClaim =>
  nodeClaim({
    name,
    annotations,
    status: drifted
      ? {
          conditions: [
            {
              type: DRIFTED,
              status: drifted,
              reason: 'NodePoolDrifted',
              message: '',
              lastTransitionTime: new Date(T0).toISOString(),
            },
          ],
        }
      : {},
  });
const restamps = (...claims: NodeClaim[]) =>
  hashRestamps({ nodeClaims: claims, nodePools: [pool], nodeClasses: [klass] });

// kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/suite_test.go and
// aws/karpenter-provider-aws pkg/controllers/nodeclass/hash/suite_test.go, `updateNodeClaimHash`.
describe('hashRestamps', () => {
  it('re-stamps the version and hash of every claim whose hash versions are not podlift’s (Karpenter’s own, say)', () => {
    const karpenter = {
      [POOL_HASH]: '123456',
      [POOL_VERSION]: 'v3',
      [CLASS_HASH]: '654321',
      [CLASS_VERSION]: 'v4',
    };
    expect(restamps(claim('one', karpenter), claim('two', karpenter))).toStrictEqual(
      ['one', 'two'].map((nodeClaim) => ({
        nodeClaim,
        annotations: {
          [POOL_VERSION]: DRIFT_HASH_VERSION,
          [POOL_HASH]: nodePoolHash(pool),
          [CLASS_VERSION]: DRIFT_HASH_VERSION,
          [CLASS_HASH]: nodeClassHash(klass),
        },
      })),
    );
    // No annotations at all is another version too.
    expect(restamps(claim('bare', {}))[0].annotations[POOL_HASH]).toBe(nodePoolHash(pool));
  });

  it('leaves a claim alone whose versions match, whatever its hashes', () => {
    const current = {
      [POOL_HASH]: '1234564654',
      [POOL_VERSION]: DRIFT_HASH_VERSION,
      [CLASS_HASH]: 'x',
      [CLASS_VERSION]: DRIFT_HASH_VERSION,
    };
    expect(restamps(claim('one', current))).toStrictEqual([]);
    // One side at a time.
    expect(restamps(claim('one', { ...current, [CLASS_VERSION]: 'v4' }))).toStrictEqual([
      {
        nodeClaim: 'one',
        annotations: { [CLASS_VERSION]: DRIFT_HASH_VERSION, [CLASS_HASH]: nodeClassHash(klass) },
      },
    ]);
  });

  it('keeps the old hash of a claim that has a Drifted condition, True or False, and re-stamps only the version', () => {
    const old = {
      [POOL_HASH]: '123456',
      [POOL_VERSION]: 'v3',
      [CLASS_HASH]: '654321',
      [CLASS_VERSION]: 'v4',
    };
    for (const status of ['True', 'False'] as const)
      expect(restamps(claim('drifted', old, status))).toStrictEqual([
        {
          nodeClaim: 'drifted',
          annotations: { [POOL_VERSION]: DRIFT_HASH_VERSION, [CLASS_VERSION]: DRIFT_HASH_VERSION },
        },
      ]);
  });

  it('skips claims being deleted, and the side whose NodePool or EC2NodeClass is unknown', () => {
    const old = { [POOL_VERSION]: 'v3', [CLASS_VERSION]: 'v4' };
    const deleting = { ...claim('deleting', old), deletionTimestamp: new Date(T0).toISOString() };
    const orphan = { ...claim('orphan', old), labels: { 'karpenter.sh/nodepool': 'gone' } };
    const classless: NodeClaim = {
      ...claim('classless', old),
      spec: {
        ...claim('c', {}).spec,
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'gone' },
      },
    };
    expect(restamps(deleting, orphan, classless)).toStrictEqual([
      {
        nodeClaim: 'orphan',
        annotations: { [CLASS_VERSION]: DRIFT_HASH_VERSION, [CLASS_HASH]: nodeClassHash(klass) },
      },
      {
        nodeClaim: 'classless',
        annotations: { [POOL_VERSION]: DRIFT_HASH_VERSION, [POOL_HASH]: nodePoolHash(pool) },
      },
    ]);
  });

  it('lets drift compare a re-stamped claim’s hash from then on: a template change afterwards is drift', () => {
    const providerID = 'aws:///us-east-1a/i-00000000000000001';
    const launched = {
      ...claim('adopted', { [POOL_HASH]: '123456', [POOL_VERSION]: 'v3' }),
      status: {
        providerID,
        conditions: [
          {
            type: 'Launched',
            status: 'True' as const,
            reason: '',
            message: '',
            lastTransitionTime: new Date(T0).toISOString(),
          },
        ],
      },
    };
    const [{ annotations }] = restamps(launched);
    const restamped = { ...launched, annotations: { ...launched.annotations, ...annotations } };
    const changed = nodePool({ templateLabels: { team: 'b' } });
    const before = driftConditionChanges(snapshotOf([], { nodeClaims: [launched], nodePools: [changed] }));
    const after = driftConditionChanges(snapshotOf([], { nodeClaims: [restamped], nodePools: [changed] }));
    expect(before).toStrictEqual([]);
    expect(after.map((c) => c.drift?.reason)).toStrictEqual(['NodePoolDrifted']);
  });
});
