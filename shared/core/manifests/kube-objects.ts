/**
 * The Kubernetes object shapes podlift reads, as YAML files and the Kubernetes API (JSON) give
 * them. These describe what a well-formed object looks like, not what a given input is: every
 * field is optional and anything a user writes by hand must be validated before it is trusted
 * (see pod-manifest.ts, node-manifest.ts). Only the fields podlift uses are listed; unknown fields are ignored.
 */

/** metav1.OwnerReference. */
export interface OwnerReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly uid?: string;
  /** True on the one owner that manages the object (a ReplicaSet for its pods, ...). */
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta. */
export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  /** RFC 3339; set once deletion was requested. */
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
}

/** Resource names to quantities: `"500m"`, `"1Gi"`, or a bare YAML number (`cpu: 2`). */
export type QuantityMap = Readonly<Record<string, string | number>>;

/** core/v1 ResourceRequirements. */
export interface ResourceRequirementsManifest {
  readonly requests?: QuantityMap;
  readonly limits?: QuantityMap;
}

/** core/v1 Container, reduced to what affects scheduling. */
export interface ContainerManifest {
  readonly name?: string;
  readonly image?: string;
  readonly resources?: ResourceRequirementsManifest;
  /** Only on init containers: `Always` makes it a sidecar (restartable init container). */
  readonly restartPolicy?: string;
  readonly ports?: readonly {
    readonly containerPort?: number;
    readonly hostPort?: number;
    readonly protocol?: string;
  }[];
}

