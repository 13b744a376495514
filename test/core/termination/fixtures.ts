import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { CloudInstance } from '../../../shared/core/ports/cloud';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import type { TerminationInput } from '../../../shared/core/termination/actions';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';

/** Builders shared by the termination decision tests: one NodeClaim `default-a`, its Node `n1` and instance. */

export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number) => new Date(ms).toISOString();
const PROVIDER = 'aws:///us-east-1a/i-0123456789abcdef0';
export const cond = (type: string, status: Condition['status'] = 'True', at = T0): Condition => ({
  type,
  status,
  reason: type,
  message: '',
  lastTransitionTime: iso(at),
});

export function claim(
  options: {
    launched?: boolean;
    registered?: boolean;
    deleting?: number;
    annotations?: Record<string, string>;
    conditions?: Condition[];
  } = {},
): NodeClaim {
  const conditions = [
    ...(options.launched !== false ? [cond('Launched')] : []),
    ...(options.registered ? [cond('Registered')] : []),
    ...(options.conditions ?? []),
  ];
  return nodeClaim({
    name: 'default-a',
    creationTimestamp: iso(T0),
    finalizers: ['karpenter.sh/termination'],
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.deleting !== undefined ? { deletionTimestamp: iso(options.deleting) } : {}),
    status: { ...(options.launched !== false ? { providerID: PROVIDER } : {}), conditions },
  });
}

export function node(
  pods = [pod({ name: 'web', ownerKind: 'ReplicaSet' })],
  extra: Partial<StateNode> = {},
): StateNode {
  return {
    ...stateNode({
      name: 'n1',
      nodePool: 'default',
      pods,
      lifecycle: { providerID: PROVIDER, creationTimestamp: iso(T0), ready: true },
    }),
    ...extra,
  };
}

export const instance = (extra: Partial<CloudInstance> = {}): CloudInstance => ({
  id: 'i-0123456789abcdef0',
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  state: 'running',
  capacityType: 'on-demand',
  launchTime: T0,
  tags: {},
  providerID: PROVIDER,
  nodeClaim: 'default-a',
  ...extra,
});

export const input = (over: Partial<TerminationInput>): TerminationInput => ({
  now: T0 + 60_000,
  nodes: [],
  nodeClaims: [],
  nodePools: [nodePool()],
  instances: [],
  ...over,
});

export const TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };
const EXCLUDE = { 'node.kubernetes.io/exclude-from-external-load-balancers': 'karpenter' };
/** A Node already tainted and labelled for termination. */
export const marked = (pods: Pod[], extra: Partial<StateNode> = {}) =>
  node(pods, { taints: [TAINT], labels: { ...node().labels, ...EXCLUDE }, ...extra });
export const ref = (name: string) => ({ namespace: 'default', name, uid: `default/${name}` });
export const web = (extra: Partial<Pod> = {}): Pod => ({
  ...pod({ name: extra.name ?? 'web', ownerKind: 'ReplicaSet' }),
  ...extra,
});
export const draining = (at: number) => ({ ...cond('Drained', 'Unknown', at), reason: 'Draining' });
export const drainedClaim = (extra: Parameters<typeof claim>[0] = {}) =>
  claim({ deleting: T0, conditions: [cond('Drained'), cond('VolumesDetached')], ...extra });
export const nodeEvent = (reason: string, type: string, message: string, once?: true) => ({
  kind: 'record-event',
  event: {
    object: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    type,
    reason,
    message,
    ...(once ? { once } : {}),
  },
});
export const failedDraining = (n: number) =>
  nodeEvent('FailedDraining', 'Warning', `Failed to drain node, ${n} pods are waiting to be evicted`);
export const terminate = {
  kind: 'terminate-instance',
  nodeClaim: 'default-a',
  instanceId: 'i-0123456789abcdef0',
  reason: 'NodeClaim deleted',
};
export const kinds = (actions: readonly { kind: string }[]) => actions.map((a) => a.kind);
