import { describe, expect, it } from 'vitest';
import {
  amiSelectorTerms,
  capacityTypes,
  instanceTypes,
  isReservedTemplateLabel,
  nodeClassTags,
  nodeLabels,
  parseTaint,
  rootVolume,
} from '../../../shared/core/kops/instance-group-rules';
import type {
  KopsCluster,
  KopsInstanceGroup,
  KopsInstanceGroupSpec,
} from '../../../shared/core/kops/kops-schema';

// Cases ported from kubernetes/kops upup/pkg/fi/cloudup/template_functions_karpenter_test.go.

const ig = (spec: KopsInstanceGroupSpec = {}, name = 'nodes'): KopsInstanceGroup => ({
  metadata: { name },
  spec: { role: 'Node', ...spec },
});

describe('amiSelectorTerms (TestBuildKarpenterAMITerms)', () => {
  it.each([
    ['ami-0123456789abcdef0', [{ id: 'ami-0123456789abcdef0' }]],
    [
      'ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id',
      [
        {
          ssmParameter: '/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id',
        },
      ],
    ],
    ['kops-node-image', [{ name: 'kops-node-image', owner: 'self' }]],
    [
      'ubuntu/images/hvm-ssd/ubuntu-noble-24.04-amd64-server-*',
      [{ owner: '099720109477', name: 'images/hvm-ssd/ubuntu-noble-24.04-amd64-server-*' }],
    ],
    ['rocky/Rocky-9-EC2-Base-*', [{ owner: '792107900819', name: 'Rocky-9-EC2-Base-*' }]],
    ['rockylinux/Rocky-9-EC2-Base-*', [{ owner: '792107900819', name: 'Rocky-9-EC2-Base-*' }]],
    ['debian/debian-12-amd64-*', [{ owner: '136693071363', name: 'debian-12-amd64-*' }]],
    ['debian11/debian-11-amd64-*', [{ owner: '136693071363', name: 'debian-11-amd64-*' }]],
    ['flatcar/Flatcar-stable-*', [{ owner: '075585003325', name: 'Flatcar-stable-*' }]],
    ['redhat/RHEL-9.4-*', [{ owner: '309956199498', name: 'RHEL-9.4-*' }]],
    ['redhat.com/RHEL-9.4-*', [{ owner: '309956199498', name: 'RHEL-9.4-*' }]],
    ['amazon/al2023-ami-*', [{ owner: '137112412989', name: 'al2023-ami-*' }]],
    ['amazon.com/al2023-ami-*', [{ owner: '137112412989', name: 'al2023-ami-*' }]],
    ['123456789012/my-custom-image-*', [{ owner: '123456789012', name: 'my-custom-image-*' }]],
    ['  ami-0123  ', [{ id: 'ami-0123' }]],
    ['ubuntu/a/b', [{ owner: '099720109477', name: 'a/b' }]],
  ])('%s', (image, expected) => {
    expect(amiSelectorTerms(image)).toEqual(expected);
  });

  it.each([
    ['ssm:', 'ssm image parameter is required'],
    ['https://example.com/image', 'must be ami-*, ssm:<parameter>, <name>, or <owner>/<name>'],
    ['/missing-owner', 'must be ami-*, ssm:<parameter>, <name>, or <owner>/<name>'],
    ['missing-name/', 'must be ami-*, ssm:<parameter>, <name>, or <owner>/<name>'],
  ])('refuses %s', (image, message) => {
    expect(amiSelectorTerms(image)).toEqual({ field: 'spec.image', value: image, message });
  });

  it.each([undefined, '', '  '])('refuses an empty image (%j): the channel default needs kOps', (image) => {
    expect(amiSelectorTerms(image)).toMatchObject({
      field: 'spec.image',
      value: image,
      message: expect.stringMatching(/^is required/),
    });
  });
});

describe('instanceTypes (TestKarpenterInstanceTypes)', () => {
  it('merges machineType and mixedInstancesPolicy.instances, trimmed, deduplicated and sorted', () => {
    const group = ig({
      machineType: 'm6i.large, c6i.large, m6i.large',
      mixedInstancesPolicy: { instances: ['r6i.large', 'c6i.large'] },
    });
    expect(instanceTypes(group)).toEqual(['c6i.large', 'm6i.large', 'r6i.large']);
  });

  it('is empty without either, and skips blanks', () => {
    expect(instanceTypes(ig())).toEqual([]);
    expect(instanceTypes(ig({ machineType: ' , ' }))).toEqual([]);
  });
});

