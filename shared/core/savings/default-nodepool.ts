import { parseEC2NodeClass } from '../manifests/ec2nodeclass-schema';
import { parseNodePool } from '../manifests/nodepool-schema';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { NodePool } from '../model/nodepool';

/**
 * The NodePool `podlift savings` plans with when a cluster has none (Cluster Autoscaler, managed
 * node groups): Karpenter's own general-purpose example (aws/karpenter-provider-aws
 * examples/v1/general-purpose.yaml): amd64 Linux, on-demand, instance categories c, m and r of
 * generation 3 and newer, AL2023. On-demand only, so the saving against on-demand nodes is a
 * saving of packing and sizing, not of switching to spot.
 */
export const DEFAULT_NODEPOOL_NAME = 'general-purpose';

/** The default NodePool and its EC2NodeClass (see {@link DEFAULT_NODEPOOL_NAME}). */
export function defaultNodePool(): { nodePool: NodePool; nodeClass: EC2NodeClass } {
  const nodePool = parseNodePool(
    {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: DEFAULT_NODEPOOL_NAME },
      spec: {
        template: {
          spec: {
            requirements: [
              { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
              { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
              { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
              { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
            ],
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          },
        },
      },
    },
    { source: 'podlift savings (default NodePool)' },
  );
  const discovery = [{ tags: { 'karpenter.sh/discovery': 'cluster' } }];
  const nodeClass = parseEC2NodeClass(
    {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: {
        role: 'KarpenterNodeRole-cluster',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: discovery,
        securityGroupSelectorTerms: discovery,
      },
    },
    { source: 'podlift savings (default EC2NodeClass)' },
  );
  return { nodePool, nodeClass };
}
