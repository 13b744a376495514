import {
  LABEL_CAPACITY_TYPE,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from '../../../shared/core/model/labels';
import type { NodeClaim, NodeClaimStatus } from '../../../shared/core/model/nodeclaim';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { Resources } from '../../../shared/core/model/resources';
import type { Taint } from '../../../shared/core/model/taints';

/** Options of {@link nodeClaim}; every field is optional. */
export interface NodeClaimOptions {
  /** Default `<nodePool>-x7k2`. */
  readonly name?: string;
  readonly uid?: string;
  /** Default `default`. */
  readonly nodePool?: string;
  /** Labels on top of the NodePool and EC2NodeClass labels Karpenter sets. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The capacity-type requirement's values; `null` leaves the requirement out. @default ['spot', 'on-demand'] */
  readonly capacityTypes?: readonly string[] | null;
  /** A zone requirement. @default any zone */
  readonly zones?: readonly string[];
  /** Further requirements, after capacity type and zone. */
  readonly requirements?: readonly NodeSelectorRequirement[];
  /** spec.resources.requests: what its pods and DaemonSets were planned to take. @default none */
  readonly requests?: Resources;
  readonly taints?: readonly Taint[];
  readonly startupTaints?: readonly Taint[];
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
  /** RFC 3339. */
  readonly creationTimestamp?: string;
  /** RFC 3339; set when deletion was requested. */
  readonly deletionTimestamp?: string;
  /** Default `{}` (not launched). */
  readonly status?: NodeClaimStatus;
}

/**
 * A NodeClaim as the provisioner records it before launching: NodePool `default`, EC2NodeClass
 * `default`, labelled as Karpenter labels them, allowing spot and on-demand in any zone.
 */
export function nodeClaim(options: NodeClaimOptions = {}): NodeClaim {
  const nodePool = options.nodePool ?? 'default';
  const requirements: NodeSelectorRequirement[] = [];
  if (options.capacityTypes !== null) {
    const values = [...(options.capacityTypes ?? ['spot', 'on-demand'])];
    requirements.push({ key: LABEL_CAPACITY_TYPE, operator: 'In', values });
  }
  if (options.zones !== undefined)
    requirements.push({ key: LABEL_ZONE, operator: 'In', values: [...options.zones] });
  requirements.push(...(options.requirements ?? []));
  return {
    name: options.name ?? `${nodePool}-x7k2`,
    uid: options.uid ?? '6f1c2a7e-0000-4000-8000-000000000001',
    labels: { [LABEL_NODEPOOL]: nodePool, [LABEL_NODECLASS]: 'default', ...options.labels },
    annotations: options.annotations ?? {},
    finalizers: options.finalizers ?? [],
    ...(options.creationTimestamp !== undefined ? { creationTimestamp: options.creationTimestamp } : {}),
    ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements,
      resources: { requests: options.requests ?? {} },
      taints: options.taints ?? [],
      startupTaints: options.startupTaints ?? [],
    },
    status: options.status ?? {},
  };
}
