import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseEC2NodeClass } from '../../../shared/core/manifests/ec2nodeclass-schema';
import { isValidationError, type ValidationError } from '../../../shared/core/model/errors';

/** The EC2NodeClass from Karpenter's documentation (concepts/nodeclasses), every field set, after envsubst. */
const DOCS_NODECLASS = `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  kubelet:
    podsPerCore: 2
    maxPods: 20
    systemReserved:
        cpu: 100m
        memory: 100Mi
        ephemeral-storage: 1Gi
    kubeReserved:
        cpu: 200m
        memory: 100Mi
        ephemeral-storage: 3Gi
    evictionHard:
        memory.available: 5%
        nodefs.available: 10%
        nodefs.inodesFree: 10%
    evictionSoft:
        memory.available: 500Mi
        nodefs.available: 15%
        nodefs.inodesFree: 15%
    evictionSoftGracePeriod:
        memory.available: 1m
        nodefs.available: 1m30s
        nodefs.inodesFree: 2m
    evictionMaxPodGracePeriod: 60
    imageGCHighThresholdPercent: 85
    imageGCLowThresholdPercent: 80
    cpuCFSQuota: true
    clusterDNS: ["10.0.1.100"]
  amiFamily: AL2023
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
    - id: subnet-09fa4a0a8f233a921
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
    - name: my-security-group
    - id: sg-063d7acfb4b06c82c
  capacityReservationSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
    - id: cr-123
  associatePublicIPAddress: true
  amiSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
        environment: test
    - name: my-ami
    - id: ami-123
    - ssmParameter: /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id
  role: "KarpenterNodeRole-my-cluster"
  tags:
    team: team-a
    app: team-a-app
  metadataOptions:
    httpEndpoint: enabled
    httpProtocolIPv6: disabled
    httpPutResponseHopLimit: 1
    httpTokens: required
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeSize: 100Gi
        volumeType: gp3
        iops: 10000
        encrypted: true
        kmsKeyID: "1234abcd-12ab-34cd-56ef-1234567890ab"
        deleteOnTermination: true
        throughput: 125
        snapshotID: snap-0123456789
  instanceStorePolicy: RAID0
  userData: |
    echo "Hello world"
  detailedMonitoring: true
  context: my-context
status:
  instanceProfile: "my-cluster-0123456778901234567789"
`;

/** The getting-started EC2NodeClass: an alias, discovery tags, nothing else. */
const ALIAS_NODECLASS = `
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: "KarpenterNodeRole-my-cluster"
  amiSelectorTerms:
    - alias: "al2023@latest"
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
`;

// biome-ignore lint/suspicious/noExplicitAny: tests edit arbitrary parsed YAML in place.
type Doc = Record<string, any>;

function nodeClassDoc(edit: (doc: Doc) => void = () => {}, base = DOCS_NODECLASS): Doc {
  const doc = parse(base) as Doc;
  edit(doc);
  return doc;
}

