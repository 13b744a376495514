/** Objects the watcher tests put in the fake API server. */
import type { KubeObject } from '../../sim/fakes/kube';

/** A pod; `unschedulable` adds the scheduler's PodScheduled=False/Unschedulable condition. */
export function pod(
  name: string,
  options: { namespace?: string; nodeName?: string; unschedulable?: boolean; phase?: string } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default' },
    spec: {
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      containers: [{ name: 'app', image: 'public.ecr.aws/docker/library/busybox:latest' }],
    },
    status: {
      phase: options.phase ?? (options.nodeName ? 'Running' : 'Pending'),
      ...(options.unschedulable ? { conditions: [unschedulableCondition()] } : {}),
    },
  };
}

/** The condition kube-scheduler sets on a pod it cannot place. */
export function unschedulableCondition(message = '0/3 nodes are available: 3 Insufficient cpu.') {
  return { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message };
}

/** A node, Ready or not. */
export function node(name: string, options: { ready?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {},
    status: {
      allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: options.ready ? 'True' : 'False' }],
    },
  };
}

/** A karpenter.sh/v1 NodePool. */
export function nodePool(name: string, cpuLimit = '100'): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
      },
      limits: { cpu: cpuLimit },
    },
  };
}

/** A karpenter.k8s.aws/v1 EC2NodeClass. */
export function nodeClass(name: string, amiAlias = 'al2023@latest'): KubeObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: { amiSelectorTerms: [{ alias: amiAlias }], role: 'KarpenterNodeRole' },
  };
}

/** A karpenter.sh/v1 NodeClaim. */
export function nodeClaim(name: string): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6i.large'] }],
    },
  };
}