/** core/v1 NodeSelectorRequirement as written (operator not yet checked). */
export interface NodeSelectorRequirementManifest {
  readonly key?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

/** core/v1 NodeSelectorTerm. */
export interface NodeSelectorTermManifest {
  readonly matchExpressions?: readonly NodeSelectorRequirementManifest[];
  readonly matchFields?: readonly NodeSelectorRequirementManifest[];
}

/** core/v1 LabelSelector as written. */
export interface LabelSelectorManifest {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly NodeSelectorRequirementManifest[];
}

/** core/v1 PodAffinityTerm. */
export interface PodAffinityTermManifest {
  readonly labelSelector?: LabelSelectorManifest;
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelectorManifest;
  readonly topologyKey?: string;
}

/** core/v1 WeightedPodAffinityTerm. */
export interface WeightedPodAffinityTermManifest {
  readonly weight?: number;
  readonly podAffinityTerm?: PodAffinityTermManifest;
}

/** core/v1 Affinity. */
export interface AffinityManifest {
  readonly nodeAffinity?: {
    readonly requiredDuringSchedulingIgnoredDuringExecution?: {
      readonly nodeSelectorTerms?: readonly NodeSelectorTermManifest[];
    };
    readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly {
      readonly weight?: number;
      readonly preference?: NodeSelectorTermManifest;
    }[];
  };
  readonly podAffinity?: PodAffinityManifest;
  readonly podAntiAffinity?: PodAffinityManifest;
}

/** core/v1 PodAffinity / PodAntiAffinity (same shape). */
export interface PodAffinityManifest {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: readonly PodAffinityTermManifest[];
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly WeightedPodAffinityTermManifest[];
}

/** core/v1 Toleration as written. */
export interface TolerationManifest {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

/** core/v1 Taint as written. */
export interface TaintManifest {
  readonly key?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly timeAdded?: string;
}

/** core/v1 TopologySpreadConstraint. */
export interface TopologySpreadConstraintManifest {
  readonly maxSkew?: number;
  readonly topologyKey?: string;
  readonly whenUnsatisfiable?: string;
  readonly labelSelector?: LabelSelectorManifest;
  readonly minDomains?: number;
  readonly matchLabelKeys?: readonly string[];
  readonly nodeAffinityPolicy?: string;
  readonly nodeTaintsPolicy?: string;
}

/** core/v1 Volume, reduced to the sources that matter for placement (zonal disks). */
export interface VolumeManifest {
  readonly name?: string;
  readonly persistentVolumeClaim?: { readonly claimName?: string; readonly readOnly?: boolean };
  readonly ephemeral?: { readonly volumeClaimTemplate?: unknown };
  readonly emptyDir?: { readonly medium?: string; readonly sizeLimit?: string | number };
  readonly hostPath?: { readonly path?: string; readonly type?: string };
  /** Any other volume source. */
  readonly [source: string]: unknown;
}

/** core/v1 PodSpec, reduced to what affects scheduling. */
export interface PodSpecManifest {
  readonly containers?: readonly ContainerManifest[];
  readonly initContainers?: readonly ContainerManifest[];
  /** Per-pod overhead of the RuntimeClass, added to the effective requests. */
  readonly overhead?: QuantityMap;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly affinity?: AffinityManifest;
  readonly tolerations?: readonly TolerationManifest[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraintManifest[];
  readonly nodeName?: string;
  readonly priority?: number;
  readonly priorityClassName?: string;
  readonly schedulerName?: string;
  readonly runtimeClassName?: string;
  readonly volumes?: readonly VolumeManifest[];
  readonly hostNetwork?: boolean;
}

/** core/v1 PodCondition. */
export interface PodConditionManifest {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** core/v1 PodStatus, reduced. */
export interface PodStatusManifest {
  /** Pending, Running, Succeeded, Failed, Unknown. */
  readonly phase?: string;
  readonly conditions?: readonly PodConditionManifest[];
  readonly nominatedNodeName?: string;
  /** RFC 3339; when the kubelet accepted the pod. */
  readonly startTime?: string;
}

/** core/v1 Pod. */
export interface PodManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: PodSpecManifest;
  readonly status?: PodStatusManifest;
}

/** core/v1 PodTemplateSpec: what workloads stamp their pods from. */
export interface PodTemplateManifest {
  readonly metadata?: ObjectMeta;
  readonly spec?: PodSpecManifest;
}

/** core/v1 NodeCondition. */
export interface NodeConditionManifest {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly lastTransitionTime?: string;
}

/** core/v1 Node. */
export interface NodeManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly providerID?: string;
    readonly taints?: readonly TaintManifest[];
    /** Cordoned. */
    readonly unschedulable?: boolean;
  };
  readonly status?: {
    readonly capacity?: QuantityMap;
    readonly allocatable?: QuantityMap;
    readonly conditions?: readonly NodeConditionManifest[];
  };
}

/** Fields shared by the workload controllers' specs. */
interface WorkloadSpecManifest {
  readonly selector?: LabelSelectorManifest;
  readonly template?: PodTemplateManifest;
}

/** apps/v1 DaemonSet. */
export interface DaemonSetManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: WorkloadSpecManifest;
}

/** apps/v1 Deployment. */
export interface DeploymentManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  /** replicas defaults to 1. */
  readonly spec?: WorkloadSpecManifest & { readonly replicas?: number };
}

/** apps/v1 ReplicaSet. */
export interface ReplicaSetManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  /** replicas defaults to 1. */
  readonly spec?: WorkloadSpecManifest & { readonly replicas?: number };
}

/** apps/v1 StatefulSet. */
export interface StatefulSetManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  /** replicas defaults to 1. */
  readonly spec?: WorkloadSpecManifest & {
    readonly replicas?: number;
    readonly serviceName?: string;
    readonly volumeClaimTemplates?: readonly unknown[];
  };
}

/** batch/v1 Job. */
export interface JobManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  /** parallelism defaults to 1; completions unset means "until one succeeds". */
  readonly spec?: WorkloadSpecManifest & {
    readonly parallelism?: number;
    readonly completions?: number;
  };
}

/** Any of the workload kinds that carry a pod template. */
export type WorkloadManifest =
  | DaemonSetManifest
  | DeploymentManifest
  | ReplicaSetManifest
  | StatefulSetManifest
  | JobManifest;
