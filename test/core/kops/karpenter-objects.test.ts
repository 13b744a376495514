import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  isNodeupScriptPlaceholder,
  type KopsDocument,
  karpenterInstanceGroupNames,
  karpenterManifestsFromKops,
  nodeupScriptPlaceholder,
} from '../../../shared/core/kops/karpenter-objects';
import {
  isKopsManifest,
  parseKopsCluster,
  parseKopsInstanceGroup,
} from '../../../shared/core/kops/kops-schema';
import { parseEC2NodeClass } from '../../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../../shared/core/manifests/nodepool-schema';
import { isValidationError } from '../../../shared/core/model/errors';

const FIXTURE = new URL('../../fixtures/kops/karpenter-instancegroups.yaml', import.meta.url);
const SOURCE = 'karpenter-instancegroups.yaml';

function documents(text: string, source = SOURCE): KopsDocument[] {
  return parseAllDocuments(text).map((doc, documentIndex) => ({
    manifest: doc.toJS(),
    location: { source, documentIndex },
  }));
}

const fixture = (): KopsDocument[] => documents(readFileSync(FIXTURE, 'utf8'));
const SCRIPTS = new Map([
  ['karpenter-nodes-default', '#!/bin/bash\n# nodeup for default\n'],
  ['karpenter-nodes-single-machinetype', '#!/bin/bash\n# nodeup for single\n'],
]);

const CLUSTER = 'minimal.example.com';
const AMI = [
  { name: 'images/hvm-ssd-gp3/ubuntu-resolute-26.04-amd64-server-20220404', owner: '099720109477' },
];
const SECURITY_GROUPS = [{ tags: { KubernetesCluster: CLUSTER, Name: `nodes.${CLUSTER}` } }];
const tagsOf = (ig: string) => ({
  KubernetesCluster: CLUSTER,
  Name: `${ig}.${CLUSTER}`,
  'k8s.io/cluster-autoscaler/node-template/label/node-role.kubernetes.io/node': '',
  'k8s.io/role/node': '1',
  'kops.k8s.io/instancegroup': ig,
});
const subnetsOf = (ig: string) => [
  { tags: { KubernetesCluster: CLUSTER, [`kops.k8s.io/instance-group/${ig}`]: 'true' } },
];
const nodeClassRef = (name: string) => ({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name });
const LINUX = { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] };
const ON_DEMAND = { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] };

// Written by hand from kOps' expected output for the same InstanceGroups (kubernetes/kops
// tests/integration/update_cluster/karpenter/data/aws_s3_object_minimal.example.com-addons-karpenter.sh-k8s-1.19_content),
// without its addon bookkeeping labels and with the nodeup scripts given to the converter.
const KOPS_EXPECTED = [
  {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'karpenter-nodes-default' },
    spec: {
      amiFamily: 'Custom',
      amiSelectorTerms: AMI,
      associatePublicIPAddress: true,
      blockDeviceMappings: [
        {
          deviceName: '/dev/xvda',
          ebs: {
            deleteOnTermination: true,
            encrypted: true,
            iops: 3000,
            throughput: 125,
            volumeSize: '128Gi',
            volumeType: 'gp3',
          },
          rootVolume: true,
        },
      ],
      instanceProfile: `nodes.${CLUSTER}`,
      kubelet: {
        kubeReserved: { cpu: '500m', memory: '1G' },
        maxPods: 50,
        systemReserved: { cpu: '500m', memory: '1G' },
      },
      securityGroupSelectorTerms: SECURITY_GROUPS,
      subnetSelectorTerms: subnetsOf('karpenter-nodes-default'),
      tags: tagsOf('karpenter-nodes-default'),
      userData: SCRIPTS.get('karpenter-nodes-default'),
    },
  },
  {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'karpenter-nodes-default' },
    spec: {
      limits: { nodes: '20' },
      template: {
        metadata: { labels: { 'node-role.kubernetes.io/node': '' } },
        spec: { nodeClassRef: nodeClassRef('karpenter-nodes-default'), requirements: [LINUX, ON_DEMAND] },
      },
    },
  },
  {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'karpenter-nodes-single-machinetype' },
    spec: {
      amiFamily: 'Custom',
      amiSelectorTerms: AMI,
      associatePublicIPAddress: true,
      blockDeviceMappings: [
        {
          deviceName: '/dev/xvda',
          ebs: {
            deleteOnTermination: true,
            encrypted: true,
            iops: 4000,
            kmsKeyID: 'arn:aws-test:kms:us-test-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab',
            throughput: 200,
            volumeSize: '200Gi',
            volumeType: 'gp3',
          },
          rootVolume: true,
        },
      ],
      instanceProfile: `nodes.${CLUSTER}`,
      securityGroupSelectorTerms: SECURITY_GROUPS,
      subnetSelectorTerms: subnetsOf('karpenter-nodes-single-machinetype'),
      tags: tagsOf('karpenter-nodes-single-machinetype'),
      userData: SCRIPTS.get('karpenter-nodes-single-machinetype'),
    },
  },
  {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'karpenter-nodes-single-machinetype' },
    spec: {
      limits: { nodes: '10' },
      replicas: 2,
      template: {
        metadata: { labels: { 'node-role.kubernetes.io/node': '' } },
        spec: {
          nodeClassRef: nodeClassRef('karpenter-nodes-single-machinetype'),
          requirements: [
            LINUX,
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['t2.medium'] },
            ON_DEMAND,
          ],
        },
      },
    },
  },
];