function validationError(doc: unknown): ValidationError {
  try {
    parseEC2NodeClass(doc, { source: '/podlift/prod/nodeclasses/default' });
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

/** Asserts the edit is rejected with an issue at `field`, the message naming the bad value. */
function expectRejected(
  edit: (doc: Doc) => void,
  field: string,
  messagePart?: string | RegExp,
  base = DOCS_NODECLASS,
): ValidationError {
  const err = validationError(nodeClassDoc(edit, base));
  const issue = err.issues.find((i) => i.field === field);
  expect(issue, `issues: ${err.message}`).toBeDefined();
  expect(err.message).toContain(`${field}: `);
  if (issue?.value !== undefined) expect(err.message).toContain(JSON.stringify(issue.value).slice(0, 100));
  if (messagePart !== undefined) expect(issue?.message).toMatch(messagePart);
  return err;
}

const GI = 2 ** 30;

describe('parseEC2NodeClass', () => {
  it('parses the Karpenter documentation example field for field', () => {
    const nc = parseEC2NodeClass(nodeClassDoc());
    expect(nc.name).toBe('default');
    expect(nc.kubelet).toEqual({
      podsPerCore: 2,
      maxPods: 20,
      systemReserved: { cpu: '100m', memory: '100Mi', 'ephemeral-storage': '1Gi' },
      kubeReserved: { cpu: '200m', memory: '100Mi', 'ephemeral-storage': '3Gi' },
      evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%', 'nodefs.inodesFree': '10%' },
      evictionSoft: { 'memory.available': '500Mi', 'nodefs.available': '15%', 'nodefs.inodesFree': '15%' },
      evictionSoftGracePeriod: {
        'memory.available': '1m',
        'nodefs.available': '1m30s',
        'nodefs.inodesFree': '2m',
      },
      evictionMaxPodGracePeriod: 60,
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      cpuCFSQuota: true,
      clusterDNS: ['10.0.1.100'],
    });
    expect(nc.amiFamily).toBe('AL2023');
    expect(nc.subnetSelectorTerms).toEqual([
      { tags: { 'karpenter.sh/discovery': 'my-cluster' } },
      { id: 'subnet-09fa4a0a8f233a921' },
    ]);
    expect(nc.securityGroupSelectorTerms).toHaveLength(3);
    expect(nc.capacityReservationSelectorTerms).toEqual([
      { tags: { 'karpenter.sh/discovery': 'my-cluster' } },
      { id: 'cr-123' },
    ]);
    expect(nc.amiSelectorTerms).toHaveLength(4);
    expect(nc.associatePublicIPAddress).toBe(true);
    expect(nc.role).toBe('KarpenterNodeRole-my-cluster');
    expect(nc.instanceProfile).toBeUndefined();
    expect(nc.tags).toEqual({ team: 'team-a', app: 'team-a-app' });
    expect(nc.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
    expect(nc.blockDeviceMappings[0]).toEqual({
      deviceName: '/dev/xvda',
      ebs: {
        volumeSize: '100Gi',
        volumeType: 'gp3',
        iops: 10000,
        encrypted: true,
        kmsKeyID: '1234abcd-12ab-34cd-56ef-1234567890ab',
        deleteOnTermination: true,
        throughput: 125,
        snapshotID: 'snap-0123456789',
      },
    });
    expect(nc.rootVolumeBytes).toBe(100 * GI);
    expect(nc.instanceStorePolicy).toBe('RAID0');
    expect(nc.userData).toBe('echo "Hello world"\n');
    expect(nc.detailedMonitoring).toBe(true);
    expect(nc.context).toBe('my-context');
    expect(nc.status).toEqual({ instanceProfile: 'my-cluster-0123456778901234567789' });
  });

  it("applies Karpenter's defaults and infers amiFamily from the alias", () => {
    const nc = parseEC2NodeClass(parse(ALIAS_NODECLASS));
    expect(nc.amiFamily).toBe('AL2023');
    expect(nc.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
    expect(nc.detailedMonitoring).toBe(false);
    expect(nc.blockDeviceMappings).toEqual([]);
    expect(nc.capacityReservationSelectorTerms).toEqual([]);
    expect(nc.tags).toEqual({});
    expect(nc.kubelet).toBeUndefined();
    expect(nc.rootVolumeBytes).toBe(20 * GI);
  });

  it('defaults each metadataOption left out of a partial metadataOptions', () => {
    const nc = parseEC2NodeClass(
      nodeClassDoc((d) => (d.spec.metadataOptions = { httpPutResponseHopLimit: 2 })),
    );
    expect(nc.metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 2,
      httpTokens: 'required',
    });
  });

  it.each([
    ['al2@v20240807', 'AL2'],
    ['al2023@latest', 'AL2023'],
    ['bottlerocket@latest', 'Bottlerocket'],
    ['bottlerocket@v1.20.0', 'Bottlerocket'],
    ['windows2019@latest', 'Windows2019'],
    ['windows2022@latest', 'Windows2022'],
  ])('infers the family of alias %s as %s', (alias, family) => {
    const nc = parseEC2NodeClass(
      nodeClassDoc((d) => (d.spec.amiSelectorTerms = [{ alias }]), ALIAS_NODECLASS),
    );
    expect(nc.amiFamily).toBe(family);
  });

  it('keeps Custom when set beside an alias', () => {
    const nc = parseEC2NodeClass(nodeClassDoc((d) => (d.spec.amiFamily = 'Custom'), ALIAS_NODECLASS));
    expect(nc.amiFamily).toBe('Custom');
  });

  it('accepts an instanceProfile instead of a role', () => {
    const nc = parseEC2NodeClass(
      nodeClassDoc((d) => {
        delete d.spec.role;
        d.spec.instanceProfile = 'KarpenterNodeInstanceProfile';
      }),
    );
    expect(nc.instanceProfile).toBe('KarpenterNodeInstanceProfile');
    expect(nc.role).toBeUndefined();
  });

  describe('rootVolumeBytes', () => {
    const withMappings = (mappings: unknown[], alias = 'al2023@latest') =>
      parseEC2NodeClass(
        nodeClassDoc((d) => {
          d.spec.amiSelectorTerms = [{ alias }];
          d.spec.blockDeviceMappings = mappings;
        }, ALIAS_NODECLASS),
      ).rootVolumeBytes;

    it('comes from the mapping marked rootVolume', () => {
      expect(
        withMappings([
          { deviceName: '/dev/xvda', ebs: { volumeSize: '50Gi' } },
          { deviceName: '/dev/xvdc', rootVolume: true, ebs: { volumeSize: '200Gi' } },
        ]),
      ).toBe(200 * GI);
    });

    it("comes from the family's root device without a rootVolume mapping", () => {
      expect(withMappings([{ deviceName: '/dev/xvda', ebs: { volumeSize: '80Gi' } }])).toBe(80 * GI);
      expect(
        withMappings(
          [
            { deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi' } },
            { deviceName: '/dev/xvdb', ebs: { volumeSize: '1T' } },
          ],
          'bottlerocket@latest',
        ),
      ).toBe(1e12);
    });

    it('defaults to 20Gi when no mapping sizes the root device', () => {
      expect(withMappings([{ deviceName: '/dev/xvdb', ebs: { volumeSize: '80Gi' } }])).toBe(20 * GI);
      expect(withMappings([{ deviceName: '/dev/xvda', ebs: { snapshotID: 'snap-1' } }])).toBe(20 * GI);
    });

    it("defaults to the Windows families' 50Gi /dev/sda1 (Karpenter's ephemeralStorage falls back to the family's default mappings)", () => {
      for (const alias of ['windows2019@latest', 'windows2022@latest']) {
        expect(withMappings([], alias)).toBe(50 * GI);
        expect(withMappings([{ deviceName: '/dev/xvdb', ebs: { volumeSize: '80Gi' } }], alias)).toBe(50 * GI);
        expect(withMappings([{ deviceName: '/dev/sda1', ebs: { volumeSize: '120Gi' } }], alias)).toBe(
          120 * GI,
        );
      }
    });
  });

  it('names the source and the EC2NodeClass in errors', () => {
    const err = validationError(nodeClassDoc((d) => (d.spec.amiFamily = 'Ubuntu')));
    expect(err.location).toEqual({
      source: '/podlift/prod/nodeclasses/default',
      object: 'EC2NodeClass/default',
    });
    expect(err.message).toMatch(
      /^\/podlift\/prod\/nodeclasses\/default, EC2NodeClass\/default: spec\.amiFamily: /,
    );
  });

  describe('rejects, with the field and the bad value', () => {
    it('an apiVersion other than karpenter.k8s.aws/v1 and another kind', () => {
      expectRejected((d) => (d.apiVersion = 'karpenter.k8s.aws/v1beta1'), 'apiVersion', /migrate/);
      expectRejected((d) => (d.kind = 'NodeClass'), 'kind');
    });

    it('unknown fields, naming each one', () => {
      expectRejected(
        (d) => (d.spec.subnetSelector = { a: 'b' }),
        'spec.subnetSelector',
        /unknown field "subnetSelector"/,
      );
      expectRejected((d) => (d.spec.kubelet.maxpods = 3), 'spec.kubelet.maxpods');
      expectRejected(
        (d) => (d.spec.blockDeviceMappings[0].ebs.size = '1Gi'),
        'spec.blockDeviceMappings[0].ebs.size',
      );
      expectRejected((d) => (d.spec.metadataOptions.hopLimit = 2), 'spec.metadataOptions.hopLimit');
    });

    it('missing or empty subnet, security group and AMI selector terms', () => {
      expectRejected((d) => delete d.spec.subnetSelectorTerms, 'spec.subnetSelectorTerms', /required/);
      expectRejected((d) => (d.spec.subnetSelectorTerms = []), 'spec.subnetSelectorTerms', /cannot be empty/);
      expectRejected(
        (d) => (d.spec.securityGroupSelectorTerms = []),
        'spec.securityGroupSelectorTerms',
        /cannot be empty/,
      );
      expectRejected((d) => (d.spec.amiSelectorTerms = []), 'spec.amiSelectorTerms');
    });

    it('selector terms selecting on nothing', () => {
      expectRejected(
        (d) => (d.spec.subnetSelectorTerms[0] = {}),
        'spec.subnetSelectorTerms[0]',
        /expected at least one/,
      );
      expectRejected(
        (d) => (d.spec.securityGroupSelectorTerms[0] = {}),
        'spec.securityGroupSelectorTerms[0]',
      );
      expectRejected((d) => (d.spec.amiSelectorTerms[0] = { owner: 'self' }), 'spec.amiSelectorTerms[0]');
      expectRejected(
        (d) => (d.spec.capacityReservationSelectorTerms[0] = { ownerID: '123456789012' }),
        'spec.capacityReservationSelectorTerms[0]',
      );
    });

    it('an id combined with other fields in every subnet, security group or reservation term, or in any AMI term', () => {
      expectRejected(
        (d) => (d.spec.subnetSelectorTerms = [{ id: 'subnet-1', tags: { a: 'b' } }]),
        'spec.subnetSelectorTerms[0].id',
        /'id' is mutually exclusive/,
      );
      expectRejected(
        (d) => (d.spec.securityGroupSelectorTerms = [{ id: 'sg-1', name: 'x' }]),
        'spec.securityGroupSelectorTerms[0].id',
      );
      expectRejected(
        (d) => (d.spec.securityGroupSelectorTerms = [{ name: 'x', tags: { a: 'b' } }]),
        'spec.securityGroupSelectorTerms[0].name',
      );
      expectRejected((d) => (d.spec.amiSelectorTerms[2].owner = 'self'), 'spec.amiSelectorTerms[2].id');
      expectRejected(
        (d) => (d.spec.capacityReservationSelectorTerms = [{ id: 'cr-1', instanceMatchCriteria: 'open' }]),
        'spec.capacityReservationSelectorTerms[0].id',
      );
    });

    it('malformed ids', () => {
      expectRejected((d) => (d.spec.subnetSelectorTerms[1].id = 'sn-123'), 'spec.subnetSelectorTerms[1].id');
      expectRejected(
        (d) => (d.spec.securityGroupSelectorTerms[2].id = 'subnet-1'),
        'spec.securityGroupSelectorTerms[2].id',
      );
      expectRejected((d) => (d.spec.amiSelectorTerms[2].id = 'AMI-1'), 'spec.amiSelectorTerms[2].id');
      expectRejected(
        (d) => (d.spec.capacityReservationSelectorTerms[1].id = 'cr_1'),
        'spec.capacityReservationSelectorTerms[1].id',
      );
      expectRejected(
        (d) => (d.spec.capacityReservationSelectorTerms[0].ownerID = '1234'),
        'spec.capacityReservationSelectorTerms[0].ownerID',
      );
    });

    it('empty tag keys or values in selector terms, and more than 20 tags', () => {
      expectRejected(
        (d) => (d.spec.subnetSelectorTerms[0].tags.env = ''),
        'spec.subnetSelectorTerms[0].tags.env',
        /empty tag/,
      );
      expectRejected((d) => (d.spec.amiSelectorTerms[0].tags[''] = 'x'), 'spec.amiSelectorTerms[0].tags[""]');
      expectRejected(
        (d) =>
          (d.spec.securityGroupSelectorTerms[0].tags = Object.fromEntries(
            Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']),
          )),
        'spec.securityGroupSelectorTerms[0].tags',
        /at most 20/,
      );
    });

    it('an alias beside other fields or other terms, and malformed aliases', () => {
      expectRejected(
        (d) => (d.spec.amiSelectorTerms[0].alias = 'al2023@latest'),
        'spec.amiSelectorTerms[0].alias',
      );
      expectRejected(
        (d) => d.spec.amiSelectorTerms.push({ alias: 'al2023@latest' }),
        'spec.amiSelectorTerms[4].alias',
        /combination of other amiSelectorTerms/,
      );
      const base = ALIAS_NODECLASS;
      expectRejected(
        (d) => (d.spec.amiSelectorTerms[0].alias = 'al2023'),
        'spec.amiSelectorTerms[0].alias',
        /family@version/,
        base,
      );
      expectRejected(
        (d) => (d.spec.amiSelectorTerms[0].alias = 'ubuntu@latest'),
        'spec.amiSelectorTerms[0].alias',
        /family is not supported/,
        base,
      );
      expectRejected(
        (d) => (d.spec.amiSelectorTerms[0].alias = 'windows2022@v1'),
        'spec.amiSelectorTerms[0].alias',
        /only specify version 'latest'/,
        base,
      );
      expectRejected(
        (d) => (d.spec.amiSelectorTerms[0].alias = `al2023@v${'1'.repeat(30)}`),
        'spec.amiSelectorTerms[0].alias',
        undefined,
        base,
      );
    });

    it('no amiFamily without an alias, and an amiFamily that contradicts the alias', () => {
      expectRejected((d) => delete d.spec.amiFamily, 'spec.amiFamily', /must specify amiFamily/);
      expectRejected(
        (d) => (d.spec.amiFamily = 'Bottlerocket'),
        'spec.amiFamily',
        /'AL2023' or 'Custom'/,
        ALIAS_NODECLASS,
      );
      expectRejected((d) => (d.spec.amiFamily = 'Ubuntu'), 'spec.amiFamily');
    });

    it('both or neither of role and instanceProfile, and empty ones', () => {
      expectRejected(
        (d) => (d.spec.instanceProfile = 'profile'),
        'spec.instanceProfile',
        /exactly one of \['role', 'instanceProfile'\]/,
      );
      expectRejected((d) => delete d.spec.role, 'spec.role', /exactly one/);
      expectRejected((d) => (d.spec.role = ''), 'spec.role', /role cannot be empty/);
    });

    it('restricted and empty tag keys', () => {
      for (const key of [
        'kubernetes.io/cluster/prod',
        'karpenter.sh/nodepool',
        'karpenter.sh/nodeclaim',
        'karpenter.k8s.aws/ec2nodeclass',
        'eks:eks-cluster-name',
      ]) {
        expectRejected(
          (d) => (d.spec.tags[key] = 'x'),
          `spec.tags[${JSON.stringify(key)}]`,
          /restricted tag/,
        );
      }
      expectRejected((d) => (d.spec.tags[''] = 'x'), 'spec.tags[""]', /empty tag keys/);
    });

    it('eviction thresholds with unknown signals or bad values', () => {
      expectRejected(
        (d) => (d.spec.kubelet.evictionHard['memory.free'] = '5%'),
        'spec.kubelet.evictionHard["memory.free"]',
        /valid keys for evictionHard/,
      );
      expectRejected(
        (d) => (d.spec.kubelet.evictionHard['memory.available'] = '101%'),
        'spec.kubelet.evictionHard["memory.available"]',
      );
      expectRejected(
        (d) => (d.spec.kubelet.evictionHard['memory.available'] = 'lots'),
        'spec.kubelet.evictionHard["memory.available"]',
      );
      expectRejected(
        (d) => (d.spec.kubelet.evictionSoft['pid.free'] = '5%'),
        'spec.kubelet.evictionSoft["pid.free"]',
      );
    });

    it('soft thresholds and grace periods that do not pair up', () => {
      expectRejected(
        (d) => delete d.spec.kubelet.evictionSoftGracePeriod['nodefs.available'],
        'spec.kubelet.evictionSoft["nodefs.available"]',
        /does not have a matching evictionSoftGracePeriod/,
      );
      expectRejected(
        (d) => (d.spec.kubelet.evictionSoftGracePeriod['imagefs.available'] = '1m'),
        'spec.kubelet.evictionSoftGracePeriod["imagefs.available"]',
        /does not have a matching evictionSoft/,
      );
      expectRejected(
        (d) => (d.spec.kubelet.evictionSoftGracePeriod['memory.available'] = 'a minute'),
        'spec.kubelet.evictionSoftGracePeriod["memory.available"]',
      );
    });

    it('reserved resources outside cpu, memory, ephemeral-storage and pid, or negative', () => {
      expectRejected(
        (d) => (d.spec.kubelet.kubeReserved['nvidia.com/gpu'] = '1'),
        'spec.kubelet.kubeReserved["nvidia.com/gpu"]',
        /valid keys for kubeReserved/,
      );
      expectRejected(
        (d) => (d.spec.kubelet.systemReserved.memory = '-1Gi'),
        'spec.kubelet.systemReserved.memory',
        /negative/,
      );
      expectRejected((d) => (d.spec.kubelet.systemReserved.cpu = 'one'), 'spec.kubelet.systemReserved.cpu');
    });

    it('image GC thresholds out of range or not high > low', () => {
      expectRejected(
        (d) => (d.spec.kubelet.imageGCHighThresholdPercent = 101),
        'spec.kubelet.imageGCHighThresholdPercent',
      );
      expectRejected(
        (d) => (d.spec.kubelet.imageGCLowThresholdPercent = -1),
        'spec.kubelet.imageGCLowThresholdPercent',
      );
      expectRejected(
        (d) => (d.spec.kubelet.imageGCHighThresholdPercent = 80),
        'spec.kubelet.imageGCHighThresholdPercent',
        /must be greater than imageGCLowThresholdPercent/,
      );
    });

    it('negative or fractional maxPods and podsPerCore', () => {
      expectRejected((d) => (d.spec.kubelet.maxPods = -1), 'spec.kubelet.maxPods');
      expectRejected((d) => (d.spec.kubelet.podsPerCore = 1.5), 'spec.kubelet.podsPerCore');
    });

    it('metadataOptions outside their enums and a hop limit outside 1..64', () => {
      expectRejected(
        (d) => (d.spec.metadataOptions.httpEndpoint = 'on'),
        'spec.metadataOptions.httpEndpoint',
      );
      expectRejected(
        (d) => (d.spec.metadataOptions.httpProtocolIPv6 = true),
        'spec.metadataOptions.httpProtocolIPv6',
      );
      expectRejected(
        (d) => (d.spec.metadataOptions.httpTokens = 'always'),
        'spec.metadataOptions.httpTokens',
      );
      expectRejected(
        (d) => (d.spec.metadataOptions.httpPutResponseHopLimit = 0),
        'spec.metadataOptions.httpPutResponseHopLimit',
      );
      expectRejected(
        (d) => (d.spec.metadataOptions.httpPutResponseHopLimit = 65),
        'spec.metadataOptions.httpPutResponseHopLimit',
      );
    });

    it('block device mappings with two root volumes, bad sizes or types, or no size nor snapshot', () => {
      expectRejected(
        (d) => {
          d.spec.blockDeviceMappings[0].rootVolume = true;
          d.spec.blockDeviceMappings.push({
            deviceName: '/dev/xvdb',
            rootVolume: true,
            ebs: { volumeSize: '10Gi' },
          });
        },
        'spec.blockDeviceMappings[1].rootVolume',
        /only one blockDeviceMappings with rootVolume/,
      );
      for (const size of ['100Mi', '0Gi', '60000Gi', '100', 'Gi']) {
        expectRejected(
          (d) => (d.spec.blockDeviceMappings[0].ebs.volumeSize = size),
          'spec.blockDeviceMappings[0].ebs.volumeSize',
        );
      }
      expectRejected(
        (d) => (d.spec.blockDeviceMappings[0].ebs.volumeSize = 100),
        'spec.blockDeviceMappings[0].ebs.volumeSize',
        /string/,
      );
      expectRejected(
        (d) => (d.spec.blockDeviceMappings[0].ebs.volumeType = 'gp4'),
        'spec.blockDeviceMappings[0].ebs.volumeType',
      );
      expectRejected(
        (d) => (d.spec.blockDeviceMappings[0].ebs = { volumeType: 'gp3' }),
        'spec.blockDeviceMappings[0].ebs',
        /snapshotID or volumeSize must be defined/,
      );
      expectRejected(
        (d) => (d.spec.blockDeviceMappings[0].ebs = { volumeSize: '10Gi', volumeInitializationRate: 200 }),
        'spec.blockDeviceMappings[0].ebs.volumeInitializationRate',
        /snapshotID must be set/,
      );
    });

    it('an instanceStorePolicy other than RAID0 and non-boolean flags', () => {
      expectRejected((d) => (d.spec.instanceStorePolicy = 'RAID1'), 'spec.instanceStorePolicy');
      expectRejected((d) => (d.spec.detailedMonitoring = 'yes'), 'spec.detailedMonitoring');
      expectRejected((d) => (d.spec.associatePublicIPAddress = 'true'), 'spec.associatePublicIPAddress');
      expectRejected((d) => (d.spec.ipPrefixCount = -1), 'spec.ipPrefixCount');
    });
  });
});
