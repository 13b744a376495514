import type { NodeManifest, TaintManifest } from '../../../shared/core/manifests/kube-objects';
import { LABEL_NODEPOOL } from '../../../shared/core/model/labels';
import { nextName } from './names';
import type { QuantityInput } from './quantities';

/** Options of {@link nodeManifest}; every field is optional. */
export interface NodeManifestOptions {
  /** Default `node-N`. */
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Adds the `karpenter.sh/nodepool` label. */
  readonly nodePool?: string;
  readonly taints?: readonly TaintManifest[];
  readonly unschedulable?: boolean;
  /** Default 4 cpu, 16Gi, 110 pods. */
  readonly allocatable?: QuantityInput;
  /** Default: the allocatable. */
  readonly capacity?: QuantityInput;
  /** Adds the Ready condition, True or False; no conditions when left out. */
  readonly ready?: boolean;
  readonly deletionTimestamp?: string;
}

/** A core/v1 Node manifest as the API would return it. */
export function nodeManifest(options: NodeManifestOptions = {}): NodeManifest {
  const allocatable = options.allocatable ?? { cpu: '4', memory: '16Gi', pods: '110' };
  const labels = {
    ...(options.nodePool !== undefined ? { [LABEL_NODEPOOL]: options.nodePool } : {}),
    ...options.labels,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: options.name ?? nextName('node'),
      labels,
      ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
    },
    spec: {
      ...(options.taints !== undefined ? { taints: options.taints } : {}),
      ...(options.unschedulable !== undefined ? { unschedulable: options.unschedulable } : {}),
    },
    status: {
      allocatable,
      capacity: options.capacity ?? allocatable,
      ...(options.ready !== undefined
        ? { conditions: [{ type: 'Ready', status: options.ready ? 'True' : 'False' }] }
        : {}),
    },
  };
}
