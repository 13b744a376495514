import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodeClass, nodePool, stateNode } from '../../../sim/world/builders';

/** The time the disruption tests' snapshots are taken at. */
export const T0 = Date.UTC(2026, 0, 1);
/** The bundled us-east-1 catalog the disruption tests plan replacements from. */
export const catalog = loadBundledCatalog('us-east-1');

/**
 * A snapshot of registered nodes and their NodeClaims, taken at {@link T0}, with the default
 * NodePool and EC2NodeClass and nothing else in the cluster; `more` replaces any field.
 */
export function snapshotOf(
  members: readonly (readonly [StateNode, NodeClaim])[],
  more: Partial<ClusterSnapshot> = {},
): ClusterSnapshot {
  return {
    now: T0,
    pendingPods: [],
    nodes: members.map(([n]) => n),
    nodeClaims: members.map(([, c]) => c),
    daemonSets: [],
    podDisruptionBudgets: [],
    nodePools: [nodePool()],
    nodeClasses: [nodeClass()],
    nodeClassStatus: new Map(),
    catalog,
    unavailableOfferings: new Set(),
    invalid: [],
    warnings: [],
    ...more,
  };
}

/** A NodeClaim condition `type` that is True since {@link T0}, its reason its type. */
export const condition = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
});
const initialized = condition('Initialized');
const consolidatable = condition('Consolidatable');

/**
 * A registered m5.xlarge (3.92 cpu allocatable) of NodePool default running `pods`, its NodeClaim
 * Initialized and Consolidatable at {@link T0} (neither when `starting`), at `price` $/h
 * (default the on-demand $0.192) and `capacityType` (default on-demand).
 */
export function m5xlargeMember(
  name: string,
  pods: readonly Pod[],
  options: { price?: number; capacityType?: string; starting?: boolean } = {},
): [StateNode, NodeClaim] {
  return member(name, pods, {
    instanceType: 'm5.xlarge',
    cpu: '3920m',
    memory: '14Gi',
    price: 0.192,
    ...options,
  });
}

/** The same for any instance type, its allocatable cpu and memory and price given. */
export function member(
  name: string,
  pods: readonly Pod[],
  {
    instanceType,
    cpu,
    memory,
    price,
    capacityType = 'on-demand',
    starting = false,
  }: {
    instanceType: string;
    cpu: string;
    memory: string;
    price: number;
    capacityType?: string;
    starting?: boolean;
  },
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: 'default',
    allocatable: { cpu, memory, pods: 58 },
    pods: pods.map((p) => ({ ...p, nodeName: name })),
    lifecycle: { providerID, ready: true },
  });
  const claim = nodeClaim({
    name: `claim-${name}`,
    creationTimestamp: new Date(T0).toISOString(),
    labels: { 'karpenter.sh/capacity-type': capacityType, 'node.kubernetes.io/instance-type': instanceType },
    annotations: { 'podlift.dev/hourly-price': String(price) },
    status: { providerID, conditions: starting ? [] : [initialized, consolidatable] },
  });
  return [node, claim];
}
