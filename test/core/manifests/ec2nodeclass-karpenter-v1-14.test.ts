import { describe, expect, it } from 'vitest';
import { parseEC2NodeClass } from '../../../shared/core/manifests/ec2nodeclass-schema';
import { nodeClassHash } from '../../../shared/core/model/drift-hash';
import { isValidationError } from '../../../shared/core/model/errors';
import { completeEc2NodeClassManifest, withFields } from '../../manifests/custom-resources';

/**
 * What Karpenter v1.14 (and, for spec.kubelet, its main branch) accepts in an EC2NodeClass and
 * podlift's core accepted less of: the Windows 2025 family, the launch settings of v1.14, the
 * rules Karpenter relaxed, and open kubelet settings.
 */

/** A minimal EC2NodeClass (an AL2023 alias), with `changes` applied by dotted path. */
function manifest(changes: Record<string, unknown> = {}) {
  return withFields(
    {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: {
        role: 'KarpenterNodeRole',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }],
        securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }],
      },
    },
    changes,
  );
}

function rejection(m: unknown): string {
  try {
    parseEC2NodeClass(m);
  } catch (e) {
    if (isValidationError(e)) return e.message;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('EC2NodeClass fields of Karpenter v1.14', () => {
  it('accepts the windows2025 alias and amiFamily Windows2025 without a warning (podlift bootstraps Windows)', () => {
    const byAlias = parseEC2NodeClass(
      manifest({ 'spec.amiSelectorTerms': [{ alias: 'windows2025@latest' }] }),
    );
    expect(byAlias.amiFamily).toBe('Windows2025');
    expect(byAlias.warnings).toEqual([]);
    const byFamily = parseEC2NodeClass(
      manifest({ 'spec.amiSelectorTerms': [{ id: 'ami-0123' }], 'spec.amiFamily': 'Windows2025' }),
    );
    expect(byFamily.amiFamily).toBe('Windows2025');
    expect(byFamily.warnings).toEqual([]);
    expect(rejection(manifest({ 'spec.amiSelectorTerms': [{ alias: 'windows2025@v1' }] }))).toContain(
      "windows families may only specify version 'latest'",
    );
  });

  it('accepts every spec field of Karpenter v1.14 and keeps the launch settings in the model', () => {
    const nc = parseEC2NodeClass(completeEc2NodeClassManifest());
    expect(nc.placementGroupSelector).toEqual({ name: 'my-placement-group' });
    expect(nc.networkInterfaces).toEqual([
      { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
      { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
    ]);
    expect(nc.connectionTracking).toEqual({
      tcpEstablishedTimeout: 3600,
      udpStreamTimeout: 120,
      udpTimeout: 30,
    });
    expect(nc.cpuOptions).toEqual({ nestedVirtualization: 'enabled' });
  });

  it('warns, naming the field, about what it accepts without honouring it', () => {
    const nc = parseEC2NodeClass(
      withFields(completeEc2NodeClassManifest(), {
        status: { capacityReservations: [{ id: 'cr-0123', availabilityZone: 'us-east-1a' }] },
      }),
    );
    const warnings = nc.warnings ?? [];
    // Honoured: resolved through DescribePlacementGroups and set on the launch template.
    expect(warnings.some((w) => w.includes('placementGroupSelector'))).toBe(false);
    // Honoured: reservations become reserved offerings that NodeClaims launch into.
    expect(warnings.some((w) => w.includes('capacityReservation'))).toBe(false);
    // Honoured in full: the template carries it and instance types are limited to Nitro ones.
    expect(warnings.some((w) => w.startsWith('spec.connectionTracking'))).toBe(false);
    expect(warnings).toContainEqual(
      expect.stringMatching(/^spec\.networkInterfaces is applied .* network cards/),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(/^spec\.cpuOptions\.nestedVirtualization is applied/),
    );
    expect(parseEC2NodeClass(manifest()).warnings).toEqual([]);
  });

  it('does not let warnings change the drift hash', () => {
    const nc = parseEC2NodeClass(manifest({ 'spec.placementGroupSelector': { id: 'pg-0123' } }));
    expect(nodeClassHash({ ...nc, warnings: [] })).toBe(nodeClassHash(nc));
  });

  it('says an unknown field is unknown in Karpenter v1.14, not that a real field is no field', () => {
    const message = rejection(manifest({ 'spec.cpuOption': { nestedVirtualization: 'enabled' } }));
    expect(message).toContain(
      'spec.cpuOption: unknown field "cpuOption" (not a field of karpenter.k8s.aws/v1 EC2NodeClass in Karpenter v1.14',
    );
    expect(message).not.toContain('"cpuOptions"');
  });
});

describe('EC2NodeClass rules Karpenter relaxed', () => {
  it('refuses a selector term mixing id with tags only when every term does, and warns the tags are ignored', () => {
    const nc = parseEC2NodeClass(
      manifest({
        'spec.subnetSelectorTerms': [{ tags: { a: 'b' } }, { id: 'subnet-0123', tags: { c: 'd' } }],
        'spec.securityGroupSelectorTerms': [{ tags: { a: 'b' } }, { id: 'sg-0123', name: 'web' }],
      }),
    );
    expect(nc.warnings).toEqual([
      'spec.subnetSelectorTerms[1] sets id with tags: the id selects and tags is ignored, as Karpenter does',
      'spec.securityGroupSelectorTerms[1] sets id with name: the id selects and name is ignored, as Karpenter does',
    ]);
    expect(
      rejection(manifest({ 'spec.subnetSelectorTerms': [{ id: 'subnet-0123', tags: { c: 'd' } }] })),
    ).toContain("spec.subnetSelectorTerms[0].id: 'id' is mutually exclusive");
  });

  it('matches id patterns unanchored, as the CRD does', () => {
    const nc = parseEC2NodeClass(
      manifest({
        'spec.subnetSelectorTerms': [{ id: 'my-subnet-0abc' }],
        'spec.securityGroupSelectorTerms': [{ id: 'sg-0abc-legacy' }],
        'spec.amiSelectorTerms': [{ id: 'custom-ami-0abc' }],
        'spec.amiFamily': 'AL2023',
      }),
    );
    expect(nc.subnetSelectorTerms).toEqual([{ id: 'my-subnet-0abc' }]);
    expect(rejection(manifest({ 'spec.subnetSelectorTerms': [{ id: 'sn-0abc' }] }))).toContain(
      'spec.subnetSelectorTerms[0].id',
    );
  });

  it('takes a bare "Ti" volume size as Karpenter does (zero), with a warning', () => {
    const nc = parseEC2NodeClass(
      manifest({
        'spec.blockDeviceMappings': [
          { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: 'Ti' } },
        ],
      }),
    );
    expect(nc.rootVolumeBytes).toBe(0);
    expect(nc.blockDeviceMappings[0].ebs?.volumeSize).toBe('0Ti');
    expect(nc.warnings).toContainEqual(
      expect.stringMatching(/volumeSize "Ti" has no number: it is read as 0/),
    );
  });

  it('takes any Go duration as an evictionSoftGracePeriod, but no negative one', () => {
    const grace = (value: string) =>
      manifest({
        'spec.kubelet': {
          evictionSoft: { 'memory.available': '100Mi' },
          evictionSoftGracePeriod: { 'memory.available': value },
        },
      });
    for (const value of ['1.5m', '5μs', '5µs', '+0', '.5h', '1h2m3s4ms']) {
      expect(parseEC2NodeClass(grace(value)).kubelet?.evictionSoftGracePeriod, value).toEqual({
        'memory.available': value,
      });
    }
    expect(rejection(grace('-1m'))).toContain("can't be a negative duration");
    expect(rejection(grace('1 minute'))).toContain('must be a duration');
    expect(rejection(grace('1d'))).toContain('must be a duration');
  });
});

describe('EC2NodeClass kubelet settings beyond Karpenter v1.14 (Karpenter main, #9461)', () => {
  const extra = { shutdownGracePeriod: '30s', featureGates: { InPlacePodVerticalScaling: true } };

  it('keeps any KubeletConfiguration setting for AL2023, which applies it', () => {
    const nc = parseEC2NodeClass(manifest({ 'spec.kubelet': { maxPods: 50, ...extra } }));
    expect(nc.kubelet).toEqual({ maxPods: 50, passthrough: extra });
  });

  it('refuses them on families that would drop them, and lets Custom own its kubelet', () => {
    expect(
      rejection(
        manifest({ 'spec.amiSelectorTerms': [{ alias: 'bottlerocket@latest' }], 'spec.kubelet': extra }),
      ),
    ).toContain(
      'spec.kubelet: spec.kubelet has fields not applied by the Bottlerocket AMI family that would be silently dropped: featureGates, shutdownGracePeriod',
    );
    expect(
      rejection(manifest({ 'spec.amiSelectorTerms': [{ alias: 'al2@latest' }], 'spec.kubelet': extra })),
    ).toContain('not applied by the AL2 AMI family');
    const custom = parseEC2NodeClass(manifest({ 'spec.amiFamily': 'Custom', 'spec.kubelet': extra }));
    expect(custom.kubelet?.passthrough).toEqual(extra);
  });

  // aws/karpenter-provider-aws pkg/controllers/nodeclass/validation_test.go "should reject a
  // kubelet field the AMI family won't apply" and "should accept multiple clusterDNS entries on AL2023".
  it.each([
    [
      'passthrough field on Windows',
      'windows2022@latest',
      { registryPullQPS: 10 },
      'not applied by the Windows2022 AMI family that would be silently dropped: registryPullQPS',
    ],
    [
      'podsPerCore on Bottlerocket',
      'bottlerocket@latest',
      { podsPerCore: 10 },
      'not applied by the Bottlerocket AMI family that would be silently dropped: podsPerCore',
    ],
    [
      'multiple clusterDNS entries on AL2',
      'al2@latest',
      { clusterDNS: ['10.0.0.10', '10.0.0.11'] },
      "spec.kubelet.clusterDNS: the AL2 AMI family doesn't accept multiple entries, only one, but 2 were set",
    ],
    [
      'multiple clusterDNS entries on Bottlerocket',
      'bottlerocket@latest',
      { clusterDNS: ['10.0.0.10', '10.0.0.11'] },
      "the Bottlerocket AMI family doesn't accept multiple entries",
    ],
    [
      'multiple clusterDNS entries on Windows',
      'windows2022@latest',
      { clusterDNS: ['10.0.0.10', '10.0.0.11'] },
      "the Windows2022 AMI family doesn't accept multiple entries",
    ],
  ])('refuses %s', (_name, alias, kubelet, message) => {
    expect(rejection(manifest({ 'spec.amiSelectorTerms': [{ alias }], 'spec.kubelet': kubelet }))).toContain(
      message,
    );
  });

  it('accepts multiple clusterDNS entries on AL2023, which renders the whole list, and podsPerCore on Windows', () => {
    const dns = ['10.0.0.10', '10.0.0.11'];
    expect(parseEC2NodeClass(manifest({ 'spec.kubelet': { clusterDNS: dns } })).kubelet?.clusterDNS).toEqual(
      dns,
    );
    const windows = manifest({
      'spec.amiSelectorTerms': [{ alias: 'windows2022@latest' }],
      'spec.kubelet': { podsPerCore: 10, clusterDNS: ['10.0.0.10'] },
    });
    expect(parseEC2NodeClass(windows).kubelet).toEqual({ podsPerCore: 10, clusterDNS: ['10.0.0.10'] });
  });

  it('refuses a name that is no kubelet setting, and registerWithTaints, which podlift sets', () => {
    expect(rejection(manifest({ 'spec.kubelet': { maxPod: 10 } }))).toContain(
      'spec.kubelet.maxPod: unknown field "maxPod" (not a setting of kubelet.config.k8s.io/v1beta1 KubeletConfiguration)',
    );
    expect(rejection(manifest({ 'spec.kubelet': { registerWithTaints: [] } }))).toContain(
      "spec.kubelet.registerWithTaints: can't be set",
    );
  });
});
