import { describe, expect, it } from 'vitest';
import { nodeClassHash, nodePoolHash } from '../../../shared/core/model/drift-hash';
import { nodeClass, nodePool } from '../../../sim/world/builders';

// What Karpenter's hashes cover: kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go `Hash`
// (spec.template; requirements `hash:"ignore"`, limits, weight and disruption outside it) and
// aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go `Hash` (the selector terms,
// ipPrefixCount, amiFamily and kubelet `hash:"ignore"`).
describe('nodePoolHash', () => {
  const base = nodePool({ name: 'default', templateLabels: { team: 'a' } });

  it('changes with the template: labels, taints, startup taints, expireAfter, terminationGracePeriod', () => {
    const hash = nodePoolHash(base);
    expect(nodePoolHash(nodePool({ name: 'default', templateLabels: { team: 'b' } }))).not.toBe(hash);
    for (const changed of [
      { taints: [{ key: 'k', effect: 'NoSchedule' as const }] },
      { startupTaints: [{ key: 'k', effect: 'NoSchedule' as const }] },
      { expireAfter: '24h' },
      { terminationGracePeriod: '1h' },
      { nodeClass: 'other' },
    ]) {
      expect(nodePoolHash(nodePool({ name: 'default', templateLabels: { team: 'a' }, ...changed }))).not.toBe(
        hash,
      );
    }
  });

  it('ignores the requirements, limits, weight and disruption settings', () => {
    const same = nodePool({
      name: 'default',
      templateLabels: { team: 'a' },
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
      limits: { cpu: '10' },
      weight: 50,
      consolidateAfter: '10m',
    });
    expect(nodePoolHash(same)).toBe(nodePoolHash(base));
  });
});

describe('nodeClassHash', () => {
  const base = nodeClass({ name: 'default', role: 'node-role' });

  it('ignores the selector terms, which drift by what they resolve to', () => {
    const reselected = nodeClass({
      name: 'default',
      role: 'node-role',
      subnetSelectorTerms: [{ tags: { tier: 'private' } }],
      securityGroupSelectorTerms: [{ tags: { tier: 'nodes' } }],
      amiSelectorTerms: [{ alias: 'al2023@v20250101' }],
    });
    expect(nodeClassHash(reselected)).toBe(nodeClassHash(base));
  });

  it('changes with the rest of the spec: role, tags, user data', () => {
    const hash = nodeClassHash(base);
    expect(nodeClassHash(nodeClass({ name: 'default', role: 'other-role' }))).not.toBe(hash);
    expect(nodeClassHash(nodeClass({ name: 'default', role: 'node-role', tags: { team: 'a' } }))).not.toBe(
      hash,
    );
    expect(nodeClassHash(nodeClass({ name: 'default', role: 'node-role', userData: 'echo hi' }))).not.toBe(
      hash,
    );
  });
});
