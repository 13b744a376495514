import { EC2Client } from '@aws-sdk/client-ec2';
import { attachFake } from '../../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../../sim/fakes/aws/client-config';
import { FakeEc2, type FakeEc2Options, instanceTypeInfo } from '../../../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../../../sim/virtual-time';

/** Three general-purpose types with prices: m5.large is cheapest, then m6g.large, then c5.xlarge. */
export const instanceTypes = [
  instanceTypeInfo({
    name: 'm5.large',
    vcpu: 2,
    memoryMiB: 8192,
    eni: { maxInterfaces: 3, ipv4PerInterface: 10 },
  }),
  instanceTypeInfo({ name: 'm6g.large', vcpu: 2, memoryMiB: 8192 }),
  instanceTypeInfo({ name: 'c5.xlarge', vcpu: 4, memoryMiB: 8192 }),
];

/** A FakeEc2 with two subnets (us-east-1a, us-east-1b), a launch template and prices, behind a real EC2Client. */
export function ec2World(options: Partial<FakeEc2Options> = {}) {
  const clock = new VirtualTime();
  const fake = new FakeEc2({
    clock,
    instanceTypes,
    subnets: [
      {
        id: 'subnet-0000000000000000a',
        availabilityZone: 'us-east-1a',
        tags: { 'karpenter.sh/discovery': 'demo' },
      },
      {
        id: 'subnet-0000000000000000b',
        availabilityZone: 'us-east-1b',
        tags: { 'karpenter.sh/discovery': 'demo' },
      },
    ],
    securityGroups: [
      { id: 'sg-0000000000000000a', name: 'nodes', tags: { 'karpenter.sh/discovery': 'demo' } },
    ],
    images: [
      {
        id: 'ami-00000000000000001',
        name: 'al2023-x86',
        architecture: 'x86_64',
        creationDate: '2025-12-01T00:00:00Z',
      },
      {
        id: 'ami-00000000000000002',
        name: 'al2023-arm',
        architecture: 'arm64',
        creationDate: '2025-12-01T00:00:00Z',
      },
    ],
    onDemandPrices: { 'm5.large': 0.096, 'm6g.large': 0.077, 'c5.xlarge': 0.17 },
    spotPrices: [
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.04, timestamp: 0 },
      { instanceType: 'm5.large', availabilityZone: 'us-east-1b', price: 0.035, timestamp: 0 },
      { instanceType: 'm6g.large', availabilityZone: 'us-east-1a', price: 0.03, timestamp: 0 },
      { instanceType: 'c5.xlarge', availabilityZone: 'us-east-1a', price: 0.07, timestamp: 0 },
    ],
    ...options,
  });
  const client = new EC2Client(clientConfig);
  attachFake(client, fake);
  return { clock, fake, client };
}