describe('karpenterManifestsFromKops', () => {
  it("produces kOps' own EC2NodeClasses and NodePools for kOps' integration-test InstanceGroups", () => {
    const { manifests } = karpenterManifestsFromKops(fixture(), {
      nodeupScripts: SCRIPTS,
      rootDeviceName: '/dev/xvda',
    });
    expect(manifests).toEqual(KOPS_EXPECTED);
  });

  it("produces objects podlift's own NodePool and EC2NodeClass validation accepts", () => {
    const { manifests } = karpenterManifestsFromKops(fixture(), {
      nodeupScripts: SCRIPTS,
      rootDeviceName: '/dev/xvda',
    });
    for (const m of manifests) {
      const parsed = m.kind === 'NodePool' ? parseNodePool(m) : parseEC2NodeClass(m);
      expect(parsed.name).toBe((m.metadata as { name: string }).name);
    }
  });

  it('warns that kOps would run Karpenter too when the Cluster enables it', () => {
    const { warnings } = karpenterManifestsFromKops(fixture(), {
      nodeupScripts: SCRIPTS,
      rootDeviceName: '/dev/xvda',
    });
    expect(warnings).toEqual([
      `${SOURCE} document 0: Cluster/${CLUSTER}: spec.karpenter.enabled is true: kOps then runs Karpenter too, and two provisioners would act on these NodePools`,
    ]);
  });

  it('prints a placeholder naming the state-store location when the nodeup script is not given', () => {
    const { manifests, warnings } = karpenterManifestsFromKops(fixture(), { rootDeviceName: '/dev/xvda' });
    const userData = (manifests[0].spec as { userData: string }).userData;
    expect(userData).toBe(
      '<podlift: kOps nodeup script for InstanceGroup karpenter-nodes-default: copy memfs://clusters.example.com/minimal.example.com/igconfig/node/karpenter-nodes-default/nodeupscript.sh here>',
    );
    expect(isNodeupScriptPlaceholder(userData)).toBe(true);
    expect(isNodeupScriptPlaceholder(SCRIPTS.get('karpenter-nodes-default'))).toBe(false);
    expect(warnings).toContain(
      `${SOURCE} document 4: InstanceGroup/karpenter-nodes-default: userData is a placeholder: replace it with kOps' nodeup script, memfs://clusters.example.com/minimal.example.com/igconfig/node/karpenter-nodes-default/nodeupscript.sh`,
    );
  });

  it('leaves out the block device mapping and says why without a root device name', () => {
    const { manifests, warnings } = karpenterManifestsFromKops(fixture(), { nodeupScripts: SCRIPTS });
    expect(manifests[0].spec).not.toHaveProperty('blockDeviceMappings');
    expect(warnings).toContain(
      `${SOURCE} document 4: InstanceGroup/karpenter-nodes-default: blockDeviceMappings left out (root volume 128Gi gp3): kOps reads the image's root device name from EC2; pass it to podlift kops with --root-device-name`,
    );
  });

  it('lists the InstanceGroups it converts, sorted by name', () => {
    expect(karpenterInstanceGroupNames(fixture())).toEqual([
      'karpenter-nodes-default',
      'karpenter-nodes-single-machinetype',
    ]);
  });

  it('places the placeholder under <configBase> when the Cluster is unknown', () => {
    expect(nodeupScriptPlaceholder('a', undefined)).toBe(
      '<podlift: kOps nodeup script for InstanceGroup a: copy <configBase>/igconfig/node/a/nodeupscript.sh here>',
    );
    expect(nodeupScriptPlaceholder('a', 's3://state/c///')).toContain(
      'copy s3://state/c/igconfig/node/a/nodeupscript.sh',
    );
  });
});

