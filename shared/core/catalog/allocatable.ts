import { type AmiFamily, isWindowsFamily, type KubeletConfiguration } from '../model/ec2nodeclass';
import { ValidationError } from '../model/errors';
import { resourceValue } from '../model/quantity';
import {
  AMD_GPU,
  CPU,
  EFA,
  EPHEMERAL_STORAGE,
  MEMORY,
  NEURON,
  NEURON_CORE,
  NVIDIA_GPU,
  POD_ENI,
  PODS,
  type Resources,
} from '../model/resources';
import type { InstanceTypeInfo, InstanceTypeOverhead } from './instance-type';

/**
 * Capacity, kubelet overhead and allocatable of an instance type, computed exactly as
 * Karpenter's AWS provider does (aws/karpenter-provider-aws
 * `pkg/providers/instancetype/types.go`: computeCapacity, memory, pods, ENILimitedPods,
 * kubeReservedResources, systemReservedResources, evictionThreshold). Every number here is an
 * integer in the resource's canonical unit (see resources.ts).
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Karpenter's default `--vm-memory-overhead-percent`: memory EC2 reports but the guest cannot use. */
export const VM_MEMORY_OVERHEAD_PERCENT = 0.075;

/** kubelet's own default maxPods, used by Karpenter when pod density is not ENI-limited (Windows). */
export const DEFAULT_MAX_PODS = 110;

/** Resource name of Habana Gaudi accelerators (GpuInfo manufacturer "Habana"). */
export const HABANA_GAUDI = 'habana.ai/gaudi';

/** Resource name Windows nodes report for their secondary IPv4 addresses (VPC resource controller). */
export const PRIVATE_IPV4_ADDRESS = 'vpc.amazonaws.com/PrivateIPv4Address';

const MEMORY_AVAILABLE = 'memory.available';
const NODEFS_AVAILABLE = 'nodefs.available';

/** Kubelet-related behaviour that differs between AMI families (Karpenter's amifamily FeatureFlags). */
export interface AmiFamilyFeatures {
  /** kube-reserved memory is sized from the ENI-limited pod count, whatever maxPods says. */
  readonly usesEniLimitedMemoryOverhead: boolean;
  /** kubelet podsPerCore is honoured. */
  readonly podsPerCoreEnabled: boolean;
  /** Without an explicit maxPods, pods = the ENI-limited count (else kubelet's 110). */
  readonly supportsEniLimitedPodDensity: boolean;
}

const DEFAULT_FEATURES: AmiFamilyFeatures = {
  usesEniLimitedMemoryOverhead: true,
  podsPerCoreEnabled: true,
  supportsEniLimitedPodDensity: true,
};

/**
 * The feature flags of an AMI family. AL2, AL2023 and Custom use Karpenter's DefaultFamily
 * flags; Bottlerocket sizes kube-reserved from its real maxPods and ignores podsPerCore;
 * Windows is not ENI-limited.
 */
export function amiFamilyFeatures(family: AmiFamily): AmiFamilyFeatures {
  switch (family) {
    case 'Bottlerocket':
      return {
        usesEniLimitedMemoryOverhead: false,
        podsPerCoreEnabled: false,
        supportsEniLimitedPodDensity: true,
      };
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return {
        usesEniLimitedMemoryOverhead: false,
        podsPerCoreEnabled: true,
        supportsEniLimitedPodDensity: false,
      };
    default:
      return DEFAULT_FEATURES;
  }
}

/**
 * The VPC CNI's pod limit: ENIs of the default network card × (IPv4 addresses per ENI − 1) + 2.
 * Only the default card counts (the CNI attaches no ENIs elsewhere). undefined when the type's
 * ENI limits are unknown.
 */
export function eniLimitedPods(info: InstanceTypeInfo, reservedEnis = 0): number | undefined {
  if (info.eni === null) return undefined;
  const usable = Math.max(info.eni.defaultCardMaxInterfaces - reservedEnis, 0);
  if (usable === 0) return 0;
  return usable * (info.eni.ipv4PerInterface - 1) + 2;
}

/**
 * The `pods` capacity: kubelet maxPods if set, else the ENI-limited count (AMI families with
 * ENI-limited density), else 110; then capped at podsPerCore × vCPUs when podsPerCore > 0.
 *
 * Karpenter always knows the ENI limits from DescribeInstanceTypes; a type whose limits are
 * missing from the bundled data falls back to kubelet's default of 110.
 */
