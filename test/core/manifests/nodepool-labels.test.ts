import { describe, expect, it } from 'vitest';
import { restrictedLabelReason } from '../../../shared/core/manifests/nodepool-labels';

describe('restrictedLabelReason', () => {
  it('allows well-known labels and unrestricted domains', () => {
    for (const key of [
      'kubernetes.io/arch',
      'topology.kubernetes.io/zone',
      'node.kubernetes.io/instance-type',
      'karpenter.sh/capacity-type',
      'karpenter.k8s.aws/instance-family',
      'karpenter.k8s.aws/instance-capability-flex',
      'example.com/team',
      'team',
    ]) {
      expect(restrictedLabelReason(key), key).toBeUndefined();
    }
  });

  it('restricts the Karpenter domains by suffix, and kubernetes.io/hostname', () => {
    for (const key of [
      'kubernetes.io/hostname',
      'karpenter.sh/nodepool',
      'sub.karpenter.sh/x',
      'karpenter.k8s.aws/nope',
    ]) {
      expect(restrictedLabelReason(key), key).toBeDefined();
    }
  });

  it('no longer restricts the kubernetes.io and k8s.io domains, as Karpenter v1.9 (#2586) stopped doing', () => {
    for (const key of [
      'kubernetes.io/role',
      'node-role.kubernetes.io/worker',
      'foo.k8s.io/x',
      'kops.k8s.io/instancegroup',
      'karpenter.k8s.aws/instance-tenancy',
    ]) {
      expect(restrictedLabelReason(key), key).toBeUndefined();
    }
  });
});
