import type { Image, InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { formatKubeTime, type KubeObject } from '../fakes/kube';
import { eksAllocatable } from './eks-allocatable';
import type { NodeBootstrap } from './node-bootstrap';

/** The taint the node lifecycle controller keeps on a Node until it turns Ready. */
export const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/** Resource the VPC resource controller advertises on Windows nodes: their secondary IPv4 addresses. */
const PRIVATE_IPV4_ADDRESS = 'vpc.amazonaws.com/PrivateIPv4Address';

/**
 * The builds of the Windows Server releases EKS publishes optimized AMIs for, by the year in the
 * AMI's name (`Windows_Server-2022-English-Core-EKS_Optimized-1.31-…`): what kubelet reports as
 * `node.kubernetes.io/windows-build` on them.
 */
const WINDOWS_BUILDS: Readonly<Record<string, string>> = {
  '2019': '10.0.17763',
  '2022': '10.0.20348',
  '2025': '10.0.26100',
};

/** What the world knows of an instance whose kubelet registers. */
export interface RegisteringInstance {
  readonly nodeName: string;
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  /** From DescribeInstanceTypes; undefined for a type EC2 does not describe. */
  readonly info: InstanceTypeInfo | undefined;
  /** The AMI it runs; a Windows AMI makes a Windows node. */
  readonly image: Image | undefined;
  /** Size of the EBS volume kubelet's filesystem is on (the AMI's root device, Bottlerocket's data volume), from the launch template. @default 20 */
  readonly rootVolumeGiB?: number;
  /** When the kubelet registers (epoch ms): the time its first Ready condition carries. */
  readonly registeredAt: number;
}

/** Whether an AMI's or instance's `Platform` is Windows (EC2 answers `windows`, the SDK's enum says `Windows`). */
export function isWindowsPlatform(platform: string | undefined): boolean {
  return platform?.toLowerCase() === 'windows';
}

/**
 * The Node a kubelet registers: the labels and taints its bootstrap asked for, the well-known
 * labels kubelet and the cloud provider add (`kubernetes.io/os` from the AMI's platform, and on
 * Windows the `node.kubernetes.io/windows-build` of its Windows Server), the not-ready taint,
 * and capacity and allocatable as the EKS AMI computes them; on Windows the VPC resource
 * controller adds `vpc.amazonaws.com/PrivateIPv4Address`, one per secondary address of an ENI
 * (amazon-vpc-resource-controller-k8s, as Karpenter's instancetype/types.go privateIPv4Address).
 * Its Ready condition is False until the CNI is up, stamped with the registration time as
 * kubelet stamps a condition it adds (kubernetes pkg/kubelet/nodestatus/setters.go
 * `ReadyCondition`: a new condition gets `LastTransitionTime: currentTime`). Without the stamp a
 * reader takes the zero time, and Karpenter's node repair (pkg/controllers/node/health/controller.go)
 * would find every booting Node NotReady for longer than its 30-minute toleration.
 */
export function registeredNode(instance: RegisteringInstance, boot: NodeBootstrap): KubeObject {
  const { info } = instance;
  const arch = info?.ProcessorInfo?.SupportedArchitectures?.[0] === 'arm64' ? 'arm64' : 'amd64';
  const vcpus = info?.VCpuInfo?.DefaultVCpus ?? 2;
  const memoryMiB = info?.MemoryInfo?.SizeInMiB ?? 4096;
  const maxPods = boot.maxPods ?? 110;
  const capacity: Record<string, string> = {
    cpu: String(vcpus),
    memory: `${memoryMiB}Mi`,
    pods: String(maxPods),
  };
  const allocatable = eksAllocatable(vcpus, memoryMiB, maxPods, instance.rootVolumeGiB);
  const windows = isWindowsPlatform(instance.image?.Platform);
  const year = /Windows_Server-(\d{4})-/.exec(instance.image?.Name ?? '')?.[1];
  const build = windows && year !== undefined ? WINDOWS_BUILDS[year] : undefined;
  const addresses = info?.NetworkInfo?.Ipv4AddressesPerInterface;
  if (windows && addresses !== undefined) {
    capacity[PRIVATE_IPV4_ADDRESS] = String(addresses - 1);
    allocatable[PRIVATE_IPV4_ADDRESS] = String(addresses - 1);
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: instance.nodeName,
      labels: {
        ...boot.labels,
        'kubernetes.io/arch': arch,
        'kubernetes.io/os': windows ? 'windows' : 'linux',
        ...(build !== undefined ? { 'node.kubernetes.io/windows-build': build } : {}),
        'kubernetes.io/hostname': instance.nodeName,
        'node.kubernetes.io/instance-type': instance.instanceType,
        'topology.kubernetes.io/zone': instance.zone,
        'topology.kubernetes.io/region': instance.zone.slice(0, -1),
      },
    },
    spec: {
      providerID: `aws:///${instance.zone}/${instance.instanceId}`,
      taints: [...boot.taints, NOT_READY_TAINT],
    },
    status: {
      capacity,
      allocatable,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          lastTransitionTime: formatKubeTime(new Date(instance.registeredAt)),
        },
      ],
    },
  };
}