describe('capacityTypes (TestKarpenterCapacityTypes)', () => {
  it.each<[string, KopsInstanceGroupSpec, string[]]>([
    ['default', {}, ['on-demand']],
    ['max price', { maxPrice: '0.10' }, ['spot']],
    ['spot duration', { spotDurationInMinutes: 60 }, ['spot']],
    [
      'mixed, half on demand above base',
      { mixedInstancesPolicy: { onDemandAboveBase: 50 } },
      ['on-demand', 'spot'],
    ],
    ['mixed, 99 % on demand', { mixedInstancesPolicy: { onDemandAboveBase: 99 } }, ['on-demand', 'spot']],
    ['mixed, all on demand', { mixedInstancesPolicy: { onDemandAboveBase: 100 } }, ['on-demand']],
    ['mixed without onDemandAboveBase', { mixedInstancesPolicy: {} }, ['on-demand']],
    [
      'max price wins over mixed',
      { maxPrice: '0.1', mixedInstancesPolicy: { onDemandAboveBase: 0 } },
      ['spot'],
    ],
  ])('%s', (_, spec, expected) => {
    expect(capacityTypes(ig(spec))).toEqual(expected);
  });
});

describe('rootVolume (TestBuildKarpenterBlockDeviceMappings)', () => {
  const defaults = {
    deleteOnTermination: true,
    encrypted: true,
    iops: 3000,
    throughput: 125,
    volumeSize: '128Gi',
    volumeType: 'gp3',
  };
  const KEY = 'arn:aws:kms:us-test-1:123456789012:key/test';
  it.each<[string, KopsInstanceGroupSpec, Record<string, unknown>]>([
    ['no root volume fields use the kOps defaults', {}, defaults],
    ['explicit size', { rootVolumeSize: 200 }, { ...defaults, volumeSize: '200Gi' }],
    ['zero size falls back to the role default', { rootVolumeSize: 0 }, defaults],
    [
      'gp2 drops iops and throughput',
      { rootVolumeType: 'gp2', rootVolumeIops: 4000, rootVolumeThroughput: 200 },
      { deleteOnTermination: true, encrypted: true, volumeSize: '128Gi', volumeType: 'gp2' },
    ],
    [
      'standard drops iops and throughput',
      { rootVolumeType: 'standard' },
      { deleteOnTermination: true, encrypted: true, volumeSize: '128Gi', volumeType: 'standard' },
    ],
    [
      'io2 below the iops floor is raised',
      { rootVolumeType: 'io2', rootVolumeIops: 50 },
      { deleteOnTermination: true, encrypted: true, iops: 100, volumeSize: '128Gi', volumeType: 'io2' },
    ],
    [
      'io1 above the iops floor is kept',
      { rootVolumeType: 'io1', rootVolumeIops: 5000, rootVolumeThroughput: 200 },
      { deleteOnTermination: true, encrypted: true, iops: 5000, volumeSize: '128Gi', volumeType: 'io1' },
    ],
    [
      'io1 without iops gets the floor',
      { rootVolumeType: 'io1' },
      { deleteOnTermination: true, encrypted: true, iops: 100, volumeSize: '128Gi', volumeType: 'io1' },
    ],
    [
      'gp3 below the floors is raised',
      { rootVolumeType: 'gp3', rootVolumeIops: 100, rootVolumeThroughput: 50 },
      defaults,
    ],
    [
      'gp3 above the floors is kept',
      { rootVolumeType: 'gp3', rootVolumeIops: 6000, rootVolumeThroughput: 250 },
      { ...defaults, iops: 6000, throughput: 250 },
    ],
    ['gp3 exactly at the floors is kept', { rootVolumeIops: 3000, rootVolumeThroughput: 125 }, defaults],
    [
      'encryption disabled drops the key',
      { rootVolumeEncryption: false, rootVolumeEncryptionKey: KEY },
      { ...defaults, encrypted: false },
    ],
    [
      'encryption enabled keeps the key',
      { rootVolumeEncryption: true, rootVolumeEncryptionKey: KEY },
      { ...defaults, kmsKeyID: KEY },
    ],
    ['a key without explicit encryption is ignored', { rootVolumeEncryptionKey: KEY }, defaults],
    ['an empty key is dropped', { rootVolumeEncryption: true, rootVolumeEncryptionKey: '' }, defaults],
    ['an empty type means gp3', { rootVolumeType: '' }, defaults],
    ['a negative size falls back to the role default', { rootVolumeSize: -5 }, defaults],
  ])('%s', (_, spec, expected) => {
    expect(rootVolume(ig(spec))).toEqual(expected);
  });
});

