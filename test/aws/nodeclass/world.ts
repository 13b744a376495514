import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import {
  EC2NodeClassResolver,
  type EC2NodeClassResolverOptions,
} from '../../../shared/aws/nodeclass/resolver';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEc2, type FakeEc2Options } from '../../../sim/fakes/aws/ec2';
import { FakeIam } from '../../../sim/fakes/aws/fake-iam';
import { FakeSsm, type ParameterSeed } from '../../../sim/fakes/aws/fake-ssm';
import { VirtualTime } from '../../../sim/virtual-time';

export const CLUSTER = 'demo';
export const REGION = 'us-east-1';
export const K8S = '1.31';
export const ROLE = 'KarpenterNodeRole-demo';

/** Public EKS AMIs look like this: owned by Amazon, public. */
export const AMAZON = { ownerAlias: 'amazon' } as const;

/** AL2023 `recommended` parameter path for an architecture and variant. */
export function al2023Path(arch: 'x86_64' | 'arm64', variant: 'standard' | 'nvidia' | 'neuron', k8s = K8S) {
  return `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2023/${arch}/${variant}/recommended/image_id`;
}

/** An AMI id parameter as AWS publishes it. */
export function amiParameter(name: string, value: string): ParameterSeed {
  return { name, value, dataType: 'aws:ec2:image' };
}

/** Options of `nodeClassWorld`. */
export interface WorldOptions {
  readonly ec2?: Partial<Omit<FakeEc2Options, 'clock'>>;
  readonly parameters?: readonly ParameterSeed[];
  readonly resolver?: Partial<Pick<EC2NodeClassResolverOptions, 'ttls' | 'cluster'>>;
}

/**
 * EC2, SSM and IAM fakes behind real SDK clients, and a resolver using them. Default EC2 world:
 * three discovery-tagged subnets (two in us-east-1a), one untagged subnet, and security groups
 * `nodes` (discovery), `ml` (team=ml) and `web` (untagged).
 */
export function nodeClassWorld(options: WorldOptions = {}) {
  const clock = new VirtualTime();
  const ec2Fake = new FakeEc2({
    clock,
    region: REGION,
    subnets: [
      {
        id: 'subnet-0000000000000000a',
        availabilityZone: 'us-east-1a',
        availableIpAddressCount: 100,
        tags: { 'karpenter.sh/discovery': CLUSTER, tier: 'private' },
      },
      {
        id: 'subnet-0000000000000000b',
        availabilityZone: 'us-east-1b',
        availableIpAddressCount: 4000,
        tags: { 'karpenter.sh/discovery': CLUSTER, tier: 'private' },
      },
      {
        id: 'subnet-0000000000000000c',
        availabilityZone: 'us-east-1a',
        availableIpAddressCount: 250,
        tags: { 'karpenter.sh/discovery': 'other-cluster', tier: 'public' },
      },
      { id: 'subnet-0000000000000000d', availabilityZone: 'us-east-1c', availableIpAddressCount: 8 },
    ],
    securityGroups: [
      { id: 'sg-0000000000000000a', name: 'nodes', tags: { 'karpenter.sh/discovery': CLUSTER } },
      { id: 'sg-0000000000000000b', name: 'ml', tags: { team: 'ml' } },
      { id: 'sg-0000000000000000c', name: 'web' },
    ],
    ...options.ec2,
  });
  const ssmFake = new FakeSsm({ clock, region: REGION, parameters: options.parameters ?? [] });
  const iamFake = new FakeIam({ clock, roles: [{ name: ROLE }, { name: 'OtherRole' }] });
  const ec2 = new EC2Client(clientConfig);
  const ssm = new SSMClient(clientConfig);
  const iam = new IAMClient(clientConfig);
  attachFake(ec2, ec2Fake);
  attachFake(ssm, ssmFake);
  attachFake(iam, iamFake);
  const newResolver = () =>
    new EC2NodeClassResolver({
      ec2,
      ssm,
      iam,
      clock,
      region: REGION,
      cluster: options.resolver?.cluster ?? { name: CLUSTER, kubernetesVersion: K8S },
      ...(options.resolver?.ttls === undefined ? {} : { ttls: options.resolver.ttls }),
    });
  return { clock, ec2Fake, ssmFake, iamFake, ec2, ssm, iam, resolver: newResolver(), newResolver };
}

/** IAM operations that change something. */
export const IAM_WRITES = [
  'CreateInstanceProfile',
  'AddRoleToInstanceProfile',
  'RemoveRoleFromInstanceProfile',
  'TagInstanceProfile',
  'DeleteInstanceProfile',
];

/** How many write calls reached the IAM fake. */
export function iamWrites(iamFake: FakeIam): number {
  return iamFake.calls.filter((c) => IAM_WRITES.includes(c.operation)).length;
}
