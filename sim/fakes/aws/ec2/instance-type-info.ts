import type {
  _InstanceType,
  ArchitectureType,
  GpuInfo,
  InstanceTypeInfo,
  NetworkCardInfo,
  NetworkInfo,
  UsageClassType,
} from '@aws-sdk/client-ec2';

/**
 * A compact description of an instance type, from which `instanceTypeInfo` builds the full
 * DescribeInstanceTypes record. Field names follow the project's instance catalog
 * (`shared/core/catalog/data/instance-types.json`), so a catalog record can be passed as it is.
 */
export interface InstanceTypeSpec {
  /** e.g. `m5.large` */
  readonly name: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  /** `amd64` is accepted as the Kubernetes spelling of `x86_64`. @default from the family: a `g` after the generation digit means arm64, else x86_64 */
  readonly architecture?: 'x86_64' | 'amd64' | 'arm64';
  /** `intel`, `amd`, `aws` in any case. @default from the family: arm64 → AWS, an `a` after the generation → AMD, else Intel */
  readonly cpuManufacturer?: string;
  /** @default 3000 */
  readonly cpuSustainedClockSpeedMhz?: number | null;
  /** null means bare metal (no hypervisor). @default 'nitro', or null for bare metal */
  readonly hypervisor?: 'nitro' | 'xen' | null;
  /** @default true when the size starts with `metal` */
  readonly bareMetal?: boolean;
  /** GPUs; `memoryMiB` is per GPU. Names and manufacturers are used verbatim (`A100`, `NVIDIA`). @default none */
  readonly gpu?: {
    readonly count: number;
    readonly name: string;
    readonly manufacturer: string;
    readonly memoryMiB: number;
  } | null;
  /**
   * Non-GPU accelerators. Inferentia and Trainium devices become `NeuronInfo` (Inferentia also
   * `InferenceAcceleratorInfo`); any other accelerator becomes `InferenceAcceleratorInfo`.
   * @default none
   */
  readonly accelerator?: {
    readonly count: number;
    readonly name: string;
    readonly manufacturer: string;
    /** Total NeuronCores across all devices. */
    readonly neuronCores?: number;
    /** Memory per device. @default 0 (unknown) */
    readonly memoryMiB?: number;
  } | null;
  /** Total local NVMe instance store in GB. @default none (EBS only) */
  readonly localNvmeGB?: number | null;
  /** Baseline network bandwidth. @default none */
  readonly networkBandwidthMbps?: number | null;
  /** AWS's wording, e.g. `Up to 10 Gigabit`. @default derived from networkBandwidthMbps */
  readonly networkPerformance?: string | null;
  /** Baseline EBS bandwidth. @default none */
  readonly ebsBandwidthMbps?: number | null;
  /** ENI limits. @default 3 interfaces of 10 addresses on one card */
  readonly eni?: {
    readonly maxInterfaces: number;
    readonly ipv4PerInterface: number;
    /** @default 0 */
    readonly defaultNetworkCardIndex?: number;
    /** Maximum interfaces per network card, by card index. @default one card with all interfaces */
    readonly networkCardMaxInterfaces?: readonly number[];
  } | null;
  /** `NetworkInfo.EncryptionInTransitSupported`. @default true unless the hypervisor is xen */
  readonly encryptionInTransitSupported?: boolean;
  /** Maximum EFA interfaces; > 0 means EFA is supported. @default 0 */
  readonly efaMaxInterfaces?: number;
  /** `SupportedUsageClasses`; null means unknown. @default ['on-demand', 'spot'] */
  readonly capacityTypes?: readonly string[] | null;
  /** @default true */
  readonly currentGeneration?: boolean;
}

