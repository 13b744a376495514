import type { CrdKind } from './crd-schema';
import type { ParsedKind } from './custom-resources';

/**
 * The CRDs' CEL rules, each with the fields that break it, the transition rules, and what only
 * podlift's core checks. crd-cel.test.ts holds the CRDs and the core to these tables.
 */

/** One CEL rule, located by the kind and schema path it sits at, and an object that breaks it. */
export interface CelCase {
  readonly kind: ParsedKind;
  readonly path: string;
  readonly message: string;
  readonly breaking: Readonly<Record<string, unknown>>;
  /** Part of the core's message when it words the reason differently. */
  readonly core?: string;
}

const LABELS = 'spec.template.metadata.labels';
const KEY = 'spec.template.spec.requirements[].key';
const REQUIREMENTS = 'spec.template.spec.requirements';

/** The restricted label rules, on template labels (a map) and requirement keys (a string). */
const labelRules: readonly { message: string; key: string }[] = [
  { message: 'label domain "karpenter.sh" is restricted', key: 'karpenter.sh/initialized' },
  { message: 'label "karpenter.sh/nodepool" is restricted', key: 'karpenter.sh/nodepool' },
  { message: 'label "kubernetes.io/hostname" is restricted', key: 'kubernetes.io/hostname' },
  { message: 'label domain "karpenter.k8s.aws" is restricted', key: 'karpenter.k8s.aws/instance-price' },
];

const selectorTagRules = (list: string): CelCase => ({
  kind: 'EC2NodeClass',
  path: `spec.${list}[].tags`,
  message: "empty tag keys or values aren't supported",
  breaking: { [`spec.${list}`]: [{ tags: { 'karpenter.sh/discovery': '' } }] },
});

const aliasFamilyRule = (family: string, alias: string, other: string): CelCase => ({
  kind: 'EC2NodeClass',
  path: 'spec',
  message: `if set, amiFamily must be '${family}' or 'Custom' when using ${/^A/.test(family) ? 'an' : 'a'} ${family} alias`,
  breaking: { 'spec.amiSelectorTerms': [{ alias: `${alias}@latest` }], 'spec.amiFamily': other },
});

const kubeletKeyRule = (field: string, keys: string): CelCase => ({
  kind: 'EC2NodeClass',
  path: `spec.kubelet.${field}`,
  message: `valid keys for ${field} are [${keys}]`,
  breaking: { [`spec.kubelet.${field}`]: { 'memory.free': '1' } },
});
const EVICTION_SIGNALS =
  "'memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available'";

const tagRule = (key: string, message = `tag contains a restricted tag matching ${key}`): CelCase => ({
  kind: 'EC2NodeClass',
  path: 'spec.tags',
  message,
  breaking: { 'spec.tags': { [key]: 'x' } },
});

