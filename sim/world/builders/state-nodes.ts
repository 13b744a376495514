import type { Pod } from '../../../shared/core/model/pod';
import type { Taint } from '../../../shared/core/model/taints';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nextName } from './names';
import { type QuantityInput, resources } from './quantities';

/** Options of {@link stateNode}; every field is optional. */
export interface StateNodeOptions {
  readonly kind?: StateNode['kind'];
  /** Default `node-N`. */
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  /** Allocatable as quantities; default 4 cpu, 16Gi memory, 110 pods. */
  readonly allocatable?: QuantityInput;
  readonly pods?: readonly Pod[];
  readonly nodePool?: string;
  readonly unschedulable?: boolean;
  /** Lifecycle fields as the API server reports them (providerID, Ready, creation, deletion, …). */
  readonly lifecycle?: Pick<
    StateNode,
    'providerID' | 'annotations' | 'ready' | 'creationTimestamp' | 'deleting' | 'finalizers' | 'capacity'
  >;
}

/**
 * Existing capacity for the scheduler: a registered node (kind `node`) with 4 cpu, 16Gi and 110
 * pods allocatable, no taints and no pods. When `nodePool` is set the node carries the
 * `karpenter.sh/nodepool` label too.
 */
export function stateNode(options: StateNodeOptions = {}): StateNode {
  const labels = {
    ...(options.nodePool !== undefined ? { 'karpenter.sh/nodepool': options.nodePool } : {}),
    ...options.labels,
  };
  return {
    kind: options.kind ?? 'node',
    name: options.name ?? nextName('node'),
    labels,
    taints: options.taints ?? [],
    allocatable: resources(options.allocatable ?? { cpu: '4', memory: '16Gi', pods: 110 }),
    pods: options.pods ?? [],
    ...(options.nodePool !== undefined ? { nodePool: options.nodePool } : {}),
    ...(options.unschedulable !== undefined ? { unschedulable: options.unschedulable } : {}),
    ...options.lifecycle,
  };
}