export function podsOf(
  info: InstanceTypeInfo,
  kubelet: KubeletConfiguration | undefined,
  amiFamily: AmiFamily = 'AL2023',
): number {
  const features = amiFamilyFeatures(amiFamily);
  let count: number;
  if (kubelet?.maxPods !== undefined) count = kubelet.maxPods;
  else if (features.supportsEniLimitedPodDensity) count = eniLimitedPods(info) ?? DEFAULT_MAX_PODS;
  else count = DEFAULT_MAX_PODS;
  const podsPerCore = kubelet?.podsPerCore ?? 0;
  if (podsPerCore > 0 && features.podsPerCoreEnabled) count = Math.min(podsPerCore * info.vcpu, count);
  return count;
}

/**
 * Memory kubelet reports as capacity, in bytes: EC2's memory, less 64 MiB of CMA reserved on
 * Graviton, less the VM overhead rounded up to a whole MiB.
 */
export function memoryCapacityOf(
  info: InstanceTypeInfo,
  vmMemoryOverheadPercent = VM_MEMORY_OVERHEAD_PERCENT,
): number {
  const mib = info.memoryMiB - (info.architecture === 'arm64' ? 64 : 0);
  // Same float operations in the same order as Karpenter, so the ceil lands on the same MiB.
  const overheadMiB = Math.ceil((mib * MiB * vmMemoryOverheadPercent) / 1024 / 1024);
  return (mib - overheadMiB) * MiB;
}

function countByManufacturer(info: InstanceTypeInfo, manufacturer: string): number {
  return info.gpu !== null && info.gpu.manufacturer.toLowerCase() === manufacturer ? info.gpu.count : 0;
}

/**
 * What kubelet will report as the node's capacity: cpu, memory, ephemeral-storage (the root
 * volume, or the instance store when the node class uses RAID0), pods, and the extended
 * resources the device plugins and VPC resource controller advertise. Zero-valued extended
 * resources are left out (absent means zero).
 *
 * @param rootVolumeBytes the node's ephemeral-storage in bytes (EC2NodeClass.rootVolumeBytes,
 *   or the instance store's size when instanceStorePolicy is RAID0).
 */
export function capacityOf(
  info: InstanceTypeInfo,
  kubelet: KubeletConfiguration | undefined,
  rootVolumeBytes: number,
  amiFamily: AmiFamily = 'AL2023',
): Resources {
  const capacity: Record<string, number> = {
    [CPU]: info.vcpu * 1000,
    [MEMORY]: memoryCapacityOf(info),
    [EPHEMERAL_STORAGE]: rootVolumeBytes,
    [PODS]: podsOf(info, kubelet, amiFamily),
  };
  const extended: Record<string, number> = {
    [POD_ENI]: info.eni?.trunkingCompatible ? info.eni.branchInterfaces : 0,
    [NVIDIA_GPU]: countByManufacturer(info, 'nvidia'),
    [AMD_GPU]: countByManufacturer(info, 'amd'),
    [HABANA_GAUDI]: countByManufacturer(info, 'habana'),
    // Neuron devices are the accelerators that report NeuronCores (Inferentia, Trainium).
    [NEURON]: info.accelerator?.neuronCores !== undefined ? info.accelerator.count : 0,
    [NEURON_CORE]: info.accelerator?.neuronCores ?? 0,
    [EFA]: info.efaCount,
  };
  if (isWindowsFamily(amiFamily) && info.eni !== null) {
    extended[PRIVATE_IPV4_ADDRESS] = info.eni.ipv4PerInterface - 1;
  }
  for (const [name, value] of Object.entries(extended)) {
    if (value > 0) capacity[name] = value;
  }
  return capacity;
}

/**
 * kube-reserved CPU in millicores (Bottlerocket's table, used by EKS AMIs): 6% of the first
 * core, 1% of the second, 0.5% of the next two, 0.25% of every core above four. Each tier is
 * truncated to a whole millicore before summing, as Karpenter does.
 */
export function kubeReservedCpu(cpuMillicores: number): number {
  const tiers: readonly (readonly [number, number, number])[] = [
    [0, 1000, 0.06],
    [1000, 2000, 0.01],
    [2000, 4000, 0.005],
    [4000, 2 ** 31, 0.0025],
  ];
  let reserved = 0;
  for (const [start, end, percentage] of tiers) {
    if (cpuMillicores < start) continue;
    const span = cpuMillicores < end ? cpuMillicores - start : end - start;
    reserved += Math.trunc(span * percentage);
  }
  return reserved;
}

function quantities(
  field: string,
  map: Readonly<Record<string, string>> | undefined,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(map ?? {})) {
    try {
      out[name] = resourceValue(name, quantity);
    } catch (cause) {
      throw new ValidationError(
        [{ field: `kubelet.${field}.${name}`, value: quantity, message: 'not a Kubernetes quantity' }],
        {},
        { cause },
      );
    }
  }
  return out;
}