export const celCases: readonly CelCase[] = [
  // NodePool
  ...labelRules.map(
    (r): CelCase => ({
      kind: 'NodePool',
      path: LABELS,
      message: r.message,
      breaking: { [LABELS]: { [r.key]: 'x' } },
    }),
  ),
  ...labelRules.map(
    (r): CelCase => ({
      kind: 'NodePool',
      path: KEY,
      message: r.message,
      breaking: { [REQUIREMENTS]: [{ key: r.key, operator: 'Exists' }] },
    }),
  ),
  {
    kind: 'NodePool',
    path: REQUIREMENTS,
    message: "requirements with operator 'In' must have a value defined",
    breaking: { [REQUIREMENTS]: [{ key: 'example.com/team', operator: 'In', values: [] }] },
  },
  {
    kind: 'NodePool',
    path: REQUIREMENTS,
    message: "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value",
    breaking: {
      [REQUIREMENTS]: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['four'] }],
    },
    core: "requirements operator 'Gte' must have a single positive integer value",
  },
  {
    kind: 'NodePool',
    path: REQUIREMENTS,
    message:
      "requirements with 'minValues' must have at least that many values specified in the 'values' field",
    breaking: { [REQUIREMENTS]: [{ key: 'example.com/team', operator: 'In', values: ['a'], minValues: 2 }] },
    core: "must have at least that many values specified in the 'values' field",
  },
  {
    kind: 'NodePool',
    path: 'spec.disruption.budgets',
    message: "'schedule' must be set with 'duration'",
    breaking: { 'spec.disruption.budgets': [{ nodes: '1', schedule: '@daily' }] },
  },
  {
    kind: 'NodePool',
    path: 'spec',
    message: "only 'limits.nodes' is supported on static NodePools",
    breaking: { 'spec.replicas': 2, 'spec.weight': undefined, 'spec.limits': { nodes: 4, cpu: 8 } },
  },
  {
    kind: 'NodePool',
    path: 'spec',
    message: "'weight' is not supported on static NodePools",
    breaking: { 'spec.replicas': 2, 'spec.limits': undefined },
  },
  // EC2NodeClass: AMI selection
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms[].alias',
    message: "'alias' is improperly formatted, must match the format 'family@version'",
    breaking: { 'spec.amiSelectorTerms': [{ alias: 'al2023' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms[].alias',
    message:
      "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
    breaking: { 'spec.amiSelectorTerms': [{ alias: 'ubuntu@latest' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms[].alias',
    message: "windows families may only specify version 'latest'",
    breaking: {
      'spec.amiSelectorTerms': [{ alias: 'windows2022@v20240101' }],
      'spec.amiFamily': 'Windows2022',
    },
  },
  selectorTagRules('amiSelectorTerms'),
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms',
    message: "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']",
    breaking: { 'spec.amiSelectorTerms': [{ owner: 'amazon' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms',
    message:
      "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
    // Karpenter's rule for AMI terms is `!self.exists(...)`: one mixed term is enough.
    breaking: { 'spec.amiSelectorTerms': [{ id: 'ami-0123', name: 'my-ami' }, { name: 'other-ami' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms',
    message:
      "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
    breaking: { 'spec.amiSelectorTerms': [{ alias: 'al2023@latest', owner: 'amazon' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.amiSelectorTerms',
    message: "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
    breaking: { 'spec.amiSelectorTerms': [{ alias: 'al2023@latest' }, { name: 'my-ami' }] },
  },
  aliasFamilyRule('AL2', 'al2', 'AL2023'),
  aliasFamilyRule('AL2023', 'al2023', 'AL2'),
  aliasFamilyRule('Bottlerocket', 'bottlerocket', 'AL2023'),
  aliasFamilyRule('Windows2019', 'windows2019', 'Windows2022'),
  aliasFamilyRule('Windows2022', 'windows2022', 'Windows2019'),
  aliasFamilyRule('Windows2025', 'windows2025', 'Windows2022'),
  {
    kind: 'EC2NodeClass',
    path: 'spec',
    message: 'must specify amiFamily if amiSelectorTerms does not contain an alias',
    breaking: { 'spec.amiSelectorTerms': [{ id: 'ami-0123' }], 'spec.amiFamily': undefined },
  },
  // EC2NodeClass: subnets, security groups, capacity reservations
  selectorTagRules('subnetSelectorTerms'),
  {
    kind: 'EC2NodeClass',
    path: 'spec.subnetSelectorTerms',
    message: "expected at least one, got none, ['tags', 'id', 'cidr']",
    breaking: { 'spec.subnetSelectorTerms': [{}] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.subnetSelectorTerms',
    message:
      "'id' is mutually exclusive, cannot be set with a combination of other fields in subnetSelectorTerms",
    // `!self.all(...)`: only a list in which every term mixes them breaks it.
    breaking: { 'spec.subnetSelectorTerms': [{ id: 'subnet-0123', tags: { a: 'b' } }] },
  },
  selectorTagRules('securityGroupSelectorTerms'),
  {
    kind: 'EC2NodeClass',
    path: 'spec.securityGroupSelectorTerms',
    message: "expected at least one, got none, ['tags', 'id', 'name']",
    breaking: { 'spec.securityGroupSelectorTerms': [{}] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.securityGroupSelectorTerms',
    message:
      "'id' is mutually exclusive, cannot be set with a combination of other fields in securityGroupSelectorTerms",
    breaking: { 'spec.securityGroupSelectorTerms': [{ id: 'sg-0123', tags: { a: 'b' } }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.securityGroupSelectorTerms',
    message:
      "'name' is mutually exclusive, cannot be set with a combination of other fields in securityGroupSelectorTerms",
    breaking: { 'spec.securityGroupSelectorTerms': [{ name: 'my-sg', tags: { a: 'b' } }] },
  },
  selectorTagRules('capacityReservationSelectorTerms'),
  {
    kind: 'EC2NodeClass',
    path: 'spec.capacityReservationSelectorTerms',
    message: "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
    breaking: { 'spec.capacityReservationSelectorTerms': [{ ownerID: '012345678901' }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.capacityReservationSelectorTerms',
    message:
      "'id' is mutually exclusive, cannot be set with a combination of other fields in capacityReservationSelectorTerms",
    breaking: { 'spec.capacityReservationSelectorTerms': [{ id: 'cr-0123', instanceMatchCriteria: 'open' }] },
  },
  // EC2NodeClass: launch settings of Karpenter v1.14
  {
    kind: 'EC2NodeClass',
    path: 'spec.placementGroupSelector',
    message: "expected at least one, got none, ['name', 'id']",
    breaking: { 'spec.placementGroupSelector': {} },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.placementGroupSelector',
    message: "'name' and 'id' are mutually exclusive",
    breaking: { 'spec.placementGroupSelector': { name: 'my-pg', id: 'pg-0123' } },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.networkInterfaces',
    message: "networkInterfaces must include a primary interface with interfaceType='interface'",
    breaking: {
      'spec.networkInterfaces': [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'efa-only' }],
    },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.networkInterfaces',
    message:
      'networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card',
    breaking: {
      'spec.networkInterfaces': [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
        { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' },
      ],
    },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.connectionTracking',
    message: 'at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set',
    breaking: { 'spec.connectionTracking': {} },
  },
  // EC2NodeClass: block devices
  {
    kind: 'EC2NodeClass',
    path: 'spec.blockDeviceMappings[].ebs',
    message: 'snapshotID or volumeSize must be defined',
    breaking: { 'spec.blockDeviceMappings': [{ deviceName: '/dev/xvda', ebs: { volumeType: 'gp3' } }] },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.blockDeviceMappings[].ebs',
    message: 'snapshotID must be set when volumeInitializationRate is set',
    breaking: {
      'spec.blockDeviceMappings': [{ ebs: { volumeSize: '20Gi', volumeInitializationRate: 200 } }],
    },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.blockDeviceMappings',
    message: 'must have only one blockDeviceMappings with rootVolume',
    breaking: {
      'spec.blockDeviceMappings': [
        { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi' } },
        { deviceName: '/dev/xvdb', rootVolume: true, ebs: { volumeSize: '20Gi' } },
      ],
    },
  },
  // EC2NodeClass: kubelet
  kubeletKeyRule('evictionHard', EVICTION_SIGNALS),
  {
    ...kubeletKeyRule('evictionSoft', EVICTION_SIGNALS),
    breaking: {
      'spec.kubelet.evictionSoft': { 'memory.free': '1Gi' },
      'spec.kubelet.evictionSoftGracePeriod': { 'memory.free': '1m' },
    },
  },
  {
    ...kubeletKeyRule('evictionSoftGracePeriod', EVICTION_SIGNALS),
    breaking: {
      'spec.kubelet.evictionSoft': { 'memory.free': '1Gi' },
      'spec.kubelet.evictionSoftGracePeriod': { 'memory.free': '1m' },
    },
  },
  kubeletKeyRule('kubeReserved', "'cpu','memory','ephemeral-storage','pid'"),
  kubeletKeyRule('systemReserved', "'cpu','memory','ephemeral-storage','pid'"),
  {
    kind: 'EC2NodeClass',
    path: 'spec.kubelet.kubeReserved',
    message: 'kubeReserved value cannot be a negative resource quantity',
    breaking: { 'spec.kubelet.kubeReserved': { cpu: '-100m' } },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.kubelet.systemReserved',
    message: 'systemReserved value cannot be a negative resource quantity',
    breaking: { 'spec.kubelet.systemReserved': { memory: '-1Gi' } },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.kubelet',
    message: 'imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent',
    breaking: {
      'spec.kubelet.imageGCHighThresholdPercent': 80,
      'spec.kubelet.imageGCLowThresholdPercent': 80,
    },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.kubelet',
    message: 'evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod',
    breaking: { 'spec.kubelet.evictionSoftGracePeriod': undefined },
  },
  {
    kind: 'EC2NodeClass',
    path: 'spec.kubelet',
    message: 'evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft',
    breaking: { 'spec.kubelet.evictionSoft': undefined },
  },
  // EC2NodeClass: identity and tags
  {
    kind: 'EC2NodeClass',
    path: 'spec',
    message: "must specify exactly one of ['role', 'instanceProfile']",
    breaking: { 'spec.instanceProfile': 'KarpenterNodeInstanceProfile' },
  },
  tagRule('', "empty tag keys aren't supported"),
  tagRule('eks:eks-cluster-name'),
  tagRule(
    'kubernetes.io/cluster/my-cluster',
    'tag contains a restricted tag matching kubernetes.io/cluster/',
  ),
  tagRule('karpenter.sh/nodepool'),
  tagRule('karpenter.sh/nodeclaim'),
  tagRule('karpenter.k8s.aws/ec2nodeclass'),
];

/**
 * Rules that compare an update with the previous object. The core validates one document
 * (a file, an SSM parameter, a listed object) and has no previous one, so only the API server
 * enforces these.
 */
export const transitionRules: readonly { kind: CrdKind; path: string; message: string }[] = [
  {
    kind: 'NodePool',
    path: 'spec',
    message:
      'Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes',
  },
  { kind: 'NodePool', path: 'spec.template.spec.nodeClassRef', message: 'nodeClassRef.group is immutable' },
  { kind: 'NodePool', path: 'spec.template.spec.nodeClassRef', message: 'nodeClassRef.kind is immutable' },
  { kind: 'NodeClaim', path: 'spec', message: 'spec is immutable' },
  // No EC2NodeClass rule: Karpenter v1.7 dropped spec.role's immutability and the
  // instanceProfile-to-role rule (aws/karpenter-provider-aws #8249).
];

/**
 * What the core checks and the CRD does not: the API server takes these objects and podlift
 * refuses them (the functions report the NodePool or EC2NodeClass as invalid). Listed so the
 * gap is known; a CEL rule for them would cost too much for the API server's CEL budget, or
 * (unknown fields) the API server prunes instead of rejecting.
 */
export const coreOnly: readonly {
  what: string;
  kind: ParsedKind;
  changes: Record<string, unknown>;
  core: string;
}[] = [
  {
    what: 'a template label key that is no qualified name (a regex over unbounded map keys)',
    kind: 'NodePool',
    changes: { [LABELS]: { 'team/': 'x' } },
    core: 'must be a qualified name',
  },
  {
    what: 'a taint key and effect twice (a nested loop over unbounded lists)',
    kind: 'NodePool',
    changes: {
      'spec.template.spec.startupTaints': [{ key: 'example.com/special-taint', effect: 'NoSchedule' }],
    },
    core: 'duplicate taint key and effect',
  },
  {
    what: 'a limit whose resource name is no qualified name',
    kind: 'NodePool',
    changes: { 'spec.limits': { 'my cpu': '1' } },
    core: 'resource name must be a qualified name',
  },
  {
    what: 'a requirement key whose name part is longer than 63 characters',
    kind: 'NodePool',
    changes: { [REQUIREMENTS]: [{ key: `example.com/${'x'.repeat(64)}`, operator: 'Exists' }] },
    core: 'name part must be at most 63 characters',
  },
  {
    what: 'an unknown field (the API server prunes it without a word)',
    kind: 'NodePool',
    changes: { 'spec.disruption.consolidateafter': '1m' },
    core: 'not a field of karpenter.sh/v1 NodePool',
  },
  {
    what: 'an unknown EC2NodeClass field',
    kind: 'EC2NodeClass',
    changes: { 'spec.amiSelectorTerms.0.version': 'latest' },
    core: 'not a field of karpenter.k8s.aws/v1 EC2NodeClass',
  },
  {
    what: 'a kubelet setting that is no KubeletConfiguration field (spec.kubelet keeps unknown fields)',
    kind: 'EC2NodeClass',
    changes: { 'spec.kubelet.shutdownGracePeriodSeconds': 30 },
    core: 'not a setting of kubelet.config.k8s.io/v1beta1 KubeletConfiguration',
  },
  {
    what: 'a kubelet setting the AMI family would drop (Karpenter reports it on the status)',
    kind: 'EC2NodeClass',
    changes: { 'spec.amiSelectorTerms': [{ alias: 'bottlerocket@latest' }], 'spec.amiFamily': undefined },
    // The base's podsPerCore too: Bottlerocket has no setting for it (aws provider
    // pkg/controllers/nodeclass/validation.go `validateKubeletFieldsSupported`, PodsPerCoreEnabled false).
    core: 'spec.kubelet has fields not applied by the Bottlerocket AMI family that would be silently dropped: podsPerCore, shutdownGracePeriod',
  },
  {
    what: 'a kubelet setting Karpenter sets itself',
    kind: 'EC2NodeClass',
    changes: { 'spec.kubelet.registerWithTaints': [] },
    core: "registerWithTaints: can't be set",
  },
  {
    what: 'an evictionSoftGracePeriod that is no Go duration (the CRD has no pattern for it)',
    kind: 'EC2NodeClass',
    changes: {
      'spec.kubelet.evictionSoftGracePeriod': { 'memory.available': '1 minute', 'nodefs.available': '1m' },
    },
    core: 'must be a duration',
  },
  {
    what: 'a negative evictionSoftGracePeriod',
    kind: 'EC2NodeClass',
    changes: {
      'spec.kubelet.evictionSoftGracePeriod': { 'memory.available': '-1m', 'nodefs.available': '1m' },
    },
    core: "can't be a negative duration",
  },
];
