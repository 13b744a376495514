import type { KubeResource } from '../shared/kube/kube-resources';

/** The resources the watcher lists and watches, cluster-wide. */
export const WATCHED_RESOURCES = ['pods', 'nodes', 'nodepools', 'ec2nodeclasses', 'nodeclaims'] as const;

/** One of {@link WATCHED_RESOURCES}; also the `resource` label of the restart metric. */
export type WatchedResource = (typeof WATCHED_RESOURCES)[number];

/** Where a resource is served, and whether podlift's CRDs serve it. */
export interface ResourceLocation extends KubeResource {
  /** The cluster-wide collection path, as a watch requests it. */
  readonly path: string;
}

/** The API location of each watched resource (NodePool and NodeClaim karpenter.sh/v1, EC2NodeClass karpenter.k8s.aws/v1). */
export const RESOURCE_LOCATIONS: Readonly<Record<WatchedResource, ResourceLocation>> = {
  pods: { group: '', version: 'v1', plural: 'pods', path: '/api/v1/pods' },
  nodes: { group: '', version: 'v1', plural: 'nodes', path: '/api/v1/nodes' },
  nodepools: {
    group: 'karpenter.sh',
    version: 'v1',
    plural: 'nodepools',
    crd: true,
    path: '/apis/karpenter.sh/v1/nodepools',
  },
  ec2nodeclasses: {
    group: 'karpenter.k8s.aws',
    version: 'v1',
    plural: 'ec2nodeclasses',
    crd: true,
    path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
  },
  nodeclaims: {
    group: 'karpenter.sh',
    version: 'v1',
    plural: 'nodeclaims',
    crd: true,
    path: '/apis/karpenter.sh/v1/nodeclaims',
  },
};
