import { describe, expect, it } from 'vitest';
import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { checkSpec } from './crd-schema';
import {
  completeEc2NodeClassManifest,
  completeNodePoolManifest,
  coreRejection,
  type ParsedKind,
  withFields,
} from './custom-resources';
import { exampleObjects } from './manifests';

/**
 * The CRDs' OpenAPI schemas (CEL rules aside, see crd-cel.test.ts) accept what podlift's core
 * accepts and reject what it rejects: a NodePool the API server takes is one podlift can use.
 */

function expectAccepted(kind: ParsedKind, manifest: object): void {
  expect(checkSpec(kind, manifest).errors).toEqual([]);
  expect(coreRejection(kind, manifest)).toBeUndefined();
}

describe('CRD schemas accept valid objects', () => {
  const examples = (kind: ParsedKind) =>
    exampleObjects(kind).map(({ file, object }) => [`${file}: ${object.metadata.name}`, object] as const);

  it('finds NodePools and EC2NodeClasses in examples/', () => {
    expect(examples('NodePool').length).toBeGreaterThanOrEqual(4);
    expect(examples('EC2NodeClass').length).toBeGreaterThanOrEqual(3);
  });

  it.each(examples('NodePool'))('accepts the NodePool in %s', (_, object) => {
    expectAccepted('NodePool', object);
  });

  it.each(examples('EC2NodeClass'))('accepts the EC2NodeClass in %s', (_, object) => {
    expectAccepted('EC2NodeClass', object);
  });

  it('accepts a NodePool with every field set', () => {
    expectAccepted('NodePool', completeNodePoolManifest());
  });

  it('accepts a static NodePool (replicas, limits.nodes only)', () => {
    expectAccepted(
      'NodePool',
      withFields(completeNodePoolManifest(), {
        'spec.replicas': 3,
        'spec.weight': undefined,
        'spec.limits': { nodes: 5 },
      }),
    );
  });

  it('accepts consolidationPolicy Balanced, as Karpenter does', () => {
    const manifest = withFields(completeNodePoolManifest(), {
      'spec.disruption.consolidationPolicy': 'Balanced',
    });
    expectAccepted('NodePool', manifest);
    expect(parseNodePool(manifest).disruption.consolidationPolicy).toBe('Balanced');
  });

  it('accepts an EC2NodeClass with every field set', () => {
    expectAccepted('EC2NodeClass', completeEc2NodeClassManifest());
  });

  it('accepts an EC2NodeClass with an instance profile and AMI ids instead of a role and an alias', () => {
    expectAccepted(
      'EC2NodeClass',
      withFields(completeEc2NodeClassManifest(), {
        'spec.role': undefined,
        'spec.instanceProfile': 'KarpenterNodeInstanceProfile',
        'spec.amiSelectorTerms': [{ id: 'ami-0123456789abcdef0' }, { name: 'my-ami-*', owner: 'self' }],
        'spec.amiFamily': 'Custom',
      }),
    );
  });
});

describe('CRD defaults', () => {
  const minimalNodePool = withFields(completeNodePoolManifest(), {
    'spec.disruption': undefined,
    'spec.template.spec.expireAfter': undefined,
    'spec.template.metadata': undefined,
    'spec.weight': undefined,
    'spec.limits': undefined,
  });

  it("are Karpenter's and the core's for a NodePool without disruption or expireAfter", () => {
    const { defaulted } = checkSpec('NodePool', minimalNodePool);
    expect(defaulted).toMatchObject({
      disruption: {
        consolidateAfter: '0s',
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        budgets: [{ nodes: '10%' }],
      },
      template: { spec: { expireAfter: '720h' } },
    });
    expect(parseNodePool({ ...minimalNodePool, spec: defaulted })).toEqual(parseNodePool(minimalNodePool));
  });

  it('give a budget without nodes 10%, as the core does', () => {
    const manifest = withFields(completeNodePoolManifest(), {
      'spec.disruption.budgets': [{ schedule: '@daily', duration: '1h' }],
    });
    const { valid, defaulted } = checkSpec('NodePool', manifest);
    expect(valid).toBe(true);
    expect(defaulted).toMatchObject({ disruption: { budgets: [{ nodes: '10%' }] } });
    expect(parseNodePool({ ...manifest, spec: defaulted })).toEqual(parseNodePool(manifest));
  });

  it("are the core's metadataOptions for an EC2NodeClass without them", () => {
    const manifest = withFields(completeEc2NodeClassManifest(), { 'spec.metadataOptions': undefined });
    const { defaulted } = checkSpec('EC2NodeClass', manifest);
    expect(defaulted).toMatchObject({
      metadataOptions: {
        httpEndpoint: 'enabled',
        httpProtocolIPv6: 'disabled',
        httpPutResponseHopLimit: 1,
        httpTokens: 'required',
      },
    });
    expect(parseEC2NodeClass({ ...manifest, spec: defaulted })).toEqual(parseEC2NodeClass(manifest));
  });
});

