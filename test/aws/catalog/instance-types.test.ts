import {
  type DescribeInstanceTypesCommandInput,
  EC2Client,
  type InstanceTypeInfo as Ec2InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { describeInstanceTypes, instanceTypeInfoFromEc2 } from '../../../shared/aws/catalog/instance-types';
import { bundledInstanceTypes, loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import type { Catalog, InstanceTypeInfo } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { isCloudError } from '../../../shared/core/model/errors';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEc2, instanceTypeInfo } from '../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../sim/virtual-time';
import { bundledNames, bundledNamesWithoutEni, bundledSpec } from '../../../sim/world/aws/bundled-spec';

const bundled = new Map(bundledInstanceTypes().map((info) => [info.name, info]));

function bundledInfo(name: string): InstanceTypeInfo {
  const info = bundled.get(name);
  if (info === undefined) throw new Error(`no bundled type ${name}`);
  return info;
}

/** What DescribeInstanceTypes says about a bundled type, mapped back. */
function roundTrip(name: string): InstanceTypeInfo | undefined {
  return instanceTypeInfoFromEc2(instanceTypeInfo(bundledSpec(name)), bundled.get(name));
}

/** The bundled record as the live mapping should give it: SupportedUsageClasses is always known live. */
function asLive(info: InstanceTypeInfo): InstanceTypeInfo {
  return { ...info, capacityTypes: info.capacityTypes ?? ['on-demand', 'spot'] };
}

const PARITY_TYPES = [
  'm5.large',
  'p4d.24xlarge',
  'inf2.xlarge',
  'g5.xlarge',
  'm5.metal',
  'm6g.large',
  'trn1.32xlarge',
  'dl2q.24xlarge',
  'g4ad.xlarge',
  'c7i-flex.large',
  'c4.large',
  'p5.48xlarge',
];

function ec2With(types: readonly Ec2InstanceTypeInfo[]) {
  const fake = new FakeEc2({ clock: new VirtualTime(), instanceTypes: types });
  const client = new EC2Client(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

describe('instanceTypeInfoFromEc2', () => {
  it.each(PARITY_TYPES)('maps %s field by field onto its bundled record', (name) => {
    const live = roundTrip(name);
    const expected = asLive(bundledInfo(name));
    for (const field of Object.keys(expected) as (keyof InstanceTypeInfo)[]) {
      expect({ field, value: live?.[field] }).toEqual({ field, value: expected[field] });
    }
    expect(live).toStrictEqual(expected);
  });

  it('gives resolveInstanceTypes the same labels, capacity and allocatable as the bundled catalog', () => {
    const base = loadBundledCatalog('us-east-1');
    const bundledCatalog: Catalog = { ...base, types: PARITY_TYPES.map(bundledInfo) };
    const liveCatalog: Catalog = {
      ...base,
      types: PARITY_TYPES.map((name) => {
        const info = roundTrip(name);
        if (info === undefined) throw new Error(`${name} did not map`);
        return info;
      }),
    };
    for (const nodeClass of [
      undefined,
      { amiFamily: 'Bottlerocket' as const, rootVolumeBytes: 100 * 2 ** 30 },
    ]) {
      const fromBundle = resolveInstanceTypes(bundledCatalog, nodeClass);
      const fromLive = resolveInstanceTypes(liveCatalog, nodeClass);
      expect(fromLive.map((it) => it.name)).toEqual(fromBundle.map((it) => it.name));
      expect(fromLive.length).toBeGreaterThanOrEqual(10);
      fromBundle.forEach((it, i) => {
        const live = fromLive[i];
        expect(live.requirements.toSelectorRequirements()).toEqual(it.requirements.toSelectorRequirements());
        expect(live.capacity).toEqual(it.capacity);
        expect(live.allocatable).toEqual(it.allocatable);
      });
    }
  });

  it('round-trips every bundled type; the 8 without VPC limits gain the ENI data EC2 returns', () => {
    const differing = bundledNames.filter((name) => {
      const live = roundTrip(name);
      const expected = asLive(bundledInfo(name));
      if (bundledNamesWithoutEni.includes(name)) {
        expect(live).toEqual({ ...expected, eni: live?.eni });
        expect(live?.eni).not.toBeNull();
      }
      return JSON.stringify(live) !== JSON.stringify(expected);
    });
    expect(bundledNames.length).toBeGreaterThan(1300);
    expect(differing).toEqual(bundledNamesWithoutEni);
  });

  it('reads DescribeInstanceTypes as EC2 spells it and as Karpenter reads it', () => {
    const record: Ec2InstanceTypeInfo = {
      ...instanceTypeInfo({ name: 'x9gd.4xlarge', vcpu: 16, memoryMiB: 65536 }),
      ProcessorInfo: { SupportedArchitectures: ['arm64'], Manufacturer: 'AWS' },
      GpuInfo: {
        Gpus: [{ Name: 'Radeon Pro V520', Manufacturer: 'AMD', Count: 2, MemoryInfo: { SizeInMiB: 8192 } }],
      },
      InferenceAcceleratorInfo: { Accelerators: [{ Name: 'Inferentia', Manufacturer: 'AWS', Count: 4 }] },
      NeuronInfo: { NeuronDevices: [{ Name: 'Inferentia', Count: 4, CoreInfo: { Count: 4, Version: 1 } }] },
      InstanceStorageInfo: { TotalSizeInGB: 1900, NvmeSupport: 'unsupported' },
      EbsInfo: { EbsOptimizedSupport: 'supported', EbsOptimizedInfo: { MaximumBandwidthInMbps: 4750 } },
      NetworkInfo: {
        MaximumNetworkInterfaces: 16,
        Ipv4AddressesPerInterface: 50,
        DefaultNetworkCardIndex: 1,
        NetworkCards: [
          { NetworkCardIndex: 0, MaximumNetworkInterfaces: 4, BaselineBandwidthInGbps: 12.5 },
          { NetworkCardIndex: 1, MaximumNetworkInterfaces: 12, BaselineBandwidthInGbps: 37.5 },
        ],
        EfaInfo: { MaximumEfaInterfaces: 2 },
        EncryptionInTransitSupported: true,
      },
      SupportedUsageClasses: ['capacity-block', 'spot'],
    };
    expect(instanceTypeInfoFromEc2(record)).toEqual({
      name: 'x9gd.4xlarge',
      family: 'x9gd',
      category: 'x',
      generation: 9,
      size: '4xlarge',
      vcpu: 16,
      memoryMiB: 65536,
      architecture: 'arm64',
      cpuManufacturer: 'aws',
      hypervisor: 'nitro',
      bareMetal: false,
      gpu: { count: 2, name: 'radeon-pro-v520', manufacturer: 'amd', memoryMiB: 8192 },
      // Neuron devices win over InferenceAcceleratorInfo; the neuron cores are devices × cores per device.
      accelerator: { count: 4, name: 'inferentia', manufacturer: 'aws', neuronCores: 16 },
      // A non-NVMe instance store gets no instance-local-nvme label.
      localNvmeGB: null,
      // Not a type Karpenter's bandwidth table knows: the cards' baselines, summed.
      networkBandwidthMbps: 50000,
      // EBS bandwidth is only labelled for EBS-optimized-by-default types.
      ebsBandwidthMbps: null,
      encryptionInTransitSupported: true,
      capabilityFlex: false,
      // Max pods count the default card only; trunking comes from the VPC-limits table, which lacks this type.
      eni: {
        maxInterfaces: 16,
        ipv4PerInterface: 50,
        defaultCardMaxInterfaces: 12,
        trunkingCompatible: false,
        branchInterfaces: 0,
      },
      efaCount: 2,
      capacityTypes: ['spot'],
    });
  });

  it('reads the memory tag of high-memory names and the -flex families', () => {
    const u = instanceTypeInfoFromEc2(
      instanceTypeInfo({ name: 'u-6tb1.56xlarge', vcpu: 224, memoryMiB: 6291456 }),
    );
    expect(u).toMatchObject({ family: 'u-6tb1', category: 'u', generation: 1, size: '56xlarge' });
    const flex = instanceTypeInfoFromEc2(
      instanceTypeInfo({ name: 'm7i-flex.large', vcpu: 2, memoryMiB: 8192 }),
    );
    expect(flex).toMatchObject({ family: 'm7i-flex', category: 'm', generation: 7, capabilityFlex: true });
  });

  it('keeps unknown usage classes as unknown and skips records it cannot map', () => {
    const base = instanceTypeInfo({ name: 'm5.large', vcpu: 2, memoryMiB: 8192 });
    expect(instanceTypeInfoFromEc2({ ...base, SupportedUsageClasses: undefined })?.capacityTypes).toBeNull();
    expect(
      instanceTypeInfoFromEc2({ ...base, ProcessorInfo: { SupportedArchitectures: ['i386'] } }),
    ).toBeUndefined();
    expect(instanceTypeInfoFromEc2({ ...base, MemoryInfo: {} })).toBeUndefined();
    expect(instanceTypeInfoFromEc2({ ...base, InstanceType: 'weird' as 'm5.large' })).toBeUndefined();
    // i386 listed beside x86_64 still makes an amd64 type, as in Karpenter's getArchitecture.
    expect(
      instanceTypeInfoFromEc2({ ...base, ProcessorInfo: { SupportedArchitectures: ['i386', 'x86_64'] } })
        ?.architecture,
    ).toBe('amd64');
  });
});

describe('describeInstanceTypes', () => {
  it('pages through every instance type with Karpenter filters', async () => {
    const names = bundledNames.slice(0, 230);
    const { fake, client } = ec2With([
      ...names.map((name) => instanceTypeInfo(bundledSpec(name))),
      {
        ...instanceTypeInfo({ name: 'pv1.medium', vcpu: 2, memoryMiB: 1740 }),
        ProcessorInfo: { SupportedArchitectures: ['i386', 'x86_64'] },
        SupportedVirtualizationTypes: ['paravirtual'],
      },
      {
        ...instanceTypeInfo({ name: 'i386a.micro', vcpu: 1, memoryMiB: 627 }),
        ProcessorInfo: { SupportedArchitectures: ['i386'] },
      },
    ]);

    const { types, skipped } = await describeInstanceTypes(client, bundled);

    expect(types.map((t) => t.name)).toEqual(names);
    expect(types[0]).toEqual(asLive(bundledInfo(names[0])));
    expect(skipped).toEqual([]);
    const calls = fake.callsTo('DescribeInstanceTypes') as DescribeInstanceTypesCommandInput[];
    expect(calls).toHaveLength(3);
    expect(calls[0].NextToken).toBeUndefined();
    expect(calls[2].NextToken).toEqual(expect.any(String));
    expect(calls[0].Filters).toEqual([
      { Name: 'supported-virtualization-type', Values: ['hvm'] },
      { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
    ]);
  });

  it('reports records it cannot map by name', async () => {
    const { client } = ec2With([
      instanceTypeInfo({ name: 'm5.large', vcpu: 2, memoryMiB: 8192 }),
      { ...instanceTypeInfo({ name: 'm5.xlarge', vcpu: 4, memoryMiB: 16384 }), VCpuInfo: {} },
    ]);
    const { types, skipped } = await describeInstanceTypes(client, bundled);
    expect(types.map((t) => t.name)).toEqual(['m5.large']);
    expect(skipped).toEqual(['m5.xlarge']);
  });

  it('throws a retryable CloudError naming the call when EC2 throttles', async () => {
    const { fake, client } = ec2With([instanceTypeInfo({ name: 'm5.large', vcpu: 2, memoryMiB: 8192 })]);
    fake.throttle('DescribeInstanceTypes');
    const error = await describeInstanceTypes(client, bundled).catch((e: unknown) => e);
    expect(isCloudError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'RequestLimitExceeded',
      retryable: true,
      message: 'describing instance types in us-east-1: RequestLimitExceeded: Rate exceeded',
    });
  });

  it('throws when EC2 describes no usable type', async () => {
    const { client } = ec2With([]);
    await expect(describeInstanceTypes(client, bundled)).rejects.toMatchObject({
      name: 'CloudError',
      message: expect.stringContaining('no usable instance type'),
    });
  });
});
