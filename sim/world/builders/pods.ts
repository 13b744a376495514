import type {
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../../../shared/core/model/pod';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { Toleration } from '../../../shared/core/model/taints';
import { nextName } from './names';
import { type QuantityInput, resources } from './quantities';

/** Options of {@link pod}; every field is optional. */
export interface PodOptions {
  /** Default `pod-N`, N counting up from 1 per test file. */
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Shorthand for requests.cpu. */
  readonly cpu?: string | number;
  /** Shorthand for requests.memory. */
  readonly memory?: string | number;
  /** Effective requests as quantities; `pods: 1` is added unless given. */
  readonly requests?: QuantityInput;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /** ORed terms; pass a flat requirement list via `nodeRequirements` for the common single-term case. */
  readonly requiredNodeAffinity?: readonly NodeSelectorTerm[];
  /** One required node-affinity term with these expressions. */
  readonly nodeRequirements?: readonly NodeSelectorRequirement[];
  readonly preferredNodeAffinity?: readonly PreferredSchedulingTerm[];
  readonly tolerations?: readonly Toleration[];
  readonly topologySpread?: readonly TopologySpreadConstraint[];
  readonly podAffinity?: readonly PodAffinityTerm[];
  readonly podAntiAffinity?: readonly PodAffinityTerm[];
  readonly preferredPodAffinity?: readonly WeightedPodAffinityTerm[];
  readonly preferredPodAntiAffinity?: readonly WeightedPodAffinityTerm[];
  readonly nodeName?: string;
  readonly priority?: number;
  readonly ownerKind?: string;
}

/** A core Pod with defaults: `pod-N` in `default`, no requests but `pods: 1`, priority 0. */
export function pod(options: PodOptions = {}): Pod {
  const name = options.name ?? nextName('pod');
  const namespace = options.namespace ?? 'default';
  const requested: Record<string, string | number> = { ...options.requests };
  if (options.cpu !== undefined) requested.cpu = options.cpu;
  if (options.memory !== undefined) requested.memory = options.memory;
  const requiredNodeAffinity =
    options.requiredNodeAffinity ??
    (options.nodeRequirements ? [{ matchExpressions: options.nodeRequirements }] : undefined);
  return {
    namespace,
    name,
    uid: options.uid ?? `${namespace}/${name}`,
    labels: options.labels ?? {},
    requests: { pods: 1, ...resources(requested) },
    nodeSelector: options.nodeSelector ?? {},
    ...(requiredNodeAffinity ? { requiredNodeAffinity } : {}),
    preferredNodeAffinity: options.preferredNodeAffinity ?? [],
    tolerations: options.tolerations ?? [],
    topologySpread: options.topologySpread ?? [],
    podAffinity: options.podAffinity ?? [],
    podAntiAffinity: options.podAntiAffinity ?? [],
    preferredPodAffinity: options.preferredPodAffinity ?? [],
    preferredPodAntiAffinity: options.preferredPodAntiAffinity ?? [],
    ...(options.nodeName !== undefined ? { nodeName: options.nodeName } : {}),
    priority: options.priority ?? 0,
    ...(options.ownerKind !== undefined ? { ownerKind: options.ownerKind } : {}),
  };
}

/** `count` pods built from the same options, named `<prefix>-0..` when a name is given. */
export function pods(count: number, options: PodOptions = {}): Pod[] {
  return Array.from({ length: count }, (_, i) =>
    pod({ ...options, name: options.name !== undefined ? `${options.name}-${i}` : undefined }),
  );
}
