import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { KubeObject } from '../../fakes/kube';
import type { QuantityInput } from './quantities';

/**
 * Karpenter's custom resources as the API server returns them (plain JSON, quantities as
 * strings), for seeding a fake API server or feeding a watcher.
 */

const DEFAULT_NODE_CLASS_REF = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } as const;

/** Options of {@link nodePoolManifest}; every field is optional. */
export interface NodePoolManifestOptions {
  /** Default `default`. */
  readonly name?: string;
  /** Name of the EC2NodeClass referenced; default `default`. */
  readonly nodeClass?: string;
  /** Default: spot only. */
  readonly requirements?: readonly NodeSelectorRequirement[];
  /** Default: 100 cpu. */
  readonly limits?: QuantityInput;
  readonly weight?: number;
}

/** A valid karpenter.sh/v1 NodePool: spot only, at most 100 cpu, nodes of EC2NodeClass `default`. */
export function nodePoolManifest(options: NodePoolManifestOptions = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: options.name ?? 'default' },
    spec: {
      template: {
        spec: {
          nodeClassRef: { ...DEFAULT_NODE_CLASS_REF, name: options.nodeClass ?? 'default' },
          requirements: options.requirements ?? [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
          ],
        },
      },
      limits: options.limits ?? { cpu: '100' },
      ...(options.weight !== undefined ? { weight: options.weight } : {}),
    },
  };
}

/** Options of {@link ec2NodeClassManifest}; every field is optional. */
export interface Ec2NodeClassManifestOptions {
  /** Default `default`. */
  readonly name?: string;
  /** Default `[{ alias: 'al2023@latest' }]`. */
  readonly amiSelectorTerms?: readonly Readonly<Record<string, unknown>>[];
  /** Subnets and security groups are discovered by `karpenter.sh/discovery=<discovery>`; default `demo`. */
  readonly discovery?: string;
  /** The node role. Default `KarpenterNodeRole-demo` (Karpenter's getting-started name), the one a world's stack may pass to EC2. */
  readonly role?: string;
}

/**
 * A valid karpenter.k8s.aws/v1 EC2NodeClass: AL2023, role `KarpenterNodeRole-demo` unless told, subnets and
 * security groups discovered by tag.
 */
export function ec2NodeClassManifest(options: Ec2NodeClassManifestOptions = {}): KubeObject {
  const discovery = [{ tags: { 'karpenter.sh/discovery': options.discovery ?? 'demo' } }];
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: options.name ?? 'default' },
    spec: {
      role: options.role ?? 'KarpenterNodeRole-demo',
      amiSelectorTerms: options.amiSelectorTerms ?? [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: discovery,
      securityGroupSelectorTerms: discovery,
    },
  };
}

/** Options of {@link nodeClaimManifest}. */
export interface NodeClaimManifestOptions {
  readonly name: string;
  /** Default `default`. */
  readonly nodePool?: string;
}

/** A karpenter.sh/v1 NodeClaim for one m6i.large of EC2NodeClass `default`, without status. */
export function nodeClaimManifest(options: NodeClaimManifestOptions): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: options.name, labels: { 'karpenter.sh/nodepool': options.nodePool ?? 'default' } },
    spec: {
      nodeClassRef: DEFAULT_NODE_CLASS_REF,
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6i.large'] }],
    },
  };
}
