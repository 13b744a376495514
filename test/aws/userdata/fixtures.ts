import {
  type BootstrapInput,
  type BootstrapOptions,
  bootstrapOptions,
} from '../../../shared/aws/userdata/bootstrap-options';
import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import { LABEL_NODECLASS, LABEL_NODEPOOL } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { Taint } from '../../../shared/core/model/taints';
import { nodeClass } from '../../builders';

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

/** Options of {@link nodeClaim}. */
export interface NodeClaimOptions {
  readonly name?: string;
  readonly nodePool?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly requirements?: readonly NodeSelectorRequirement[];
  readonly taints?: readonly Taint[];
  readonly startupTaints?: readonly Taint[];
}

/** A NodeClaim of NodePool `default` and EC2NodeClass `default`, labelled as Karpenter labels them. */
export function nodeClaim(options: NodeClaimOptions = {}): NodeClaim {
  const nodePool = options.nodePool ?? 'default';
  return {
    name: options.name ?? `${nodePool}-x7k2p`,
    labels: { [LABEL_NODEPOOL]: nodePool, [LABEL_NODECLASS]: 'default', ...options.labels },
    annotations: {},
    finalizers: [],
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: options.requirements ?? [],
      resources: { requests: {} },
      taints: options.taints ?? [],
      startupTaints: options.startupTaints ?? [],
    },
    status: {},
  };
}

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
