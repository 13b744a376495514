import {
  type EC2Client,
  type InstanceTypeInfo as Ec2InstanceTypeInfo,
  paginateDescribeInstanceTypes,
} from '@aws-sdk/client-ec2';
import type { InstanceTypeInfo } from '../../core/catalog/instance-type';
import type { CapacityType } from '../../core/model/capacity-type';
import { CloudError } from '../../core/model/errors';
import { cloudErrorFrom } from '../aws-error';

/**
 * DescribeInstanceTypes mapped onto core's {@link InstanceTypeInfo}, reading each field the way
 * Karpenter's AWS provider does (aws/karpenter-provider-aws `pkg/providers/instancetype/types.go`
 * computeRequirements, computeCapacity, ENILimitedPods), so a live type resolves to the same
 * labels and allocatable as the bundled record of the same name.
 */

/** Karpenter's `instanceTypeScheme`: category, an optional `-<n>tb` memory tag, generation. */
const CATEGORY_AND_GENERATION = /^([a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

/** Karpenter's AWSToKubeArchitectures; i386-only types map to nothing and are skipped. */
const KUBE_ARCHITECTURES: Readonly<Record<string, 'amd64' | 'arm64'>> = { x86_64: 'amd64', arm64: 'arm64' };

/** The usage classes Karpenter turns into capacity types, in the bundled catalog's order. */
const CAPACITY_TYPES: readonly Extract<CapacityType, 'on-demand' | 'spot'>[] = ['on-demand', 'spot'];

/** EC2 uses lower kebab case for label values ("Radeon Pro V520" → "radeon-pro-v520"), as the bundled data stores them. */
function lowerKebabCase(value: string | undefined): string {
  return (value ?? '').replaceAll(' ', '-').toLowerCase();
}

/** Baseline bandwidth over every network card, in Mbit/s; null when EC2 gives none. */
function cardsBaselineMbps(info: Ec2InstanceTypeInfo): number | null {
  const cards = info.NetworkInfo?.NetworkCards ?? [];
  const baselines = cards.flatMap((card) => card.BaselineBandwidthInGbps ?? []);
  return baselines.length === 0 ? null : Math.round(baselines.reduce((a, b) => a + b, 0) * 1000);
}

function gpuOf(info: Ec2InstanceTypeInfo): InstanceTypeInfo['gpu'] {
  // Karpenter labels GPUs only when there is exactly one kind; no EC2 type has two.
  const gpus = info.GpuInfo?.Gpus ?? [];
  if (gpus.length !== 1) return null;
  const [gpu] = gpus;
  return {
    count: gpu.Count ?? 0,
    name: lowerKebabCase(gpu.Name),
    manufacturer: lowerKebabCase(gpu.Manufacturer),
    memoryMiB: gpu.MemoryInfo?.SizeInMiB ?? 0,
  };
}

function acceleratorOf(info: Ec2InstanceTypeInfo): InstanceTypeInfo['accelerator'] {
  // Neuron devices (Inferentia, Trainium) win over InferenceAcceleratorInfo, which Inferentia also fills.
  const devices = info.NeuronInfo?.NeuronDevices ?? [];
  if (devices.length === 1) {
    const [device] = devices;
    const count = device.Count ?? 0;
    return {
      count,
      name: lowerKebabCase(device.Name),
      manufacturer: 'aws',
      neuronCores: count * (device.CoreInfo?.Count ?? 0),
    };
  }
  const accelerators = info.InferenceAcceleratorInfo?.Accelerators ?? [];
  if (info.NeuronInfo === undefined && accelerators.length === 1) {
    const [accelerator] = accelerators;
    return {
      count: accelerator.Count ?? 0,
      name: lowerKebabCase(accelerator.Name),
      manufacturer: lowerKebabCase(accelerator.Manufacturer),
    };
  }
  return null;
}

function localNvmeOf(info: Ec2InstanceTypeInfo): number | null {
  const storage = info.InstanceStorageInfo;
  if (storage === undefined || storage.NvmeSupport === 'unsupported') return null;
  return storage.TotalSizeInGB ?? null;
}

function ebsBandwidthOf(info: Ec2InstanceTypeInfo): number | null {
  const ebs = info.EbsInfo;
  if (ebs?.EbsOptimizedSupport !== 'default') return null;
  return ebs.EbsOptimizedInfo?.MaximumBandwidthInMbps ?? null;
}

function eniOf(info: Ec2InstanceTypeInfo, known: InstanceTypeInfo | undefined): InstanceTypeInfo['eni'] {
  const network = info.NetworkInfo;
  const maxInterfaces = network?.MaximumNetworkInterfaces;
  const ipv4PerInterface = network?.Ipv4AddressesPerInterface;
  if (maxInterfaces === undefined || ipv4PerInterface === undefined) return null;
  // The VPC CNI only attaches ENIs to the default card (Karpenter's ENILimitedPods).
  const cards = network?.NetworkCards ?? [];
  const index = network?.DefaultNetworkCardIndex ?? 0;
  const defaultCard = cards.find((card) => card.NetworkCardIndex === index) ?? cards[index];
  return {
    maxInterfaces,
    ipv4PerInterface,
    defaultCardMaxInterfaces: defaultCard?.MaximumNetworkInterfaces ?? maxInterfaces,
    // Trunking is not in DescribeInstanceTypes: Karpenter reads its generated VPC-limits table, bundled here.
    trunkingCompatible: known?.eni?.trunkingCompatible ?? false,
    branchInterfaces: known?.eni?.branchInterfaces ?? 0,
  };
}

/**
 * One DescribeInstanceTypes record as core's {@link InstanceTypeInfo}, or undefined when it
 * cannot be one (no vCPU or memory figure, no x86_64/arm64 architecture, a name that is not
 * `<family>.<size>` with a category and generation).
 *
 * `known` is the bundled record of the same name, if any: it supplies what EC2 does not
 * return and Karpenter takes from its generated tables, the ENI trunking limits and the
 * baseline network bandwidth. A type missing from the bundled data gets no pod ENIs and the
 * sum of its network cards' `BaselineBandwidthInGbps`.
 */
export function instanceTypeInfoFromEc2(
  info: Ec2InstanceTypeInfo,
  known?: InstanceTypeInfo,
): InstanceTypeInfo | undefined {
  const name = info.InstanceType ?? '';
  const vcpu = info.VCpuInfo?.DefaultVCpus;
  const memoryMiB = info.MemoryInfo?.SizeInMiB;
  const architecture = (info.ProcessorInfo?.SupportedArchitectures ?? [])
    .map((arch) => KUBE_ARCHITECTURES[arch])
    .find((arch) => arch !== undefined);
  const parts = name.split('.');
  const scheme = CATEGORY_AND_GENERATION.exec(name);
  if (vcpu === undefined || memoryMiB === undefined || architecture === undefined) return undefined;
  if (parts.length !== 2 || scheme === null) return undefined;
  const [family, size] = parts;
  const usageClasses = info.SupportedUsageClasses;
  return {
    name,
    family,
    category: scheme[1],
    generation: Number(scheme[3]),
    size,
    vcpu,
    memoryMiB,
    architecture,
    cpuManufacturer: lowerKebabCase(info.ProcessorInfo?.Manufacturer),
    // Bare metal has no hypervisor; the bundled data stores that as null.
    hypervisor: info.Hypervisor || null,
    bareMetal: info.BareMetal ?? false,
    gpu: gpuOf(info),
    accelerator: acceleratorOf(info),
    localNvmeGB: localNvmeOf(info),
    networkBandwidthMbps: known === undefined ? cardsBaselineMbps(info) : known.networkBandwidthMbps,
    ebsBandwidthMbps: ebsBandwidthOf(info),
    encryptionInTransitSupported: info.NetworkInfo?.EncryptionInTransitSupported ?? false,
    capabilityFlex: family.includes('-flex'),
    eni: eniOf(info, known),
    efaCount: info.NetworkInfo?.EfaInfo?.MaximumEfaInterfaces ?? 0,
    capacityTypes:
      usageClasses === undefined ? null : CAPACITY_TYPES.filter((ct) => usageClasses.includes(ct)),
  };
}

/** What {@link describeInstanceTypes} found. */
export interface DescribedInstanceTypes {
  readonly types: readonly InstanceTypeInfo[];
  /** Names of records that could not be mapped (see {@link instanceTypeInfoFromEc2}). */
  readonly skipped: readonly string[];
}

/**
 * Every instance type of the client's region that Karpenter considers: HVM, x86_64 or arm64
 * (Karpenter's UpdateInstanceTypes filters), through the SDK paginator.
 *
 * @param known bundled records by name, for the fields EC2 does not return
 * @throws CloudError when EC2 fails or returns no instance type at all
 */
export async function describeInstanceTypes(
  ec2: EC2Client,
  known: ReadonlyMap<string, InstanceTypeInfo>,
): Promise<DescribedInstanceTypes> {
  const region = await ec2.config.region();
  const doing = `describing instance types in ${region}`;
  const types: InstanceTypeInfo[] = [];
  const skipped: string[] = [];
  try {
    const pages = paginateDescribeInstanceTypes(
      { client: ec2 },
      {
        Filters: [
          { Name: 'supported-virtualization-type', Values: ['hvm'] },
          { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
        ],
      },
    );
    for await (const page of pages) {
      for (const record of page.InstanceTypes ?? []) {
        const info = instanceTypeInfoFromEc2(record, known.get(record.InstanceType ?? ''));
        if (info === undefined) skipped.push(record.InstanceType ?? '(unnamed)');
        else types.push(info);
      }
    }
  } catch (error) {
    throw cloudErrorFrom(doing, error);
  }
  if (types.length === 0) {
    throw new CloudError(`${doing}: EC2 returned no usable instance type`, undefined, true);
  }
  return { types, skipped };
}