/** An invalid object: what is wrong, the fields that make it so, and what the core says. */
interface InvalidCase {
  readonly what: string;
  readonly changes: Readonly<Record<string, unknown>>;
  /** A part of the core's message. */
  readonly core: string;
}

const requirement = (fields: Record<string, unknown>) => [
  { key: 'example.com/team', operator: 'In', ...fields },
];

const invalidNodePools: readonly InvalidCase[] = [
  {
    what: 'an unknown operator',
    changes: { 'spec.template.spec.requirements.0.operator': 'Contains' },
    core: 'operator',
  },
  { what: 'weight 0', changes: { 'spec.weight': 0 }, core: 'spec.weight' },
  { what: 'weight 101', changes: { 'spec.weight': 101 }, core: 'spec.weight' },
  { what: 'a fractional weight', changes: { 'spec.weight': 1.5 }, core: 'spec.weight' },
  {
    what: 'no nodeClassRef',
    changes: { 'spec.template.spec.nodeClassRef': undefined },
    core: 'nodeClassRef',
  },
  {
    what: 'an empty nodeClassRef name',
    changes: { 'spec.template.spec.nodeClassRef.name': '' },
    core: 'name may not be empty',
  },
  {
    what: 'a nodeClassRef group with "/"',
    changes: { 'spec.template.spec.nodeClassRef.group': 'karpenter.k8s.aws/v1' },
    core: 'group must not contain',
  },
  {
    what: 'no requirements',
    changes: { 'spec.template.spec.requirements': undefined },
    core: 'requirements',
  },
  {
    what: 'a requirement key with a space',
    changes: { 'spec.template.spec.requirements.0.key': 'my key' },
    core: 'qualified name',
  },
  {
    what: 'a requirement value with a space',
    changes: { 'spec.template.spec.requirements': requirement({ values: ['a b'] }) },
    core: 'values[0]',
  },
  {
    what: 'minValues 0',
    changes: { 'spec.template.spec.requirements': requirement({ values: ['a'], minValues: 0 }) },
    core: 'minValues',
  },
  {
    what: 'minValues 51',
    changes: { 'spec.template.spec.requirements': requirement({ values: ['a'], minValues: 51 }) },
    core: 'minValues',
  },
  {
    what: 'budget nodes "abc"',
    changes: { 'spec.disruption.budgets': [{ nodes: 'abc' }] },
    core: 'must be a count',
  },
  {
    what: 'budget nodes "101%"',
    changes: { 'spec.disruption.budgets': [{ nodes: '101%' }] },
    core: 'must be a count',
  },
  {
    what: 'a budget duration in seconds',
    changes: { 'spec.disruption.budgets': [{ nodes: '1', schedule: '@daily', duration: '30s' }] },
    core: 'duration',
  },
  {
    what: 'a budget schedule with three fields',
    changes: { 'spec.disruption.budgets': [{ nodes: '1', schedule: '0 9 *', duration: '1h' }] },
    core: 'cron schedule',
  },
  {
    what: 'an unknown budget reason',
    changes: { 'spec.disruption.budgets': [{ nodes: '1', reasons: ['Expired'] }] },
    core: 'reasons',
  },
  {
    what: 'a budget reason twice',
    changes: { 'spec.disruption.budgets': [{ nodes: '1', reasons: ['Empty', 'Empty'] }] },
    core: 'duplicate reason',
  },
  {
    what: '51 budgets',
    changes: { 'spec.disruption.budgets': Array.from({ length: 51 }, () => ({ nodes: '1' })) },
    core: 'budgets',
  },
  {
    what: "Karpenter v1beta1's WhenUnderutilized",
    changes: { 'spec.disruption.consolidationPolicy': 'WhenUnderutilized' },
    core: 'consolidationPolicy',
  },
  {
    what: 'a lowercase balanced',
    changes: { 'spec.disruption.consolidationPolicy': 'balanced' },
    core: 'consolidationPolicy',
  },
  {
    what: 'disruption without consolidateAfter',
    changes: { 'spec.disruption.consolidateAfter': undefined },
    core: 'consolidateAfter',
  },
  {
    what: 'consolidateAfter in days',
    changes: { 'spec.disruption.consolidateAfter': '1d' },
    core: 'consolidateAfter',
  },
  { what: 'expireAfter in days', changes: { 'spec.template.spec.expireAfter': '30d' }, core: 'expireAfter' },
  {
    what: 'terminationGracePeriod Never',
    changes: { 'spec.template.spec.terminationGracePeriod': 'Never' },
    core: 'terminationGracePeriod',
  },
  {
    what: 'a taint effect NoExecuteNow',
    changes: { 'spec.template.spec.taints.0.effect': 'NoExecuteNow' },
    core: 'effect',
  },
  {
    what: 'a startup taint without effect',
    changes: { 'spec.template.spec.startupTaints.0.effect': undefined },
    core: 'effect',
  },
  { what: 'an empty taint key', changes: { 'spec.template.spec.taints.0.key': '' }, core: 'key' },
  {
    what: 'a taint value with a space',
    changes: { 'spec.template.spec.taints.0.value': 'a b' },
    core: 'value',
  },
  {
    what: 'a template label value starting with "-"',
    changes: { 'spec.template.metadata.labels': { team: '-x' } },
    core: 'labels.team',
  },
  {
    what: 'a 64-character template label value',
    changes: { 'spec.template.metadata.labels': { team: 'x'.repeat(64) } },
    core: 'at most 63',
  },
  {
    what: '101 template labels',
    changes: {
      'spec.template.metadata.labels': Object.fromEntries(
        Array.from({ length: 101 }, (_, i) => [`l${i}`, 'x']),
      ),
    },
    core: 'at most 100 labels',
  },
  {
    what: 'a limit that is no quantity',
    changes: { 'spec.limits': { cpu: 'lots' } },
    core: 'Kubernetes quantity',
  },
  {
    what: 'a negative limit as a string',
    changes: { 'spec.limits': { cpu: '-5' } },
    core: 'limit must not be negative',
  },
  {
    what: 'a negative limit as a number',
    changes: { 'spec.limits': { memory: -1 } },
    core: 'limit must not be negative',
  },
  {
    what: 'negative replicas',
    changes: { 'spec.replicas': -1, 'spec.weight': undefined, 'spec.limits': undefined },
    core: 'replicas',
  },
];

