import type {
  AffinityManifest,
  ContainerManifest,
  NodeManifest,
  PodManifest,
  TaintManifest,
  TolerationManifest,
  TopologySpreadConstraintManifest,
} from '../shared/core/manifests/kube-objects';
import type {
  AmiFamily,
  AmiSelectorTerm,
  BlockDeviceMapping,
  EC2NodeClass,
  KubeletConfiguration,
  SelectorTerm,
} from '../shared/core/model/ec2nodeclass';
import type { DisruptionBudget, NodeClassRef, NodePool } from '../shared/core/model/nodepool';
import type {
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../shared/core/model/pod';
import { resourceValue } from '../shared/core/model/quantity';
import type { NodeSelectorRequirement } from '../shared/core/model/requirements';
import type { Resources } from '../shared/core/model/resources';
import type { Taint, Toleration } from '../shared/core/model/taints';
import type { StateNode } from '../shared/core/state/cluster-state';

/**
 * Test builders: small objects with Karpenter's defaults, overridden field by field, so a test
 * only spells out what it is about. Quantities are written as Kubernetes strings ('500m',
 * '1Gi') and converted to canonical units.
 */

/** Resource quantities as written in YAML. */
export type QuantityInput = Readonly<Record<string, string | number>>;

/** Converts quantities ('500m', '1Gi', 2) to canonical units via resourceValue. */
export function resources(quantities: QuantityInput): Resources {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(quantities)) out[name] = resourceValue(name, q);
  return out;
}

let podCount = 0;

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
  podCount += 1;
  const name = options.name ?? `pod-${podCount}`;
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

/** Options of {@link nodePool}; every field is optional. */
export interface NodePoolOptions {
  /** Default `default`. */
  readonly name?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** spec.template.metadata.labels. */
  readonly templateLabels?: Readonly<Record<string, string>>;
  readonly templateAnnotations?: Readonly<Record<string, string>>;
  /** Name of the EC2NodeClass referenced; default `default`. */
  readonly nodeClass?: string;
  readonly nodeClassRef?: NodeClassRef;
  readonly requirements?: readonly NodeSelectorRequirement[];
  readonly taints?: readonly Taint[];
  readonly startupTaints?: readonly Taint[];
  readonly expireAfter?: string;
  readonly terminationGracePeriod?: string;
  readonly consolidationPolicy?: NodePool['disruption']['consolidationPolicy'];
  readonly consolidateAfter?: string;
  readonly budgets?: readonly DisruptionBudget[];
  /** spec.limits as quantities ({ cpu: '100', memory: '400Gi', nodes: 10 }). */
  readonly limits?: QuantityInput;
  readonly weight?: number;
  readonly replicas?: number;
}

/**
 * A NodePool with Karpenter's defaults: nodeClassRef to EC2NodeClass `default`, no
 * requirements or taints, expireAfter 720h, WhenEmptyOrUnderutilized after 0s, one budget of
 * 10%, no limits, weight 0.
 */
export function nodePool(options: NodePoolOptions = {}): NodePool {
  return {
    name: options.name ?? 'default',
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    labels: options.labels ?? {},
    annotations: options.annotations ?? {},
    template: {
      labels: options.templateLabels ?? {},
      annotations: options.templateAnnotations ?? {},
      nodeClassRef: options.nodeClassRef ?? {
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
        name: options.nodeClass ?? 'default',
      },
      requirements: options.requirements ?? [],
      taints: options.taints ?? [],
      startupTaints: options.startupTaints ?? [],
      expireAfter: options.expireAfter ?? '720h',
      ...(options.terminationGracePeriod !== undefined
        ? { terminationGracePeriod: options.terminationGracePeriod }
        : {}),
    },
    disruption: {
      consolidationPolicy: options.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
      consolidateAfter: options.consolidateAfter ?? '0s',
      budgets: options.budgets ?? [{ nodes: '10%' }],
    },
    limits: resources(options.limits ?? {}),
    weight: options.weight ?? 0,
    ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
  };
}

