import type { LabelSelector } from './label-selector';
import type { NodeSelectorRequirement } from './requirements';
import type { Resources } from './resources';
import type { Toleration } from './taints';

/** One ORed term of a required node affinity: its expressions are ANDed. */
export interface NodeSelectorTerm {
  readonly matchExpressions: readonly NodeSelectorRequirement[];
}

export interface PreferredSchedulingTerm {
  readonly weight: number;
  readonly preference: NodeSelectorTerm;
}

export interface TopologySpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  readonly labelSelector?: LabelSelector;
  readonly minDomains?: number;
  /** Label keys whose values (taken from the pod) are ANDed into labelSelector. */
  readonly matchLabelKeys?: readonly string[];
  readonly nodeAffinityPolicy?: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy?: 'Honor' | 'Ignore';
}

export interface PodAffinityTerm {
  readonly labelSelector?: LabelSelector;
  /** Namespaces the selector applies to; empty with no namespaceSelector = the pod's own namespace. */
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  readonly topologyKey: string;
}

export interface WeightedPodAffinityTerm {
  readonly weight: number;
  readonly podAffinityTerm: PodAffinityTerm;
}

/**
 * A pod as the scheduler sees it: everything that affects where it may run, already
 * normalised (requests are the effective requests: max(init containers, sum of containers +
 * sidecars) + overhead, with `pods: 1`).
 */
export interface Pod {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid when known, else `namespace/name`. */
  readonly uid: string;
  /**
   * metadata.resourceVersion when read from the API server: a write conditioned on it is refused
   * (409 Conflict) if the pod changed since it was read.
   */
  readonly resourceVersion?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly requests: Resources;
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node affinity terms (ORed); undefined when the pod has none. */
  readonly requiredNodeAffinity?: readonly NodeSelectorTerm[];
  readonly preferredNodeAffinity: readonly PreferredSchedulingTerm[];
  readonly tolerations: readonly Toleration[];
  readonly topologySpread: readonly TopologySpreadConstraint[];
  readonly podAffinity: readonly PodAffinityTerm[];
  readonly podAntiAffinity: readonly PodAffinityTerm[];
  readonly preferredPodAffinity: readonly WeightedPodAffinityTerm[];
  readonly preferredPodAntiAffinity: readonly WeightedPodAffinityTerm[];
  /** Set when the pod is bound to a node (then it is not pending). */
  readonly nodeName?: string;
  readonly priority: number;
  /** Kind of the controlling owner (`DaemonSet`, `ReplicaSet`, ...), if any. */
  readonly ownerKind?: string;
  /** metadata.annotations (e.g. `karpenter.sh/do-not-disrupt`, `kubernetes.io/config.mirror`). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** spec.priorityClassName (`system-cluster-critical` / `system-node-critical` drain last). */
  readonly priorityClassName?: string;
  /** Deletion was requested (metadata.deletionTimestamp is set): the pod is going away. */
  readonly deleting?: boolean;
  /**
   * RFC 3339 metadata.deletionTimestamp: when the pod was deleted plus its grace period, the
   * moment the kubelet should have stopped it (how long a Terminating pod is overdue).
   */
  readonly deletionTimestamp?: string;
  /** RFC 3339 status.startTime: when the kubelet accepted the pod (do-not-disrupt durations count from it). */
  readonly startTime?: string;
  /**
   * Names of the PersistentVolumeClaims it mounts (generic ephemeral volumes as `<pod>-<volume>`),
   * for the volumes a drain waits to be detached.
   */
  readonly volumeClaims?: readonly string[];
  /** spec.terminationGracePeriodSeconds, when set. */
  readonly terminationGracePeriodSeconds?: number;
}

/** `namespace/name`, the key pods are reported by. */
export function podKey(pod: Pick<Pod, 'namespace' | 'name'>): string {
  return `${pod.namespace}/${pod.name}`;
}