/**
 * An eviction signal's threshold: a percentage of `capacity` (rounded up; 100% disables the
 * threshold, as in kubelet) or an absolute quantity.
 */
function evictionSignal(field: string, resource: string, capacity: number, signal: string): number {
  if (signal.endsWith('%')) {
    const text = signal.replace(/^%+|%+$/g, '');
    const percent = Number(text);
    if (text.trim() === '' || !Number.isFinite(percent)) {
      throw new ValidationError([{ field, value: signal, message: 'expected a percentage such as "10%"' }]);
    }
    return Math.ceil((capacity / 100) * (percent === 100 ? 0 : percent));
  }
  try {
    return resourceValue(resource, signal);
  } catch (cause) {
    throw new ValidationError(
      [{ field, value: signal, message: 'not a quantity or a percentage' }],
      {},
      { cause },
    );
  }
}

/**
 * kube-reserved, system-reserved and the eviction threshold of a node with `capacity`.
 *
 * - kube-reserved: CPU by {@link kubeReservedCpu}; memory 11 MiB per pod + 255 MiB, where the
 *   pod count is the ENI-limited one for AL2/AL2023/Custom (even when maxPods is set) and the
 *   capacity's pods for Bottlerocket and Windows; ephemeral-storage 1Gi. kubelet.kubeReserved
 *   replaces any of them.
 * - system-reserved: exactly kubelet.systemReserved (nothing by default).
 * - eviction threshold: memory 100Mi and ephemeral-storage 10% of capacity (rounded up), each
 *   replaced by kubelet.evictionHard `memory.available` / `nodefs.available`. evictionSoft is
 *   ignored: it does not reduce allocatable in kubelet, and current Karpenter agrees.
 *
 * @throws ValidationError when a reserved quantity or eviction signal is malformed.
 */
export function overheadOf(
  info: InstanceTypeInfo,
  capacity: Resources,
  kubelet: KubeletConfiguration | undefined,
  amiFamily: AmiFamily = 'AL2023',
): InstanceTypeOverhead {
  const features = amiFamilyFeatures(amiFamily);
  const pods = capacity[PODS] ?? 0;
  const memoryPods = features.usesEniLimitedMemoryOverhead ? (eniLimitedPods(info) ?? pods) : pods;
  const kubeReserved: Resources = {
    [CPU]: kubeReservedCpu(capacity[CPU] ?? 0),
    [MEMORY]: (11 * memoryPods + 255) * MiB,
    [EPHEMERAL_STORAGE]: GiB,
    ...quantities('kubeReserved', kubelet?.kubeReserved),
  };
  const systemReserved: Resources = quantities('systemReserved', kubelet?.systemReserved);

  const memory = capacity[MEMORY] ?? 0;
  const storage = capacity[EPHEMERAL_STORAGE] ?? 0;
  const evictionThreshold: Record<string, number> = {
    [MEMORY]: 100 * MiB,
    [EPHEMERAL_STORAGE]: Math.ceil((storage / 100) * 10),
  };
  const hard = kubelet?.evictionHard;
  if (hard?.[MEMORY_AVAILABLE] !== undefined) {
    evictionThreshold[MEMORY] = evictionSignal(
      `kubelet.evictionHard.${MEMORY_AVAILABLE}`,
      MEMORY,
      memory,
      hard[MEMORY_AVAILABLE],
    );
  }
  if (hard?.[NODEFS_AVAILABLE] !== undefined) {
    evictionThreshold[EPHEMERAL_STORAGE] = evictionSignal(
      `kubelet.evictionHard.${NODEFS_AVAILABLE}`,
      EPHEMERAL_STORAGE,
      storage,
      hard[NODEFS_AVAILABLE],
    );
  }
  return { kubeReserved, systemReserved, evictionThreshold };
}

/**
 * capacity − kubeReserved − systemReserved − evictionThreshold, for the resources in capacity
 * only (overhead on a resource the node does not have is meaningless), floored at zero.
 */
export function allocatableOf(capacity: Resources, overhead: InstanceTypeOverhead): Resources {
  const allocatable: Record<string, number> = {};
  for (const [name, value] of Object.entries(capacity)) {
    const reserved =
      (overhead.kubeReserved[name] ?? 0) +
      (overhead.systemReserved[name] ?? 0) +
      (overhead.evictionThreshold[name] ?? 0);
    allocatable[name] = Math.max(value - reserved, 0);
  }
  return allocatable;
}
