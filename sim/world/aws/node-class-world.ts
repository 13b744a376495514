import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import {
  EC2NodeClassResolver,
  type EC2NodeClassResolverOptions,
} from '../../../shared/aws/nodeclass/resolver';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { FakeEc2, type FakeEc2Options } from '../../fakes/aws/ec2';
import { FakeIam } from '../../fakes/aws/fake-iam';
import { FakeSsm, type ParameterSeed } from '../../fakes/aws/fake-ssm';
import { VirtualTime } from '../../virtual-time';
import {
  CLUSTER,
  DISCOVERY,
  K8S,
  REGION,
  SECURITY_GROUP_ML,
  SECURITY_GROUP_NODES,
  SECURITY_GROUP_WEB,
  SUBNET_A,
  SUBNET_B,
  SUBNET_C,
  SUBNET_D,
} from './region';

/** The node role the EC2NodeClasses of this world name. */
export const ROLE = 'KarpenterNodeRole-demo';

/** Public EKS AMIs look like this: owned by Amazon, public. */
export const AMAZON = { ownerAlias: 'amazon' } as const;

/** AL2023 `recommended` parameter path for an architecture and variant. */
export function al2023Path(arch: 'x86_64' | 'arm64', variant: 'standard' | 'nvidia' | 'neuron', k8s = K8S) {
  return `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2023/${arch}/${variant}/recommended/image_id`;
}

/**
 * AWS's public parameter for the latest EKS optimized Windows Server Core AMI (the one
 * Karpenter's amifamily/windows.go DescribeImageQuery reads).
 */
export function windowsPath(year: '2019' | '2022' | '2025', k8s = K8S) {
  return `/aws/service/ami-windows-latest/Windows_Server-${year}-English-Core-EKS_Optimized-${k8s}/image_id`;
}

/** An AMI id parameter as AWS publishes it. */
export function amiParameter(name: string, value: string): ParameterSeed {
  return { name, value, dataType: 'aws:ec2:image' };
}

/** Options of {@link nodeClassWorld}. */
export interface NodeClassWorldOptions {
  readonly ec2?: Partial<Omit<FakeEc2Options, 'clock'>>;
  readonly parameters?: readonly ParameterSeed[];
  readonly resolver?: Partial<Pick<EC2NodeClassResolverOptions, 'ttls' | 'cluster'>>;
}

/** What {@link nodeClassWorld} builds. */
export interface NodeClassWorld {
  readonly clock: VirtualTime;
  readonly ec2Fake: FakeEc2;
  readonly ssmFake: FakeSsm;
  readonly iamFake: FakeIam;
  /** Real SDK clients answered by the fakes. */
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly iam: IAMClient;
  /** A resolver on the clients. */
  readonly resolver: EC2NodeClassResolver;
  /** Another resolver on the same clients, as a second process would have, with its own caches. */
  readonly newResolver: () => EC2NodeClassResolver;
}

/**
 * EC2, SSM and IAM fakes behind real SDK clients, and a resolver using them. Default EC2 world:
 * three discovery-tagged subnets (two in us-east-1a), one untagged subnet, and security groups
 * `nodes` (discovery), `ml` (team=ml) and `web` (untagged).
 */
export function nodeClassWorld(options: NodeClassWorldOptions = {}): NodeClassWorld {
  const clock = new VirtualTime();
  const ec2Fake = new FakeEc2({
    clock,
    region: REGION,
    subnets: [
      {
        id: SUBNET_A,
        availabilityZone: 'us-east-1a',
        availableIpAddressCount: 100,
        tags: { ...DISCOVERY, tier: 'private' },
      },
      {
        id: SUBNET_B,
        availabilityZone: 'us-east-1b',
        availableIpAddressCount: 4000,
        tags: { ...DISCOVERY, tier: 'private' },
      },
      {
        id: SUBNET_C,
        availabilityZone: 'us-east-1a',
        availableIpAddressCount: 250,
        tags: { 'karpenter.sh/discovery': 'other-cluster', tier: 'public' },
      },
      { id: SUBNET_D, availabilityZone: 'us-east-1c', availableIpAddressCount: 8 },
    ],
    securityGroups: [
      { id: SECURITY_GROUP_NODES, name: 'nodes', tags: DISCOVERY },
      { id: SECURITY_GROUP_ML, name: 'ml', tags: { team: 'ml' } },
      { id: SECURITY_GROUP_WEB, name: 'web' },
    ],
    ...options.ec2,
  });
  const ssmFake = new FakeSsm({ clock, region: REGION, parameters: options.parameters ?? [] });
  const iamFake = new FakeIam({ clock, roles: [{ name: ROLE }, { name: 'OtherRole' }] });
  const ec2 = withFake(new EC2Client(clientConfig), ec2Fake);
  const ssm = withFake(new SSMClient(clientConfig), ssmFake);
  const iam = withFake(new IAMClient(clientConfig), iamFake);
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
