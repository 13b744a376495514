import raw from '../../../shared/core/catalog/data/instance-types.json' with { type: 'json' };
import type { InstanceTypeSpec } from '../../fakes/aws/ec2';

/** The fields of a bundled instance-types.json record that `instanceTypeInfo` needs. */
interface RawInstanceType {
  readonly name: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly architecture: 'amd64' | 'arm64';
  readonly cpuManufacturer: string;
  readonly cpuSustainedClockSpeedMhz: number | null;
  readonly hypervisor: 'nitro' | 'xen' | null;
  readonly bareMetal: boolean;
  readonly encryptionInTransitSupported: boolean;
  readonly gpu: InstanceTypeSpec['gpu'];
  readonly accelerator: InstanceTypeSpec['accelerator'];
  readonly localNvmeGB: number | null;
  readonly networkBandwidthMbps: number | null;
  readonly networkPerformance: string | null;
  readonly ebsBandwidthMbps: number | null;
  readonly eni: {
    readonly maxInterfaces: number;
    readonly ipv4PerInterface: number;
    readonly defaultNetworkCardIndex: number;
    readonly networkCardMaxInterfaces: readonly number[];
  } | null;
  readonly karpenterAllocatable: { readonly efa?: number };
  readonly capacityTypes: readonly string[] | null;
}

// The bundled loader validates this file on every start; tests only need its raw shape.
const records = (raw as { readonly instanceTypes: readonly RawInstanceType[] }).instanceTypes;
const byName = new Map(records.map((r) => [r.name, r]));

/** Names of every complete bundled record. */
export const bundledNames: readonly string[] = records.map((r) => r.name);

/** Names of the bundled records without ENI limits (absent from Karpenter's VPC-limits table). */
export const bundledNamesWithoutEni: readonly string[] = records
  .filter((r) => r.eni === null)
  .map((r) => r.name);

/**
 * The `instanceTypeInfo` spec of a bundled record, carrying everything DescribeInstanceTypes
 * would say about it: network cards, EFA interfaces, usage classes, clock speed.
 */
export function bundledSpec(name: string): InstanceTypeSpec {
  const r = byName.get(name);
  if (r === undefined) throw new Error(`no bundled instance type ${name}`);
  return {
    name: r.name,
    vcpu: r.vcpu,
    memoryMiB: r.memoryMiB,
    architecture: r.architecture,
    cpuManufacturer: r.cpuManufacturer,
    cpuSustainedClockSpeedMhz: r.cpuSustainedClockSpeedMhz,
    hypervisor: r.hypervisor,
    bareMetal: r.bareMetal,
    encryptionInTransitSupported: r.encryptionInTransitSupported,
    gpu: r.gpu,
    accelerator: r.accelerator,
    localNvmeGB: r.localNvmeGB,
    networkBandwidthMbps: r.networkBandwidthMbps,
    networkPerformance: r.networkPerformance,
    ebsBandwidthMbps: r.ebsBandwidthMbps,
    eni:
      r.eni === null
        ? null
        : {
            maxInterfaces: r.eni.maxInterfaces,
            ipv4PerInterface: r.eni.ipv4PerInterface,
            defaultNetworkCardIndex: r.eni.defaultNetworkCardIndex,
            networkCardMaxInterfaces: r.eni.networkCardMaxInterfaces,
          },
    efaMaxInterfaces: r.karpenterAllocatable.efa ?? 0,
    capacityTypes: r.capacityTypes,
  };
}