/** Builds a DescribeInstanceTypes record from a compact spec, filling the fields AWS always returns. */
export function instanceTypeInfo(spec: InstanceTypeSpec): InstanceTypeInfo {
  const [family = '', size = ''] = spec.name.split('.');
  const architecture = architectureOf(spec, family);
  const bareMetal = spec.bareMetal ?? size.startsWith('metal');
  const hypervisor = spec.hypervisor === undefined ? (bareMetal ? null : 'nitro') : spec.hypervisor;
  const threadsPerCore = architecture === 'arm64' || spec.vcpu === 1 ? 1 : 2;
  const info: InstanceTypeInfo = {
    InstanceType: spec.name as _InstanceType,
    CurrentGeneration: spec.currentGeneration ?? true,
    FreeTierEligible: false,
    SupportedUsageClasses: (spec.capacityTypes ?? ['on-demand', 'spot']) as UsageClassType[],
    SupportedRootDeviceTypes: ['ebs'],
    SupportedVirtualizationTypes: ['hvm'],
    BareMetal: bareMetal,
    ...(hypervisor === null ? {} : { Hypervisor: hypervisor }),
    ProcessorInfo: {
      SupportedArchitectures: [architecture],
      SustainedClockSpeedInGhz: (spec.cpuSustainedClockSpeedMhz ?? 3000) / 1000,
      Manufacturer: manufacturerOf(spec, family, architecture),
    },
    VCpuInfo: {
      DefaultVCpus: spec.vcpu,
      DefaultCores: Math.max(1, spec.vcpu / threadsPerCore),
      DefaultThreadsPerCore: threadsPerCore,
    },
    MemoryInfo: { SizeInMiB: spec.memoryMiB },
    ...storageInfo(spec, hypervisor),
    NetworkInfo: networkInfo(spec, hypervisor),
    // Burstable types cannot join a cluster placement group (DescribeInstanceTypes lists only
    // partition and spread for t2/t3/t4g).
    PlacementGroupInfo: {
      SupportedStrategies: family.startsWith('t')
        ? ['partition', 'spread']
        : ['cluster', 'partition', 'spread'],
    },
    HibernationSupported: false,
    BurstablePerformanceSupported: family.startsWith('t'),
    DedicatedHostsSupported: true,
    AutoRecoverySupported: true,
    SupportedBootModes: architecture === 'arm64' ? ['uefi'] : ['legacy-bios', 'uefi'],
  };
  if (spec.gpu) info.GpuInfo = gpuInfo(spec.gpu);
  if (spec.accelerator) Object.assign(info, acceleratorInfo(spec.accelerator));
  return info;
}

type Hypervisor = 'nitro' | 'xen' | null;

/** Instance store and EBS, as DescribeInstanceTypes reports them. */
function storageInfo(spec: InstanceTypeSpec, hypervisor: Hypervisor): Partial<InstanceTypeInfo> {
  return {
    InstanceStorageSupported: spec.localNvmeGB != null,
    ...(spec.localNvmeGB == null
      ? {}
      : {
          InstanceStorageInfo: {
            TotalSizeInGB: spec.localNvmeGB,
            Disks: [{ SizeInGB: spec.localNvmeGB, Count: 1, Type: 'ssd' }],
            NvmeSupport: 'required',
            EncryptionSupport: 'required',
          },
        }),
    EbsInfo: {
      EbsOptimizedSupport: 'default',
      EncryptionSupport: 'supported',
      NvmeSupport: hypervisor === 'xen' ? 'unsupported' : 'required',
      ...(spec.ebsBandwidthMbps == null
        ? {}
        : {
            EbsOptimizedInfo: {
              BaselineBandwidthInMbps: spec.ebsBandwidthMbps,
              MaximumBandwidthInMbps: spec.ebsBandwidthMbps,
              BaselineThroughputInMBps: spec.ebsBandwidthMbps / 8,
              MaximumThroughputInMBps: spec.ebsBandwidthMbps / 8,
            },
          }),
    },
  };
}

