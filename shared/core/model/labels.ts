/** Well-known node labels (Kubernetes, Karpenter, Karpenter's AWS provider). */
export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_WINDOWS_BUILD = 'node.kubernetes.io/windows-build';
export const LABEL_INSTANCE_CATEGORY = 'karpenter.k8s.aws/instance-category';
export const LABEL_INSTANCE_FAMILY = 'karpenter.k8s.aws/instance-family';
export const LABEL_INSTANCE_GENERATION = 'karpenter.k8s.aws/instance-generation';
export const LABEL_INSTANCE_SIZE = 'karpenter.k8s.aws/instance-size';
export const LABEL_INSTANCE_CPU = 'karpenter.k8s.aws/instance-cpu';
export const LABEL_INSTANCE_CPU_MANUFACTURER = 'karpenter.k8s.aws/instance-cpu-manufacturer';
export const LABEL_INSTANCE_MEMORY = 'karpenter.k8s.aws/instance-memory';
export const LABEL_INSTANCE_GPU_NAME = 'karpenter.k8s.aws/instance-gpu-name';
export const LABEL_INSTANCE_GPU_MANUFACTURER = 'karpenter.k8s.aws/instance-gpu-manufacturer';
export const LABEL_INSTANCE_GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';
export const LABEL_INSTANCE_GPU_MEMORY = 'karpenter.k8s.aws/instance-gpu-memory';
export const LABEL_INSTANCE_LOCAL_NVME = 'karpenter.k8s.aws/instance-local-nvme';
export const LABEL_INSTANCE_HYPERVISOR = 'karpenter.k8s.aws/instance-hypervisor';
export const LABEL_INSTANCE_NETWORK_BANDWIDTH = 'karpenter.k8s.aws/instance-network-bandwidth';
export const LABEL_INSTANCE_EBS_BANDWIDTH = 'karpenter.k8s.aws/instance-ebs-bandwidth';
export const LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT =
  'karpenter.k8s.aws/instance-encryption-in-transit-supported';
export const LABEL_INSTANCE_CAPABILITY_FLEX = 'karpenter.k8s.aws/instance-capability-flex';
/** Non-GPU accelerators (Inferentia, Trainium, Qualcomm AI100). */
export const LABEL_INSTANCE_ACCELERATOR_NAME = 'karpenter.k8s.aws/instance-accelerator-name';
export const LABEL_INSTANCE_ACCELERATOR_MANUFACTURER = 'karpenter.k8s.aws/instance-accelerator-manufacturer';
export const LABEL_INSTANCE_ACCELERATOR_COUNT = 'karpenter.k8s.aws/instance-accelerator-count';
/**
 * EC2 tenancy, `default` or `dedicated`: every instance type offers both, and a NodeClaim that
 * excludes `default` launches on dedicated hardware (aws/karpenter-provider-aws labels.go
 * LabelInstanceTenancy, instance.go getTenancyType).
 */
export const LABEL_INSTANCE_TENANCY = 'karpenter.k8s.aws/instance-tenancy';
/** The id of the placement group a node launched into (aws/karpenter-provider-aws labels.go LabelPlacementGroupID). */
export const LABEL_PLACEMENT_GROUP_ID = 'karpenter.k8s.aws/placement-group-id';
/** The partition of a partition placement group a node launched into (labels.go LabelPlacementGroupPartition). */
export const LABEL_PLACEMENT_GROUP_PARTITION = 'karpenter.k8s.aws/placement-group-partition';
/** The capacity reservation a `reserved` node runs in (aws/karpenter-provider-aws labels.go LabelCapacityReservationID). */
export const LABEL_CAPACITY_RESERVATION_ID = 'karpenter.k8s.aws/capacity-reservation-id';
/** `default` (On-Demand Capacity Reservation) or `capacity-block` (labels.go LabelCapacityReservationType). */
export const LABEL_CAPACITY_RESERVATION_TYPE = 'karpenter.k8s.aws/capacity-reservation-type';
/** `true` when EC2 may interrupt the reservation (labels.go LabelCapacityReservationInterruptible). */
export const LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE =
  'karpenter.k8s.aws/capacity-reservation-interruptible';
/**
 * The labels only a `reserved` node carries (Karpenter's cloudprovider.ReservedCapacityLabels):
 * an instance type's requirements list its reservations, but a node of it launched on-demand or
 * spot must not get them (aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go
 * `instanceToNodeClaim`).
 */
export const RESERVED_CAPACITY_LABELS: readonly string[] = [
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
];

/**
 * Labels a pod may require even though a NodePool does not mention them: every instance type
 * defines them, so they are checked against instance types instead (Karpenter's
 * WellKnownLabels).
 */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  LABEL_NODEPOOL,
  LABEL_CAPACITY_TYPE,
  LABEL_NODECLASS,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
  LABEL_REGION,
  LABEL_ARCH,
  LABEL_OS,
  LABEL_WINDOWS_BUILD,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT,
  LABEL_INSTANCE_CAPABILITY_FLEX,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_TENANCY,
  // Karpenter's AWS provider registers the reservation labels as well known (labels.go init).
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
]);