/** Options of {@link nodeClass}; every field is optional. */
export interface NodeClassOptions {
  /** Default `default`. */
  readonly name?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly kubelet?: KubeletConfiguration;
  readonly subnetSelectorTerms?: readonly SelectorTerm[];
  readonly securityGroupSelectorTerms?: readonly SelectorTerm[];
  readonly capacityReservationSelectorTerms?: readonly SelectorTerm[];
  readonly amiSelectorTerms?: readonly AmiSelectorTerm[];
  readonly amiFamily?: AmiFamily;
  readonly associatePublicIPAddress?: boolean;
  /** Default `KarpenterNodeRole` unless instanceProfile is given (exactly one is set). */
  readonly role?: string;
  readonly instanceProfile?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly metadataOptions?: Partial<EC2NodeClass['metadataOptions']>;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[];
  readonly instanceStorePolicy?: 'RAID0';
  readonly userData?: string;
  readonly detailedMonitoring?: boolean;
  readonly context?: string;
  /** Root volume size as a quantity; default 20Gi. */
  readonly rootVolume?: string | number;
  readonly status?: Readonly<Record<string, unknown>>;
}

/**
 * An EC2NodeClass with Karpenter's defaults: AL2023, IMDS endpoint enabled, IPv6 endpoint
 * disabled, hop limit 1, IMDSv2 required, 20Gi root volume, no detailed monitoring, no tags
 * and no selector terms.
 */
export function nodeClass(options: NodeClassOptions = {}): EC2NodeClass {
  const identity =
    options.instanceProfile !== undefined
      ? { instanceProfile: options.instanceProfile }
      : { role: options.role ?? 'KarpenterNodeRole' };
  return {
    name: options.name ?? 'default',
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    labels: options.labels ?? {},
    annotations: options.annotations ?? {},
    ...(options.kubelet !== undefined ? { kubelet: options.kubelet } : {}),
    subnetSelectorTerms: options.subnetSelectorTerms ?? [],
    securityGroupSelectorTerms: options.securityGroupSelectorTerms ?? [],
    capacityReservationSelectorTerms: options.capacityReservationSelectorTerms ?? [],
    amiSelectorTerms: options.amiSelectorTerms ?? [],
    amiFamily: options.amiFamily ?? 'AL2023',
    ...(options.associatePublicIPAddress !== undefined
      ? { associatePublicIPAddress: options.associatePublicIPAddress }
      : {}),
    ...identity,
    tags: options.tags ?? {},
    metadataOptions: {
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
      ...options.metadataOptions,
    },
    blockDeviceMappings: options.blockDeviceMappings ?? [],
    ...(options.instanceStorePolicy !== undefined
      ? { instanceStorePolicy: options.instanceStorePolicy }
      : {}),
    ...(options.userData !== undefined ? { userData: options.userData } : {}),
    detailedMonitoring: options.detailedMonitoring ?? false,
    ...(options.context !== undefined ? { context: options.context } : {}),
    rootVolumeBytes: resourceValue('ephemeral-storage', options.rootVolume ?? '20Gi'),
    ...(options.status !== undefined ? { status: options.status } : {}),
  };
}

let nodeCount = 0;

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
}

/**
 * Existing capacity for the scheduler: a registered node (kind `node`) with 4 cpu, 16Gi and 110
 * pods allocatable, no taints and no pods. When `nodePool` is set the node carries the
 * `karpenter.sh/nodepool` label too.
 */
export function stateNode(options: StateNodeOptions = {}): StateNode {
  nodeCount += 1;
  const labels = {
    ...(options.nodePool !== undefined ? { 'karpenter.sh/nodepool': options.nodePool } : {}),
    ...options.labels,
  };
  return {
    kind: options.kind ?? 'node',
    name: options.name ?? `node-${nodeCount}`,
    labels,
    taints: options.taints ?? [],
    allocatable: resources(options.allocatable ?? { cpu: '4', memory: '16Gi', pods: 110 }),
    pods: options.pods ?? [],
    ...(options.nodePool !== undefined ? { nodePool: options.nodePool } : {}),
    ...(options.unschedulable !== undefined ? { unschedulable: options.unschedulable } : {}),
  };
}