const invalidEC2NodeClasses: readonly InvalidCase[] = [
  {
    what: 'empty subnetSelectorTerms',
    changes: { 'spec.subnetSelectorTerms': [] },
    core: 'subnetSelectorTerms cannot be empty',
  },
  {
    what: 'no subnetSelectorTerms',
    changes: { 'spec.subnetSelectorTerms': undefined },
    core: 'subnetSelectorTerms',
  },
  {
    what: 'empty securityGroupSelectorTerms',
    changes: { 'spec.securityGroupSelectorTerms': [] },
    core: 'securityGroupSelectorTerms cannot be empty',
  },
  {
    what: 'empty amiSelectorTerms',
    changes: { 'spec.amiSelectorTerms': [] },
    core: 'amiSelectorTerms cannot be empty',
  },
  {
    what: 'metadataOptions.httpTokens "maybe"',
    changes: { 'spec.metadataOptions.httpTokens': 'maybe' },
    core: 'httpTokens',
  },
  {
    what: 'metadataOptions.httpEndpoint "on"',
    changes: { 'spec.metadataOptions.httpEndpoint': 'on' },
    core: 'httpEndpoint',
  },
  {
    what: 'a hop limit of 0',
    changes: { 'spec.metadataOptions.httpPutResponseHopLimit': 0 },
    core: 'httpPutResponseHopLimit',
  },
  {
    what: 'a hop limit of 65',
    changes: { 'spec.metadataOptions.httpPutResponseHopLimit': 65 },
    core: 'httpPutResponseHopLimit',
  },
  { what: 'amiFamily Ubuntu', changes: { 'spec.amiFamily': 'Ubuntu' }, core: 'amiFamily' },
  {
    what: 'a subnet id without "subnet-"',
    changes: { 'spec.subnetSelectorTerms': [{ id: 'sn-0123' }] },
    core: 'subnet id',
  },
  {
    what: 'a security group id without "sg-"',
    changes: { 'spec.securityGroupSelectorTerms': [{ id: 'group-1' }] },
    core: 'security group id',
  },
  {
    what: 'an AMI id without "ami-"',
    changes: { 'spec.amiSelectorTerms': [{ id: 'image-1' }] },
    core: 'AMI id',
  },
  {
    what: 'a 31-character alias',
    changes: { 'spec.amiSelectorTerms': [{ alias: `al2023@v${'1'.repeat(23)}` }] },
    core: 'alias',
  },
  {
    what: 'a capacity reservation id without "cr-"',
    changes: { 'spec.capacityReservationSelectorTerms': [{ id: 'res-1' }] },
    core: 'capacity reservation id',
  },
  {
    what: 'a 3-digit ownerID',
    changes: { 'spec.capacityReservationSelectorTerms': [{ tags: { a: 'b' }, ownerID: '123' }] },
    core: '12-digit',
  },
  {
    what: 'instanceMatchCriteria "any"',
    changes: { 'spec.capacityReservationSelectorTerms': [{ instanceMatchCriteria: 'any' }] },
    core: 'instanceMatchCriteria',
  },
  {
    what: 'a selector with 21 tags',
    changes: {
      'spec.subnetSelectorTerms': [
        { tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`t${i}`, 'x'])) },
      ],
    },
    core: 'at most 20 tags',
  },
  {
    what: 'volumeSize "100Gb"',
    changes: { 'spec.blockDeviceMappings': [{ ebs: { volumeSize: '100Gb' } }] },
    core: 'volumeSize',
  },
  {
    what: 'volumeSize 60000Gi',
    changes: { 'spec.blockDeviceMappings': [{ ebs: { volumeSize: '60000Gi' } }] },
    core: 'volumeSize',
  },
  {
    what: 'volumeSize as a number',
    changes: { 'spec.blockDeviceMappings': [{ ebs: { volumeSize: 100 } }] },
    core: 'volumeSize',
  },
  {
    what: 'volumeType gp4',
    changes: { 'spec.blockDeviceMappings': [{ ebs: { volumeSize: '20Gi', volumeType: 'gp4' } }] },
    core: 'volumeType',
  },
  {
    what: 'volumeInitializationRate 50',
    changes: {
      'spec.blockDeviceMappings': [{ ebs: { snapshotID: 'snap-1', volumeInitializationRate: 50 } }],
    },
    core: 'volumeInitializationRate',
  },
  {
    what: 'instanceStorePolicy RAID1',
    changes: { 'spec.instanceStorePolicy': 'RAID1' },
    core: 'instanceStorePolicy',
  },
  { what: 'kubelet maxPods -1', changes: { 'spec.kubelet.maxPods': -1 }, core: 'maxPods' },
  {
    what: 'kubelet imageGCHighThresholdPercent 101',
    changes: { 'spec.kubelet.imageGCHighThresholdPercent': 101 },
    core: 'imageGCHighThresholdPercent',
  },
  {
    what: 'an evictionHard value "lots"',
    changes: { 'spec.kubelet.evictionHard': { 'memory.available': 'lots' } },
    core: 'evictionHard',
  },
  {
    what: 'a kubeReserved value "lots"',
    changes: { 'spec.kubelet.kubeReserved': { cpu: 'lots' } },
    core: 'kubeReserved',
  },
  {
    what: 'placementGroupSelector id "placement-1"',
    changes: { 'spec.placementGroupSelector': { id: 'placement-1' } },
    core: 'placement group id',
  },
  {
    what: 'an empty placement group name',
    changes: { 'spec.placementGroupSelector': { name: '' } },
    core: 'placementGroupSelector.name',
  },
  {
    what: 'interfaceType "efa"',
    changes: { 'spec.networkInterfaces': [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'efa' }] },
    core: 'interfaceType',
  },
  {
    what: 'networkCardIndex -1',
    changes: {
      'spec.networkInterfaces': [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: -1, deviceIndex: 1, interfaceType: 'interface' },
      ],
    },
    core: 'networkCardIndex',
  },
  {
    what: 'a network interface without deviceIndex',
    changes: { 'spec.networkInterfaces': [{ networkCardIndex: 0, interfaceType: 'interface' }] },
    core: 'deviceIndex',
  },
  {
    what: 'tcpEstablishedTimeout 59',
    changes: { 'spec.connectionTracking': { tcpEstablishedTimeout: 59 } },
    core: 'tcpEstablishedTimeout',
  },
  {
    what: 'udpStreamTimeout 181',
    changes: { 'spec.connectionTracking': { udpStreamTimeout: 181 } },
    core: 'udpStreamTimeout',
  },
  { what: 'udpTimeout 61', changes: { 'spec.connectionTracking': { udpTimeout: 61 } }, core: 'udpTimeout' },
  {
    what: 'nestedVirtualization "on"',
    changes: { 'spec.cpuOptions': { nestedVirtualization: 'on' } },
    core: 'nestedVirtualization',
  },
  { what: 'an empty role', changes: { 'spec.role': '' }, core: 'role cannot be empty' },
  { what: 'ipPrefixCount -1', changes: { 'spec.ipPrefixCount': -1 }, core: 'ipPrefixCount' },
  {
    what: 'detailedMonitoring "yes"',
    changes: { 'spec.detailedMonitoring': 'yes' },
    core: 'detailedMonitoring',
  },
];

describe.each([
  ['NodePool', completeNodePoolManifest, invalidNodePools],
  ['EC2NodeClass', completeEc2NodeClassManifest, invalidEC2NodeClasses],
] as const)('the %s CRD schema and the core', (kind, build, cases) => {
  it('start from an object both accept', () => {
    expectAccepted(kind, build());
  });

  it.each(cases.map((c) => [c.what, c] as const))('both reject %s', (_, c) => {
    const manifest = withFields(build(), c.changes);
    expect(checkSpec(kind, manifest).valid).toBe(false);
    expect(coreRejection(kind, manifest)).toContain(c.core);
  });
});
