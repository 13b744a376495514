import type { Image, InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { registeredNode } from '../../../sim/world/node-registration';

const m5Large: InstanceTypeInfo = {
  InstanceType: 'm5.large',
  VCpuInfo: { DefaultVCpus: 2 },
  MemoryInfo: { SizeInMiB: 8192 },
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  NetworkInfo: { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 10 },
};
const windows2022: Image = {
  ImageId: 'ami-00000000000000022',
  Name: 'Windows_Server-2022-English-Core-EKS_Optimized-1.31-2025.12.01',
  Platform: 'windows' as Image['Platform'],
};
const al2023: Image = { ImageId: 'ami-00000000000000001', Name: 'al2023-x86' };

const REGISTERED_AT = Date.parse('2026-01-01T00:01:30Z');

function node(image: Image, rootVolumeGiB?: number) {
  return registeredNode(
    {
      nodeName: 'ip-10-0-0-1.ec2.internal',
      instanceId: 'i-1',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      info: m5Large,
      image,
      registeredAt: REGISTERED_AT,
      ...(rootVolumeGiB !== undefined ? { rootVolumeGiB } : {}),
    },
    { clusterName: 'demo', labels: { team: 'a' }, taints: [], maxPods: 110 },
  );
}

describe('registeredNode', () => {
  // kubernetes pkg/kubelet/nodestatus/setters.go ReadyCondition: a condition the kubelet adds gets
  // LastTransitionTime = now. Without it node repair reads the zero time and replaces the booting
  // Node at once (kubernetes-sigs/karpenter pkg/controllers/node/health/controller.go Reconcile).
  it('registers NotReady, the condition stamped with the registration time as kubelet stamps it', () => {
    const status = node(al2023).status as { conditions: Record<string, string>[] };
    expect(status.conditions).toStrictEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'KubeletNotReady',
        lastTransitionTime: '2026-01-01T00:01:30Z',
      },
    ]);
  });

  it('registers a node running a Windows AMI as kubelet does on Windows, with its build and IPv4 addresses', () => {
    const win = node(windows2022);
    expect(win.metadata.labels).toMatchObject({
      team: 'a',
      'kubernetes.io/os': 'windows',
      'node.kubernetes.io/windows-build': '10.0.20348',
    });
    const status = win.status as { capacity: Record<string, string>; allocatable: Record<string, string> };
    // The VPC resource controller: one per secondary address of an ENI (10 - 1), as Karpenter counts.
    expect(status.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe('9');
    expect(status.allocatable['vpc.amazonaws.com/PrivateIPv4Address']).toBe('9');
    expect(status.allocatable.pods).toBe('110');
  });

  it('gives ephemeral-storage from the root volume, less 1Gi kube-reserved and the 10% nodefs threshold', () => {
    const allocatable = (n: ReturnType<typeof node>) =>
      (n.status as { allocatable: Record<string, string> }).allocatable['ephemeral-storage'];
    expect(allocatable(node(windows2022, 50))).toBe('44Gi');
    expect(allocatable(node(al2023))).toBe('17Gi');
  });

  it('registers a node running a Linux AMI as linux, without a Windows build or IPv4 address resource', () => {
    const linux = node(al2023);
    expect(linux.metadata.labels?.['kubernetes.io/os']).toBe('linux');
    expect(linux.metadata.labels).not.toHaveProperty('node.kubernetes.io/windows-build');
    const status = linux.status as { capacity: Record<string, string> };
    expect(status.capacity).not.toHaveProperty('vpc.amazonaws.com/PrivateIPv4Address');
  });
});