describe('parseTaint (kOps util.ParseTaint, effect required)', () => {
  it.each([
    ['dedicated=gpu:NoSchedule', { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    ['dedicated:NoExecute', { key: 'dedicated', effect: 'NoExecute' }],
    ['dedicated=:NoSchedule', { key: 'dedicated', effect: 'NoSchedule' }],
  ])('%s', (spec, expected) => {
    expect(parseTaint(spec)).toEqual(expected);
  });

  it.each(['dedicated', 'a=b=c:NoSchedule', 'a:b:c', 'a=b:'])('refuses %s', (spec) => {
    expect(parseTaint(spec)).toBeUndefined();
  });
});

describe('isReservedTemplateLabel (TestKarpenterNodePoolTemplateLabels)', () => {
  it.each([
    ['kops.k8s.io/instancegroup', false],
    ['karpenter.sh/nodepool', true],
    ['sub.karpenter.sh/x', true],
    ['karpenter.k8s.aws/ec2nodeclass', true],
    ['sub.karpenter.k8s.aws/x', true],
    ['kubernetes.io/hostname', true],
    ['karpenter.sh/capacity-type', false],
    ['node-role.kubernetes.io/node', false],
    ['node-restriction.kubernetes.io/worker', false],
    ['example.com/team', false],
    ['team.kubernetes.io/owner', false],
    ['notkarpenter.sh/x', false],
    ['karpenter.sh', false],
  ])('%s → %s', (key, reserved) => {
    expect(isReservedTemplateLabel(key)).toBe(reserved);
  });
});

describe('nodeLabels (pkg/nodelabels BuildNodeLabels, role Node)', () => {
  it("merges the cluster's and the InstanceGroup's kubelet labels, the role label, then spec.nodeLabels", () => {
    const cluster: KopsCluster = {
      metadata: { name: 'c' },
      spec: { kubelet: { nodeLabels: { a: 'cluster', b: 'cluster' } } },
    };
    const group = ig({
      kubelet: { nodeLabels: { b: 'ig-kubelet', c: 'ig-kubelet' } },
      nodeLabels: { c: 'ig', 'node-role.kubernetes.io/node': 'x' },
    });
    expect(nodeLabels(cluster, group)).toEqual({
      a: 'cluster',
      b: 'ig-kubelet',
      c: 'ig',
      'node-role.kubernetes.io/node': 'x',
    });
  });
});

describe('nodeClassTags (CloudTagsForInstanceGroup, TestKarpenterEC2NodeClassTags)', () => {
  it('tags like the autoscaling group, less the tags Karpenter reserves', () => {
    const cluster: KopsCluster = {
      metadata: { name: 'example.com' },
      spec: { cloudLabels: { team: 'a', Owner: 'cluster' } },
    };
    const group = ig({
      cloudLabels: {
        Owner: 'ig',
        'karpenter.sh/nodepool': 'x',
        'karpenter.sh/nodeclaim': 'x',
        'karpenter.k8s.aws/ec2nodeclass': 'x',
        'eks:eks-cluster-name': 'x',
        '': 'empty',
      },
      nodeLabels: { 'karpenter.sh/nodepool': 'nodes' },
    });
    const taints = [
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'spot', effect: 'NoExecute' },
    ];
    expect(nodeClassTags('example.com', cluster, group, taints)).toEqual({
      Name: 'nodes.example.com',
      KubernetesCluster: 'example.com',
      team: 'a',
      Owner: 'ig',
      'k8s.io/cluster-autoscaler/node-template/label/node-role.kubernetes.io/node': '',
      'k8s.io/cluster-autoscaler/node-template/label/karpenter.sh/nodepool': 'nodes',
      'k8s.io/cluster-autoscaler/node-template/taint/dedicated': 'gpu:NoSchedule',
      'k8s.io/cluster-autoscaler/node-template/taint/spot': ':NoExecute',
      'k8s.io/role/node': '1',
      'kops.k8s.io/instancegroup': 'nodes',
    });
  });

  it('keeps the system tags over cloud labels that name them', () => {
    const group = ig({
      cloudLabels: { 'k8s.io/role/node': '0', 'kops.k8s.io/instancegroup': 'other', Name: 'mine' },
    });
    expect(nodeClassTags('c', undefined, group, [])).toMatchObject({
      'k8s.io/role/node': '1',
      'kops.k8s.io/instancegroup': 'nodes',
      Name: 'mine',
    });
  });
});

describe('the rules on an InstanceGroup without spec', () => {
  const bare: KopsInstanceGroup = { metadata: { name: 'bare' } };
  it('fall back to kOps defaults', () => {
    expect(instanceTypes(bare)).toEqual([]);
    expect(capacityTypes(bare)).toEqual(['on-demand']);
    expect(rootVolume(bare)).toMatchObject({ volumeSize: '128Gi', volumeType: 'gp3' });
    expect(nodeLabels({ metadata: { name: 'c' } }, bare)).toEqual({ 'node-role.kubernetes.io/node': '' });
    expect(nodeClassTags('c', { metadata: { name: 'c' } }, bare, [])).toEqual({
      Name: 'bare.c',
      KubernetesCluster: 'c',
      'k8s.io/cluster-autoscaler/node-template/label/node-role.kubernetes.io/node': '',
      'k8s.io/role/node': '1',
      'kops.k8s.io/instancegroup': 'bare',
    });
  });
});