/** ENIs, network cards, bandwidth and EFA, as DescribeInstanceTypes reports them. */
function networkInfo(spec: InstanceTypeSpec, hypervisor: Hypervisor): NetworkInfo {
  const eni = spec.eni ?? { maxInterfaces: 3, ipv4PerInterface: 10 };
  const cards = eni.networkCardMaxInterfaces ?? [eni.maxInterfaces];
  const efa = spec.efaMaxInterfaces ?? 0;
  const bandwidthGbps = spec.networkBandwidthMbps == null ? undefined : spec.networkBandwidthMbps / 1000;
  const networkPerformance =
    spec.networkPerformance ?? (bandwidthGbps === undefined ? undefined : `${bandwidthGbps} Gigabit`);
  return {
    ...(networkPerformance === undefined ? {} : { NetworkPerformance: networkPerformance }),
    MaximumNetworkInterfaces: eni.maxInterfaces,
    MaximumNetworkCards: cards.length,
    DefaultNetworkCardIndex: eni.defaultNetworkCardIndex ?? 0,
    NetworkCards: cards.map(
      (max, index): NetworkCardInfo => ({
        NetworkCardIndex: index,
        MaximumNetworkInterfaces: max,
        ...(networkPerformance === undefined ? {} : { NetworkPerformance: networkPerformance }),
        ...(bandwidthGbps === undefined
          ? {}
          : {
              BaselineBandwidthInGbps: bandwidthGbps / cards.length,
              PeakBandwidthInGbps: bandwidthGbps / cards.length,
            }),
      }),
    ),
    Ipv4AddressesPerInterface: eni.ipv4PerInterface,
    Ipv6AddressesPerInterface: eni.ipv4PerInterface,
    Ipv6Supported: true,
    EnaSupport: hypervisor === 'xen' ? 'supported' : 'required',
    EfaSupported: efa > 0,
    ...(efa > 0 ? { EfaInfo: { MaximumEfaInterfaces: efa } } : {}),
    EncryptionInTransitSupported: spec.encryptionInTransitSupported ?? hypervisor !== 'xen',
  };
}

function gpuInfo(gpu: NonNullable<InstanceTypeSpec['gpu']>): GpuInfo {
  return {
    Gpus: [
      {
        Name: gpu.name,
        Manufacturer: gpu.manufacturer,
        Count: gpu.count,
        MemoryInfo: { SizeInMiB: gpu.memoryMiB },
      },
    ],
    TotalGpuMemoryInMiB: gpu.count * gpu.memoryMiB,
  };
}

function acceleratorInfo(
  accelerator: NonNullable<InstanceTypeSpec['accelerator']>,
): Partial<InstanceTypeInfo> {
  const memoryMiB = accelerator.memoryMiB ?? 0;
  const inference: Partial<InstanceTypeInfo> = {
    InferenceAcceleratorInfo: {
      Accelerators: [
        {
          Count: accelerator.count,
          Name: capitalize(accelerator.name),
          Manufacturer: accelerator.manufacturer.toUpperCase(),
          MemoryInfo: { SizeInMiB: memoryMiB },
        },
      ],
      TotalInferenceMemoryInMiB: accelerator.count * memoryMiB,
    },
  };
  const isNeuron = /inferentia|trainium/i.test(accelerator.name);
  if (!isNeuron) return inference;
  const neuron: Partial<InstanceTypeInfo> = {
    NeuronInfo: {
      NeuronDevices: [
        {
          Count: accelerator.count,
          Name: capitalize(accelerator.name),
          CoreInfo: {
            Count: Math.max(
              1,
              Math.round((accelerator.neuronCores ?? accelerator.count) / accelerator.count),
            ),
            Version: /2$/.test(accelerator.name) || /trainium/i.test(accelerator.name) ? 2 : 1,
          },
          MemoryInfo: { SizeInMiB: memoryMiB },
        },
      ],
      TotalNeuronDeviceMemoryInMiB: accelerator.count * memoryMiB,
    },
  };
  return /inferentia/i.test(accelerator.name) ? { ...inference, ...neuron } : neuron;
}

function architectureOf(spec: InstanceTypeSpec, family: string): ArchitectureType {
  if (spec.architecture === 'arm64') return 'arm64';
  if (spec.architecture !== undefined) return 'x86_64';
  return /^[a-z]+\d+[a-z]*g/.test(family) ? 'arm64' : 'x86_64';
}

function manufacturerOf(spec: InstanceTypeSpec, family: string, architecture: ArchitectureType): string {
  const given = spec.cpuManufacturer?.toLowerCase();
  const key =
    given ?? (architecture === 'arm64' ? 'aws' : /^[a-z]+\d+[a-z]*a/.test(family) ? 'amd' : 'intel');
  return { intel: 'Intel', amd: 'AMD', aws: 'AWS', apple: 'Apple' }[key] ?? spec.cpuManufacturer ?? key;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