const CLUSTER_DOC = `apiVersion: kops.k8s.io/v1alpha2
kind: Cluster
metadata: { name: c.example.com }
spec:
  cloudProvider: aws
  configBase: s3://state/c.example.com
  karpenter: { featureGates: "StaticCapacity=true" }
  subnets: [{ name: a, type: Private }, { name: b, type: Utility }]
`;
const igDoc = (spec: string, name = 'workers') => `apiVersion: kops.k8s.io/v1alpha2
kind: InstanceGroup
metadata: { name: ${name}, labels: { kops.k8s.io/cluster: c.example.com } }
spec:
  manager: Karpenter
  role: Node
  image: ami-0123
  subnets: [a]
${spec}`;
const convert = (...docs: string[]) =>
  karpenterManifestsFromKops(documents(docs.join('---\n'), 'igs.yaml'), {
    nodeupScripts: new Map([['workers', '#!/bin/bash\n']]),
    rootDeviceName: '/dev/sda1',
  });

function refusal(...docs: string[]): string {
  try {
    convert(...docs);
  } catch (e) {
    if (isValidationError(e)) return e.message;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('karpenterManifestsFromKops refuses what kOps refuses (validateKarpenterInstanceGroup)', () => {
  it.each([
    [
      'a control-plane InstanceGroup',
      '  role: Master\n',
      'spec.role: Karpenter InstanceGroups must have role Node (got "Master")',
    ],
    ['minSize 0', '  minSize: 0\n', 'spec.minSize: must be greater than zero for static capacity (got 0)'],
    [
      'a negative minSize',
      '  minSize: -1\n',
      'spec.minSize: must be greater than zero for static capacity (got -1)',
    ],
    ['maxSize 0', '  maxSize: 0\n', 'spec.maxSize: must be greater than zero (got 0)'],
    [
      'a URL image',
      '  image: https://example.com/x\n',
      'spec.image: must be ami-*, ssm:<parameter>, <name>, or <owner>/<name> (got "https://example.com/x")',
    ],
    [
      'a taint without effect',
      '  taints: [dedicated=gpu]\n',
      'spec.taints[0]: must be key[=value]:effect (got "dedicated=gpu")',
    ],
    [
      'an unknown subnet',
      '  subnets: [z]\n',
      `spec.subnets: subnet z is not in the Cluster's spec.subnets (got ["z"])`,
    ],
    ['no subnets', '  subnets: []\n', 'spec.subnets: must name a subnet of the Cluster (got [])'],
  ])('%s', (_, spec, message) => {
    // YAML refuses duplicate keys: drop the base field the case sets again.
    const doc = igDoc(spec).replace(/^ {2}(role|image|subnets): [^\n]*\n(?=[\s\S]*^ {2}\1: )/gm, '');
    expect(refusal(CLUSTER_DOC, doc)).toBe(`igs.yaml, document 1, InstanceGroup/workers: ${message}`);
  });

  it('refuses static capacity when the Cluster turns StaticCapacity off', () => {
    const cluster = CLUSTER_DOC.replace('StaticCapacity=true', 'StaticCapacity=true,StaticCapacity=false');
    expect(refusal(cluster, igDoc('  minSize: 2\n'))).toContain(
      'spec.minSize: static capacity requires StaticCapacity=true in cluster.spec.karpenter.featureGates (got 2)',
    );
  });

  it('allows static capacity when the gates do not name StaticCapacity off, or are absent', () => {
    const other = CLUSTER_DOC.replace('StaticCapacity=true', 'Other=true, StaticCapacity = TRUE');
    expect(convert(other, igDoc('  minSize: 2\n')).manifests[1].spec).toMatchObject({ replicas: 2 });
    const none = CLUSTER_DOC.replace('  karpenter: { featureGates: "StaticCapacity=true" }\n', '');
    expect(convert(none, igDoc('  minSize: 3\n')).manifests[1].spec).toMatchObject({ replicas: 3 });
    const notNamed = CLUSTER_DOC.replace('StaticCapacity=true', 'Drift=true,StaticCapacity');
    expect(refusal(notNamed, igDoc('  minSize: 2\n'))).toContain('static capacity requires');
  });

  it('refuses a cluster that is not on AWS', () => {
    expect(refusal(CLUSTER_DOC.replace('cloudProvider: aws', 'cloudProvider: gce'), igDoc(''))).toContain(
      'spec.manager: Karpenter InstanceGroups are only supported on AWS (the Cluster\'s cloudProvider is "gce")',
    );
    expect(
      convert(CLUSTER_DOC.replace('cloudProvider: aws', 'cloudProvider: { aws: {} }'), igDoc('')).manifests,
    ).toHaveLength(2);
  });

  it('refuses an InstanceGroup of another cluster, and one with no cluster at all', () => {
    expect(refusal(CLUSTER_DOC, igDoc('').replace('cluster: c.example.com', 'cluster: other'))).toContain(
      'metadata.labels["kops.k8s.io/cluster"]: names another cluster than the input\'s Cluster c.example.com (got "other")',
    );
    expect(refusal(igDoc('').replace(', labels: { kops.k8s.io/cluster: c.example.com }', ''))).toContain(
      'metadata.labels["kops.k8s.io/cluster"]: is required without a Cluster object in the input',
    );
  });

  it('refuses a second Cluster and names the first', () => {
    expect(refusal(CLUSTER_DOC, CLUSTER_DOC)).toBe(
      'igs.yaml, document 1, Cluster/c.example.com: kind: is a second Cluster (first in igs.yaml document 0: Cluster/c.example.com) (got "Cluster")',
    );
  });

  it('refuses a badly typed field, naming it', () => {
    expect(refusal(igDoc('  maxSize: ten\n'))).toMatch(
      /^igs\.yaml, document 0, InstanceGroup: spec\.maxSize: .*\(got "ten"\)$/,
    );
  });
});

describe('karpenterManifestsFromKops maps the InstanceGroup', () => {
  it('takes the public IP from the first subnet: Private never, Utility by associatePublicIp', () => {
    const spec = (m: Record<string, unknown>) => m.spec as Record<string, unknown>;
    expect(spec(convert(CLUSTER_DOC, igDoc('')).manifests[0]).associatePublicIPAddress).toBe(false);
    const utility = igDoc('  associatePublicIp: false\n').replace('subnets: [a]', 'subnets: [b, a]');
    expect(spec(convert(CLUSTER_DOC, utility).manifests[0]).associatePublicIPAddress).toBe(false);
    expect(
      spec(convert(CLUSTER_DOC, igDoc('').replace('subnets: [a]', 'subnets: [b]')).manifests[0])
        .associatePublicIPAddress,
    ).toBe(true);
    expect(
      refusal(
        CLUSTER_DOC.replace('type: Utility', 'type: Weird'),
        igDoc('').replace('subnets: [a]', 'subnets: [b]'),
      ),
    ).toContain('spec.subnets: subnet b has unknown type "Weird"');
  });

  it('uses a custom instance profile, security group override and additional groups, taints and spot', () => {
    const { manifests } = convert(
      CLUSTER_DOC,
      igDoc(`  iam: { profile: "arn:aws:iam::123456789012:instance-profile/path/custom" }
  securityGroupOverride: sg-1
  additionalSecurityGroups: [sg-2]
  taints: ["dedicated=gpu:NoSchedule"]
  maxPrice: "0.5"
  machineType: m5.large,c5.large
  nodeLabels: { kubernetes.io/hostname: x, team: a }
`),
    );
    const [nodeClass, nodePool] = manifests as { spec: Record<string, unknown> }[];
    expect(nodeClass.spec).toMatchObject({
      instanceProfile: 'custom',
      securityGroupSelectorTerms: [{ id: 'sg-1' }, { id: 'sg-2' }],
    });
    expect(nodePool.spec).toEqual({
      template: {
        metadata: { labels: { 'node-role.kubernetes.io/node': '', team: 'a' } },
        spec: {
          nodeClassRef: nodeClassRef('workers'),
          requirements: [
            LINUX,
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c5.large', 'm5.large'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
          ],
          taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
        },
      },
    });
  });

  it('adds additional security groups after the tag term, and leaves out an empty kubelet', () => {
    const { manifests } = convert(
      CLUSTER_DOC,
      igDoc('  additionalSecurityGroups: [sg-2]\n  kubelet: { systemReserved: {}, kubeReserved: {} }\n'),
    );
    const spec = manifests[0].spec as Record<string, unknown>;
    expect(spec.securityGroupSelectorTerms).toEqual([
      { tags: { KubernetesCluster: 'c.example.com', Name: 'nodes.c.example.com' } },
      { id: 'sg-2' },
    ]);
    expect(spec).not.toHaveProperty('kubelet');
  });

  it('carries maxPods alone', () => {
    const spec = convert(CLUSTER_DOC, igDoc('  kubelet: { maxPods: 17 }\n')).manifests[0].spec as Record<
      string,
      unknown
    >;
    expect(spec.kubelet).toEqual({ maxPods: 17 });
  });

  it("warns about what it cannot carry: instanceRequirements, the subnets' types without a Cluster, other kOps kinds", () => {
    const keyset = 'apiVersion: kops.k8s.io/v1alpha2\nkind: SSHCredential\nmetadata: { name: admin }\n';
    const { manifests, warnings } = convert(
      igDoc(
        '  machineType: t2.medium\n  mixedInstancesPolicy:\n    instanceRequirements: { cpu: { min: "2" } }\n',
      ),
      keyset,
    );
    expect(manifests[0].spec).not.toHaveProperty('associatePublicIPAddress');
    expect(manifests[1].spec).toMatchObject({
      template: {
        spec: {
          requirements: [
            LINUX,
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['t2.medium'] },
            ON_DEMAND,
          ],
        },
      },
    });
    expect(warnings).toEqual([
      'igs.yaml document 1: kOps SSHCredential is not read by podlift kops; skipped',
      "igs.yaml document 0: InstanceGroup/workers: associatePublicIPAddress left to the subnets' default: the Cluster object (its subnets' types) is not in the input",
      'igs.yaml document 0: InstanceGroup/workers: spec.mixedInstancesPolicy.instanceRequirements is not carried into the NodePool (kOps does not either); add requirements to the NodePool by hand',
    ]);
  });

  it('skips InstanceGroups kOps runs as autoscaling groups', () => {
    expect(
      convert(CLUSTER_DOC, igDoc('').replace('manager: Karpenter', 'manager: CloudGroup')).manifests,
    ).toEqual([]);
  });
});

describe('karpenterManifestsFromKops edge cases', () => {
  it('does not warn about kOps running Karpenter when no InstanceGroup is converted, or when it is off', () => {
    const enabled = CLUSTER_DOC.replace('karpenter: {', 'karpenter: { enabled: true,');
    expect(convert(enabled, igDoc('').replace('manager: Karpenter', 'manager: CloudGroup')).warnings).toEqual(
      [],
    );
    expect(
      convert(CLUSTER_DOC.replace('karpenter: {', 'karpenter: { enabled: false,'), igDoc('')).warnings,
    ).toEqual([]);
    expect(convert(enabled, igDoc('')).warnings).toHaveLength(1);
  });

  it('names a bad Cluster, and skips an InstanceGroup without spec', () => {
    expect(refusal(CLUSTER_DOC.replace('metadata: { name: c.example.com }', 'metadata: {}'))).toMatch(
      /^igs\.yaml, document 0, Cluster: metadata\.name: required field is missing/,
    );
    expect(
      convert('apiVersion: kops.k8s.io/v1alpha2\nkind: InstanceGroup\nmetadata: { name: bare }\n').manifests,
    ).toEqual([]);
  });

  it('converts an InstanceGroup without the cluster label when the Cluster is there', () => {
    const doc = igDoc('').replace(', labels: { kops.k8s.io/cluster: c.example.com }', '');
    expect(convert(CLUSTER_DOC, doc).manifests).toHaveLength(2);
  });

  it('leaves a NodePool dynamic when static capacity is off and minSize is not set; an empty gate list allows it', () => {
    const off = CLUSTER_DOC.replace('StaticCapacity=true', 'StaticCapacity=false');
    expect(convert(off, igDoc('')).manifests[1].spec).not.toHaveProperty('replicas');
    expect(
      convert(CLUSTER_DOC.replace('"StaticCapacity=true"', '""'), igDoc('  minSize: 1\n')).manifests[1].spec,
    ).toMatchObject({ replicas: 1 });
  });

  it('gives DualStack subnets no public IP, and refuses a Cluster without subnets', () => {
    const dual = CLUSTER_DOC.replace('type: Private', 'type: DualStack');
    expect(
      (convert(dual, igDoc('  associatePublicIp: true\n')).manifests[0].spec as Record<string, unknown>)
        .associatePublicIPAddress,
    ).toBe(false);
    const bare = 'apiVersion: kops.k8s.io/v1alpha2\nkind: Cluster\nmetadata: { name: c.example.com }\n';
    expect(refusal(bare, igDoc(''))).toContain("spec.subnets: subnet a is not in the Cluster's spec.subnets");
  });

  it('tells a placeholder from a script', () => {
    expect(isNodeupScriptPlaceholder(42)).toBe(false);
    expect(isNodeupScriptPlaceholder(undefined)).toBe(false);
  });
});

describe('kOps schema', () => {
  it('recognises kops.k8s.io objects only', () => {
    expect(isKopsManifest({ apiVersion: 'kops.k8s.io/v1alpha2', kind: 'InstanceGroup' })).toBe(true);
    expect(isKopsManifest({ apiVersion: 'kops.k8s.io/v1alpha3' })).toBe(true);
    expect(isKopsManifest({ apiVersion: 'karpenter.sh/v1' })).toBe(false);
    expect(isKopsManifest({ apiVersion: 'x/kops.k8s.io/' })).toBe(false);
    expect(isKopsManifest({ apiVersion: 'kops.k8s.io' })).toBe(false);
    expect(isKopsManifest({ apiVersion: 3 })).toBe(false);
    expect(isKopsManifest(null)).toBe(false);
    expect(isKopsManifest('kops.k8s.io/v1alpha2')).toBe(false);
  });

  const at = { source: 'f.yaml' };
  it.each([
    ['metadata.labels', { metadata: { name: 'a', labels: { x: 1 } } }],
    [
      'spec.mixedInstancesPolicy.instances',
      { metadata: { name: 'a' }, spec: { mixedInstancesPolicy: { instances: 'm5.large' } } },
    ],
    ['spec.iam.profile', { metadata: { name: 'a' }, spec: { iam: { profile: 5 } } }],
    ['spec.kubelet.maxPods', { metadata: { name: 'a' }, spec: { kubelet: { maxPods: '50' } } }],
    ['spec.rootVolumeSize', { metadata: { name: 'a' }, spec: { rootVolumeSize: 1.5 } }],
  ])('refuses an InstanceGroup with a bad %s', (field, obj) => {
    expect(() => parseKopsInstanceGroup(obj, at)).toThrow(`f.yaml: ${field}`);
  });

  it.each([
    ['metadata.name', { metadata: { name: '' } }],
    ['spec.subnets[0].name', { metadata: { name: 'c' }, spec: { subnets: [{ name: 5 }] } }],
    ['spec.karpenter.enabled', { metadata: { name: 'c' }, spec: { karpenter: { enabled: 'yes' } } }],
    ['spec.kubelet.nodeLabels.a', { metadata: { name: 'c' }, spec: { kubelet: { nodeLabels: { a: 1 } } } }],
    ['spec.cloudProvider', { metadata: { name: 'c' }, spec: { cloudProvider: 5 } }],
  ])('refuses a Cluster with a bad %s', (field, obj) => {
    expect(() => parseKopsCluster(obj, at)).toThrow(`f.yaml: ${field}`);
  });
});
