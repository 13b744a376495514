import { EC2Client } from '@aws-sdk/client-ec2';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { FakeEc2, type FakeEc2Options, instanceTypeInfo } from '../../fakes/aws/ec2';
import { VirtualTime } from '../../virtual-time';
import {
  AL2023_IMAGES,
  DISCOVERY,
  ON_DEMAND_PRICES,
  SECURITY_GROUP_NODES,
  SUBNET_A,
  SUBNET_B,
} from './region';

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

/** What {@link ec2World} builds. */
export interface Ec2World {
  readonly clock: VirtualTime;
  readonly fake: FakeEc2;
  /** A real EC2Client answered by `fake`. */
  readonly client: EC2Client;
}

/**
 * A FakeEc2 with the region's discovery-tagged subnets in us-east-1a and us-east-1b, the nodes'
 * security group, the amd64 and arm64 AL2023 images and prices, behind a real EC2Client.
 * `options` replace the seeds they name.
 */
export function ec2World(options: Partial<FakeEc2Options> = {}): Ec2World {
  const clock = new VirtualTime();
  const fake = new FakeEc2({
    clock,
    instanceTypes,
    subnets: [
      { id: SUBNET_A, availabilityZone: 'us-east-1a', tags: DISCOVERY },
      { id: SUBNET_B, availabilityZone: 'us-east-1b', tags: DISCOVERY },
    ],
    securityGroups: [{ id: SECURITY_GROUP_NODES, name: 'nodes', tags: DISCOVERY }],
    images: [AL2023_IMAGES.amd64, AL2023_IMAGES.arm64],
    onDemandPrices: ON_DEMAND_PRICES,
    spotPrices: [
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a', price: 0.04, timestamp: 0 },
      { instanceType: 'm5.large', availabilityZone: 'us-east-1b', price: 0.035, timestamp: 0 },
      { instanceType: 'm6g.large', availabilityZone: 'us-east-1a', price: 0.03, timestamp: 0 },
      { instanceType: 'c5.xlarge', availabilityZone: 'us-east-1a', price: 0.07, timestamp: 0 },
    ],
    ...options,
  });
  return { clock, fake, client: withFake(new EC2Client(clientConfig), fake) };
}