/**
 * Set to `"true"` on nodes whose taints the provider's user data registers (every AMI family
 * but Custom): node registration then leaves the node's taints alone instead of copying the
 * NodeClaim's onto it (karpenter.sh/do-not-sync-taints, Karpenter's NodeDoNotSyncTaintsLabelKey).
 */
export const LABEL_DO_NOT_SYNC_TAINTS = 'karpenter.sh/do-not-sync-taints';
/** Taint every new node registers with until podlift has initialised it. */
export const UNREGISTERED_TAINT = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' } as const;
/** Taint put on nodes being disrupted. */
export const DISRUPTED_TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;

/**
 * Put on a Node with the disrupted taint, value `karpenter`: load balancer controllers take it out
 * of their target groups while it drains (kubernetes-sigs/karpenter terminator.go `Taint`,
 * corev1.LabelNodeExcludeBalancers).
 */
export const LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS =
  'node.kubernetes.io/exclude-from-external-load-balancers';

/** Set on a Node once it registered with its NodeClaim (Karpenter's NodeRegisteredLabelKey). */
export const LABEL_REGISTERED = 'karpenter.sh/registered';
/** Set on a Node once it is initialized: Ready, startup taints gone, resources reported. */
export const LABEL_INITIALIZED = 'karpenter.sh/initialized';

/**
 * Annotations of the control loops' protocol: what one invocation records on the objects for
 * the next (the cluster is the database). Karpenter's keys where Karpenter has one, so a cluster
 * moving from Karpenter keeps its meaning; `podlift.dev/…` for what only podlift records.
 */
export const ANNOTATIONS = {
  /** On a pod or Node: never disrupt it voluntarily. */
  doNotDisrupt: 'karpenter.sh/do-not-disrupt',
  /** On a NodeClaim: the hash of its NodePool's template when it was created (drift). */
  nodePoolHash: 'karpenter.sh/nodepool-hash',
  nodePoolHashVersion: 'karpenter.sh/nodepool-hash-version',
  /** On a NodeClaim: the hash of its EC2NodeClass when it was created (drift). */
  nodeClassHash: 'karpenter.k8s.aws/ec2nodeclass-hash',
  nodeClassHashVersion: 'karpenter.k8s.aws/ec2nodeclass-hash-version',
  /** On a NodeClaim: when draining stops waiting and forces (deletion + terminationGracePeriod). */
  terminationTimestamp: 'karpenter.sh/nodeclaim-termination-timestamp',
  /** On a NodeClaim: the instance profile it launched with (profile garbage collection). */
  instanceProfile: 'karpenter.k8s.aws/instance-profile-name',
  /** On a NodeClaim: USD per hour of the offering it launched as. */
  hourlyPrice: 'podlift.dev/hourly-price',
  /** On each candidate NodeClaim of a disruption command: the command (JSON). */
  disruptionCommand: 'podlift.dev/disruption-command',
  /** On a replacement NodeClaim: the id of the disruption command it replaces capacity for. */
  replaces: 'podlift.dev/replaces',
  /**
   * On a replacement NodeClaim of a phased global-consolidation step: the NodeClaims (names,
   * comma-separated) whose pods its room is for, which move onto it once the budget allows
   * (disruption/global-consolidation.ts `phasedStep`, disruption/candidates.ts).
   */
  makesRoomFor: 'podlift.dev/makes-room-for',
  /**
   * On a NodeClaim: a fingerprint of its node's pods when the disruption loop last looked, so the
   * next run sees a pod event (disruption/consolidatable.ts) and stamps `status.lastPodEventTime`.
   */
  podEvents: 'podlift.dev/pod-events',
  /** On a NodeClaim whose instance EC2 is interrupting: what kind, and when (JSON). */
  interruption: 'podlift.dev/interruption',
  /**
   * On the one NodeClaim single-node consolidation simulates first next run: where the last run
   * ran out of time (disruption/single-node-walk.ts). Lost or stale, the walk starts at the top.
   */
  consolidationResume: 'podlift.dev/consolidation-resume',
  /**
   * On a NodePool: the k of its global consolidation threshold, an integer from 1 to 10 (a step
   * must save at least 1/k of the pool's cost share it disrupts; Balanced's k is 2).
   */
  globalConsolidationK: 'podlift.dev/global-consolidation-k',
  /**
   * On a NodePool: how long it must have been settled — no NodeClaim of it created, no pod come
   * or gone on its nodes — before its global-consolidation k applies; until then no more than
   * Balanced's 2. A duration in hours, minutes and seconds ("3m"); absent, 3 minutes.
   */
  globalConsolidationSettleAfter: 'podlift.dev/global-consolidation-settle-after',
  /**
   * On a NodePool: how far above a NodeClaim's cheapest option (of its capacity type) its other
   * instance-type options may be priced, a percentage ("25%"); absent, every option is kept, as
   * in Karpenter (provisioning/price-band.ts).
   */
  launchPriceBand: 'podlift.dev/launch-price-band',
  /**
   * On a pod: the `controller.kubernetes.io/pod-deletion-cost` podlift wrote to steer scale-downs
   * (disruption/deletion-cost.ts); a cost that no longer equals it is the user's.
   */
  managedDeletionCost: 'podlift.dev/managed-deletion-cost',
} as const;
