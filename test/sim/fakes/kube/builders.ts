/** Builders for the objects the fake API server tests create. */
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { KubeObject } from '../../../../sim/fakes/kube';
import { expectedPodsAnnotation } from '../../../../sim/fakes/kube';

/** A pod; `ready` makes it Running with a Ready condition (healthy for disruption budgets). */
export function pod(
  name: string,
  options: {
    namespace?: string;
    labels?: Record<string, string>;
    nodeName?: string;
    ready?: boolean;
    phase?: string;
  } = {},
): V1Pod {
  const phase = options.phase ?? (options.ready ? 'Running' : 'Pending');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', labels: options.labels ?? {} },
    spec: {
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      containers: [{ name: 'app', image: 'public.ecr.aws/docker/library/busybox:latest' }],
    },
    status: {
      phase,
      ...(options.ready ? { conditions: [{ type: 'Ready', status: 'True' }] } : {}),
    },
  };
}

/** A node with optional labels and taints. */
export function node(
  name: string,
  options: {
    labels?: Record<string, string>;
    taints?: { key: string; effect: string; value?: string }[];
  } = {},
): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: options.labels ?? {} },
    spec: options.taints ? { taints: options.taints } : {},
    status: { allocatable: { cpu: '2', memory: '8Gi', pods: '110' } },
  };
}

/** A policy/v1 PodDisruptionBudget over `app=<app>`; `expectedPods` stands in for the workload's replicas. */
export function pdb(
  name: string,
  app: string,
  budget: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    unhealthyPodEvictionPolicy?: string;
  },
  options: { namespace?: string; expectedPods?: number } = {},
): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      ...(options.expectedPods !== undefined
        ? { annotations: { [expectedPodsAnnotation]: String(options.expectedPods) } }
        : {}),
    },
    spec: { selector: { matchLabels: { app } }, ...budget },
  };
}

/** A karpenter.sh/v1 NodeClaim. */
export function nodeClaim(name: string, nodePool = 'default'): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': nodePool } },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6i.large'] }],
    },
  };
}
