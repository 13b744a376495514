import { describe, expect, it } from 'vitest';
import { nodeLabelsFlag } from '../../../shared/aws/userdata/bootstrap-options';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { bootstrap } from './fixtures';

describe('bootstrapOptions', () => {
  it('labels the node with the NodeClaim labels, its single-valued requirements, NodePool, EC2NodeClass, capacity type and do-not-sync-taints', () => {
    const options = bootstrap({
      nodeClaim: nodeClaim({
        labels: { team: 'ml', 'example.com/tier': 'gold' },
        requirements: [
          { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] },
          { key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['large', 'xlarge'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
        ],
      }),
      capacityType: 'on-demand',
    });
    expect(options.labels).toEqual({
      'example.com/tier': 'gold',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'karpenter.k8s.aws/instance-family': 'm5',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/do-not-sync-taints': 'true',
      'karpenter.sh/nodepool': 'default',
      team: 'ml',
    });
  });

  it('leaves taint syncing on for the Custom family, whose user data may not register the taints', () => {
    for (const amiFamily of ['AL2023', 'AL2', 'Bottlerocket', 'Windows2022'] as const) {
      expect(bootstrap({ nodeClass: nodeClass({ amiFamily }) }).labels).toHaveProperty(
        ['karpenter.sh/do-not-sync-taints'],
        'true',
      );
    }
    const custom = bootstrap({ nodeClass: nodeClass({ amiFamily: 'Custom', userData: 'nodeup' }) });
    expect(custom.labels).not.toHaveProperty(['karpenter.sh/do-not-sync-taints']);
  });

  it('leaves out labels kubelet may not set on itself (kubernetes.io, k8s.io and their subdomains)', () => {
    const options = bootstrap({
      nodeClaim: nodeClaim({
        labels: {
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': 'm5.large',
          'node-restriction.kubernetes.io/secure': 'true',
          'kops.k8s.io/instancegroup': 'nodes',
          'topology.kubernetes.io/zone': 'us-east-1a',
          'notkubernetes.io/kept': 'yes',
        },
        requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }],
      }),
    });
    expect(Object.keys(options.labels).sort()).toEqual([
      'karpenter.k8s.aws/ec2nodeclass',
      'karpenter.sh/capacity-type',
      'karpenter.sh/do-not-sync-taints',
      'karpenter.sh/nodepool',
      'notkubernetes.io/kept',
    ]);
  });

  it('registers with the NodeClaim taints, then its startup taints, then karpenter.sh/unregistered', () => {
    const options = bootstrap({
      nodeClaim: nodeClaim({
        taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
        startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
      }),
    });
    expect(options.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
      { key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' },
      { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
    ]);
  });

  it('does not add karpenter.sh/unregistered twice', () => {
    const options = bootstrap({
      nodeClaim: nodeClaim({ startupTaints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] }),
    });
    expect(options.taints.filter((t) => t.key === 'karpenter.sh/unregistered')).toHaveLength(1);
  });

  it('sets maxPods from the instance types unless the EC2NodeClass does, and clusterDNS from the cluster unless the EC2NodeClass does', () => {
    expect(bootstrap({ maxPods: 58 }).kubelet).toEqual({ maxPods: 58, clusterDNS: ['10.100.0.10'] });
    const own = bootstrap({
      maxPods: 58,
      nodeClass: nodeClass({ kubelet: { maxPods: 110, clusterDNS: ['169.254.20.10'] } }),
    });
    expect(own.kubelet).toEqual({ maxPods: 110, clusterDNS: ['169.254.20.10'] });
    const noDns = bootstrap({ cluster: { ...cluster, clusterDns: undefined } });
    expect(noDns.kubelet.clusterDNS).toBeUndefined();
  });

  it('carries the EC2NodeClass userData and instance store policy', () => {
    const options = bootstrap({
      nodeClass: nodeClass({ userData: 'echo hi', instanceStorePolicy: 'RAID0' }),
    });
    expect(options.customUserData).toBe('echo hi');
    expect(options.instanceStorePolicy).toBe('RAID0');
  });
});

describe('nodeLabelsFlag', () => {
  it('writes sorted key=value pairs in one quoted kubelet flag, or nothing for no labels', () => {
    expect(nodeLabelsFlag({ b: '2', a: '1' })).toBe('--node-labels="a=1,b=2"');
    expect(nodeLabelsFlag({})).toBeUndefined();
  });
});