/** Options of {@link containerManifest}. */
export interface ContainerManifestOptions {
  /** Default `app`. */
  readonly name?: string;
  readonly requests?: QuantityInput;
  readonly limits?: QuantityInput;
  /** `Always` on an init container makes it a sidecar. */
  readonly restartPolicy?: string;
}

/** A core/v1 Container manifest with the given resources (none by default). */
export function containerManifest(options: ContainerManifestOptions = {}): ContainerManifest {
  const resources = {
    ...(options.requests !== undefined ? { requests: options.requests } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  };
  return {
    name: options.name ?? 'app',
    image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.9',
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    ...(options.restartPolicy !== undefined ? { restartPolicy: options.restartPolicy } : {}),
  };
}

/** Options of {@link podManifest}. */
export interface PodManifestOptions {
  /** Default `pod-N`. */
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Requests of the single default container; ignored when `containers` is given. */
  readonly requests?: QuantityInput;
  readonly containers?: readonly ContainerManifest[];
  readonly initContainers?: readonly ContainerManifest[];
  readonly overhead?: QuantityInput;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly affinity?: AffinityManifest;
  readonly tolerations?: readonly TolerationManifest[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraintManifest[];
  readonly nodeName?: string;
  readonly priority?: number;
  /** Kind of the controlling owner reference, e.g. `ReplicaSet`. */
  readonly ownerKind?: string;
  /** Default `Pending`. */
  readonly phase?: string;
}

/** A core/v1 Pod manifest as the API would return it: one `app` container, Pending. */
export function podManifest(options: PodManifestOptions = {}): PodManifest {
  podCount += 1;
  const name = options.name ?? `pod-${podCount}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(options.ownerKind !== undefined
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: options.ownerKind, name: `${name}-owner`, controller: true },
            ],
          }
        : {}),
    },
    spec: {
      containers: options.containers ?? [containerManifest({ requests: options.requests })],
      ...(options.initContainers !== undefined ? { initContainers: options.initContainers } : {}),
      ...(options.overhead !== undefined ? { overhead: options.overhead } : {}),
      ...(options.nodeSelector !== undefined ? { nodeSelector: options.nodeSelector } : {}),
      ...(options.affinity !== undefined ? { affinity: options.affinity } : {}),
      ...(options.tolerations !== undefined ? { tolerations: options.tolerations } : {}),
      ...(options.topologySpreadConstraints !== undefined
        ? { topologySpreadConstraints: options.topologySpreadConstraints }
        : {}),
      ...(options.nodeName !== undefined ? { nodeName: options.nodeName } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
    },
    status: { phase: options.phase ?? 'Pending' },
  };
}

/** Options of {@link nodeManifest}. */
export interface NodeManifestOptions {
  /** Default `node-N`. */
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly TaintManifest[];
  readonly unschedulable?: boolean;
  /** Default 4 cpu, 16Gi, 110 pods. */
  readonly allocatable?: QuantityInput;
  /** Default: the allocatable. */
  readonly capacity?: QuantityInput;
  readonly deletionTimestamp?: string;
}

/** A core/v1 Node manifest as the API would return it. */
export function nodeManifest(options: NodeManifestOptions = {}): NodeManifest {
  nodeCount += 1;
  const allocatable = options.allocatable ?? { cpu: '4', memory: '16Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: options.name ?? `node-${nodeCount}`,
      labels: options.labels ?? {},
      ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
    },
    spec: {
      ...(options.taints !== undefined ? { taints: options.taints } : {}),
      ...(options.unschedulable !== undefined ? { unschedulable: options.unschedulable } : {}),
    },
    status: { allocatable, capacity: options.capacity ?? allocatable },
  };
}
