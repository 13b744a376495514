import {
  type BootstrapInput,
  type BootstrapOptions,
  bootstrapOptions,
} from '../../../shared/aws/userdata/bootstrap-options';
import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';

/** A cluster as EKS DescribeCluster describes it. */
export const cluster: ClusterInfo = {
  name: 'demo',
  endpoint: 'https://0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  certificateAuthority: Buffer.from(
    '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n',
  ).toString('base64'),
  kubernetesVersion: '1.31',
  serviceCidr: '10.100.0.0/16',
  ipFamily: 'ipv4',
  clusterDns: '10.100.0.10',
};

/** Bootstrap options for the default NodeClaim on `demo`, spot, 29 pods, with overrides. */
export function bootstrap(
  overrides: Partial<Omit<BootstrapInput, 'nodeClass'>> & { readonly nodeClass?: EC2NodeClass } = {},
): BootstrapOptions {
  return bootstrapOptions({
    cluster,
    nodeClass: nodeClass(),
    nodeClaim: nodeClaim(),
    nodePoolName: 'default',
    capacityType: 'spot',
    maxPods: 29,
    ...overrides,
  });
}

/** Base64 user data → text. */
export function decode(base64: string | undefined): string {
  if (base64 === undefined) throw new Error('no user data');
  return Buffer.from(base64, 'base64').toString('utf8');
}
