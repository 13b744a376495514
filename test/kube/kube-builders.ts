/** API objects (as the API server's JSON) for the adapter tests. */
import type { NodeManifest, PodManifest } from '../../shared/core/manifests/kube-objects';

/** Options of {@link podObject}. */
export interface PodObjectOptions {
  readonly namespace?: string;
  readonly cpu?: string;
  readonly nodeName?: string;
  readonly phase?: string;
  /** Adds PodScheduled=False/Unschedulable (the default for unbound Pending pods). */
  readonly unschedulable?: boolean;
  readonly labels?: Record<string, string>;
  readonly owner?: string;
  readonly schedulerName?: string;
  readonly nominatedNodeName?: string;
  readonly claims?: readonly string[];
  readonly ready?: boolean;
}

/** A pod; unbound Pending pods are marked unschedulable unless told otherwise. */
export function podObject(name: string, o: PodObjectOptions = {}): PodManifest {
  const phase = o.phase ?? (o.ready ? 'Running' : 'Pending');
  const unschedulable = o.unschedulable ?? (!o.nodeName && phase === 'Pending');
  const conditions = [
    ...(unschedulable
      ? [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/3 nodes are available',
          },
        ]
      : []),
    ...(o.ready ? [{ type: 'Ready', status: 'True' }] : []),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      labels: o.labels ?? {},
      ...(o.owner ? { ownerReferences: [{ kind: o.owner, name: 'owner', controller: true }] } : {}),
    },
    spec: {
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.schedulerName ? { schedulerName: o.schedulerName } : {}),
      containers: [{ name: 'app', image: 'busybox', resources: { requests: { cpu: o.cpu ?? '100m' } } }],
      ...(o.claims
        ? { volumes: o.claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) }
        : {}),
    },
    status: {
      phase,
      conditions,
      ...(o.nominatedNodeName ? { nominatedNodeName: o.nominatedNodeName } : {}),
    },
  };
}

/** A node with 4 cpu, optional labels and taints. */
export function nodeObject(
  name: string,
  o: { labels?: Record<string, string>; taints?: { key: string; value?: string; effect: string }[] } = {},
): NodeManifest {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: o.labels ?? {} },
    spec: o.taints ? { taints: o.taints } : {},
    status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
  };
}

/** A valid karpenter.sh/v1 NodePool. */
export function nodePoolObject(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
        },
      },
      limits: { cpu: '100' },
      ...spec,
    },
  };
}

/** A valid karpenter.k8s.aws/v1 EC2NodeClass. */
export function ec2NodeClassObject(
  name: string,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      ...spec,
    },
  };
}
