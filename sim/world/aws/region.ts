import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import type { ImageSeed } from '../../fakes/aws/ec2';

/**
 * The region every seeded AWS world plays: one account in us-east-1 running the EKS cluster
 * `demo`, with the same subnet, security group and AMI ids and the same on-demand prices, so
 * worlds differ only in what they are about (addresses left in a subnet, spot prices, tags)
 * and ids read the same in every test.
 */

/** The region of every world. */
export const REGION = 'us-east-1';
/** Its Availability Zones. */
export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'] as const;
/** The cluster's name. */
export const CLUSTER = 'demo';
/** Kubernetes version of the cluster. */
export const K8S = '1.31';
/** The tag Karpenter's getting-started guide puts on the cluster's subnets and security groups. */
export const DISCOVERY: Readonly<Record<string, string>> = { 'karpenter.sh/discovery': CLUSTER };

/** The cluster as EKS DescribeCluster describes it. */
export const clusterInfo: ClusterInfo = {
  name: CLUSTER,
  endpoint: 'https://0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  certificateAuthority: Buffer.from(
    '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n',
  ).toString('base64'),
  kubernetesVersion: K8S,
  serviceCidr: '10.100.0.0/16',
  ipFamily: 'ipv4',
  clusterDns: '10.100.0.10',
};

/** Subnet in us-east-1a. */
export const SUBNET_A = 'subnet-0000000000000000a';
/** Subnet in us-east-1b. */
export const SUBNET_B = 'subnet-0000000000000000b';
/** A second subnet in us-east-1a. */
export const SUBNET_C = 'subnet-0000000000000000c';
/** Subnet in us-east-1c. */
export const SUBNET_D = 'subnet-0000000000000000d';
/** A small subnet in us-east-1a. */
export const SUBNET_A_SMALL = 'subnet-00000000000000a02';

/** The nodes' security group. */
export const SECURITY_GROUP_NODES = 'sg-0000000000000000a';
/** A security group of team ml. */
export const SECURITY_GROUP_ML = 'sg-0000000000000000b';
/** An untagged security group. */
export const SECURITY_GROUP_WEB = 'sg-0000000000000000c';

/** AL2023 for amd64. */
export const AMI_AMD64 = 'ami-00000000000000001';
/** AL2023 for arm64. */
export const AMI_ARM64 = 'ami-00000000000000002';
/** AL2023 with NVIDIA drivers, amd64. */
export const AMI_NVIDIA = 'ami-00000000000000003';

/** The account's AL2023 images, one per variant. */
export const AL2023_IMAGES = {
  amd64: { id: AMI_AMD64, name: 'al2023-x86', architecture: 'x86_64', creationDate: '2025-12-01T00:00:00Z' },
  arm64: { id: AMI_ARM64, name: 'al2023-arm', architecture: 'arm64', creationDate: '2025-12-01T00:00:00Z' },
  nvidia: {
    id: AMI_NVIDIA,
    name: 'al2023-nvidia',
    architecture: 'x86_64',
    creationDate: '2025-12-01T00:00:00Z',
  },
} as const satisfies Record<string, ImageSeed>;

/** EKS optimized Windows Server Core AMIs (amd64 only), as AWS names them, for the world's Kubernetes version. */
export const WINDOWS_IMAGES = {
  windows2019: {
    id: 'ami-00000000000000019',
    name: `Windows_Server-2019-English-Core-EKS_Optimized-${K8S}-2025.12.01`,
    architecture: 'x86_64',
    creationDate: '2025-12-01T00:00:00Z',
    ownerAlias: 'amazon',
    platform: 'windows',
  },
  windows2022: {
    id: 'ami-00000000000000022',
    name: `Windows_Server-2022-English-Core-EKS_Optimized-${K8S}-2025.12.01`,
    architecture: 'x86_64',
    creationDate: '2025-12-01T00:00:00Z',
    ownerAlias: 'amazon',
    platform: 'windows',
  },
} as const satisfies Record<string, ImageSeed>;

/** On-demand USD per hour of the general-purpose and GPU types the worlds launch. */
export const ON_DEMAND_PRICES: Readonly<Record<string, number>> = {
  'm6g.large': 0.077,
  'm5.large': 0.096,
  'c5.xlarge': 0.17,
  'g4dn.xlarge': 0.526,
};
