import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';
import type { ValidationError } from '../model/errors';
import type { Condition, NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import type { Resources } from '../model/resources';
import type { Taint } from '../model/taints';
import type { DaemonSet, PodDisruptionBudget, StateNode } from '../state/cluster-state';

/**
 * The cluster ports: what podlift's functions read from and change in the Kubernetes API, in
 * core types. shared/kube implements them (KubeCluster); handler tests and the simulator use
 * in-memory fakes. The Lease (cluster-lease.ts), Events (cluster-events.ts) and the
 * credentials to reach the cluster (cluster-access.ts) have ports of their own beside these.
 */

/** A condition to set: its type and status, and why. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: Condition['status'];
  /** CamelCase; defaults to the type for True (as Karpenter's SetTrue), `Unknown` otherwise. */
  readonly reason?: string;
  readonly message?: string;
}

/** What to change in a node's taints. */
export interface TaintChange {
  /** Taints to put on (replacing one with the same key and effect, as `kubectl taint` does). */
  readonly add?: readonly Taint[];
  /** Taints to take off, matched by key and effect. */
  readonly remove?: readonly Pick<Taint, 'key' | 'effect'>[];
}

/** What a NodePool's status says (kubernetes-sigs/karpenter pkg/controllers/nodepool/{counter,readiness,validation}). */
export interface NodePoolStatusUpdate {
  /** Capacity of its NodeClaims not being deleted, and their count as `nodes`. */
  readonly resources: Resources;
  readonly conditions: readonly ConditionUpdate[];
}

/** Labels and annotations to set (a string) or remove (null); other keys are kept. */
export interface MetadataPatch {
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly annotations?: Readonly<Record<string, string | null>>;
  /**
   * The object's resourceVersion as read: the patch is then refused (409 Conflict) if the object
   * changed since, instead of writing over a change made in between.
   */
  readonly resourceVersion?: string;
}

/** An owner reference podlift puts on a Node: its NodeClaim (metav1.OwnerReference). */
export interface NodeOwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly blockOwnerDeletion: boolean;
}

/** What a new NodeClaim carries; the API server names it `<nodePool>-<random>`. */
export interface NewNodeClaim {
  /** The NodePool it belongs to: its name prefix and `karpenter.sh/nodepool` label. */
  readonly nodePool: string;
  /** metadata.uid of the NodePool; when given it becomes the NodeClaim's owner (as in Karpenter). */
  readonly nodePoolUid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly spec: NodeClaim['spec'];
}

/**
 * Changes to a NodeClaim's status; absent fields are left as they are. Conditions follow metav1
 * semantics (see {@link setConditions}): lastTransitionTime moves only when a status changes.
 */
export interface NodeClaimStatusUpdate {
  readonly providerID?: string;
  readonly imageID?: string;
  readonly nodeName?: string;
  readonly capacity?: Resources;
  readonly allocatable?: Resources;
  readonly lastPodEventTime?: string;
  readonly conditions?: readonly ConditionUpdate[];
  /**
   * Condition types to take off the status altogether, as Karpenter clears Drifted
   * (awslabs/operatorpkg status `ConditionSet.Clear`), before `conditions` are set.
   */
  readonly removeConditions?: readonly string[];
}

/**
 * The result of reading a list of objects that each must pass a core parser: the ones that
 * parsed, and one ValidationError per object that did not (naming it), so that one bad object
 * never hides the others.
 */
export interface ParsedList<T> {
  readonly items: readonly T[];
  readonly invalid: readonly ValidationError[];
}

/** EC2NodeClasses, with the status conditions each currently reports (for lastTransitionTime). */
export interface EC2NodeClassList extends ParsedList<EC2NodeClass> {
  /** Name → `.status.conditions` as stored. */
  readonly conditions: ReadonlyMap<string, readonly Condition[]>;
}

/** What an eviction did: the pod is going, or it was already gone. */
export type EvictionOutcome = 'evicted' | 'gone';

/** Which pod to evict or delete. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  /**
   * metadata.uid of the pod meant: a different pod that reuses the name (a StatefulSet
   * replica) is then left alone, and counts as the meant pod being gone.
   */
  readonly uid?: string;
}

/**
 * A storage.k8s.io/v1 VolumeAttachment: a volume the attach-detach controller attached to a
 * node, which termination waits to see deleted before it terminates the instance.
 */
export interface VolumeAttachment {
  readonly name: string;
  /** spec.nodeName. */
  readonly nodeName: string;
  /** spec.source.persistentVolumeName; absent for inline volumes. */
  readonly persistentVolumeName?: string;
}

/** How to delete a pod. */
export interface DeletePodOptions {
  /** The grace period to give it instead of its spec.terminationGracePeriodSeconds (≥ 1). */
  readonly gracePeriodSeconds?: number;
}

/**
 * The cluster as podlift's functions see it: what they read and what they change. KubeCluster
 * implements both against the Kubernetes API; handler tests use in-memory fakes.
 */

/** Reads, each mapped to core types; objects that do not parse come back in `invalid`. */
export interface ClusterReader {
  /** Pods waiting for capacity, restricted to the zones of their bound volumes. */
  pendingPods(): Promise<ParsedList<Pod>>;
  /** Nodes with the pods bound to them. */
  nodes(): Promise<ParsedList<StateNode>>;
  /** Pods bound to `nodeName` that still hold capacity (not Succeeded or Failed). */
  podsOnNode(nodeName: string): Promise<ParsedList<Pod>>;
  /** DaemonSets as the pod their template runs on every node. */
  daemonSets(): Promise<ParsedList<DaemonSet>>;
  /** PodDisruptionBudgets with the disruptions their status allows now. */
  podDisruptionBudgets(): Promise<readonly PodDisruptionBudget[]>;
  /** NodePools (karpenter.sh/v1), validated like the CRD. */
  nodePools(): Promise<ParsedList<NodePool>>;
  /** EC2NodeClasses (karpenter.k8s.aws/v1) and the conditions each reports. */
  nodeClasses(): Promise<EC2NodeClassList>;
  /** Every NodeClaim. */
  nodeClaims(): Promise<ParsedList<NodeClaim>>;
  /** Every VolumeAttachment (storage.k8s.io/v1). */
  volumeAttachments(): Promise<readonly VolumeAttachment[]>;
  /**
   * The PersistentVolume each bound PersistentVolumeClaim uses: `namespace/claim` → volume name
   * (spec.volumeName); claims not bound yet are absent.
   */
  claimedVolumes(): Promise<ReadonlyMap<string, string>>;
  /** NodeClaim `name`. @throws NotFoundError when it does not exist. */
  nodeClaim(name: string): Promise<NodeClaim>;
  /**
   * The cluster's Kubernetes version, checked once per adapter instance (a warm Lambda).
   * @throws PodliftError naming the version when the cluster is older than podlift supports.
   */
  checkServerVersion(): Promise<{
    readonly major: number;
    readonly minor: number;
    readonly gitVersion: string;
  }>;
}

/** Writes; deletes and evictions of objects already gone succeed. */
export interface ClusterWriter {
  /** Creates a NodeClaim named `<nodePool>-xxxxx` with the termination finalizer. */
  createNodeClaim(claim: NewNodeClaim): Promise<NodeClaim>;
  /** Applies `update` to the status subresource (conflicts re-read and re-applied). */
  updateNodeClaimStatus(name: string, update: NodeClaimStatusUpdate): Promise<NodeClaim>;
  /** Adds a finalizer unless present. */
  addNodeClaimFinalizer(name: string, finalizer: string): Promise<void>;
  /** Removes a finalizer; nothing to do when absent or the NodeClaim is gone. */
  removeNodeClaimFinalizer(name: string, finalizer: string): Promise<void>;
  /** @returns false when it was already gone. */
  deleteNodeClaim(name: string): Promise<boolean>;
  /** Adds a finalizer unless present. */
  addNodeFinalizer(name: string, finalizer: string): Promise<void>;
  /** Adds an owner reference unless one with its apiVersion, kind and uid is there. */
  addNodeOwnerReference(name: string, owner: NodeOwnerReference): Promise<void>;
  /** Removes a finalizer; nothing to do when absent or the Node is gone. */
  removeNodeFinalizer(name: string, finalizer: string): Promise<void>;
  /** Adds and removes taints, keeping everyone else's. */
  taintNode(name: string, change: TaintChange): Promise<void>;
  /** Sets (string) or removes (null) labels. */
  labelNode(name: string, labels: Readonly<Record<string, string | null>>): Promise<void>;
  /** @returns false when it was already gone. */
  deleteNode(name: string): Promise<boolean>;
  /** @throws EvictionBlockedError when a PodDisruptionBudget does not allow it now. */
  evictPod(pod: PodRef): Promise<EvictionOutcome>;
  /** @returns false when it was already gone. */
  deletePod(pod: PodRef, options?: DeletePodOptions): Promise<boolean>;
  /** Writes an EC2NodeClass's resolved status. */
  writeNodeClassStatus(name: string, status: EC2NodeClassStatus): Promise<void>;
  /** Sets and removes a NodeClaim's labels and annotations. @throws NotFoundError when gone. */
  patchNodeClaimMetadata(name: string, patch: MetadataPatch): Promise<void>;
  /** Sets and removes a Node's labels and annotations. @throws NotFoundError when gone. */
  patchNodeMetadata(name: string, patch: MetadataPatch): Promise<void>;
  /** Sets and removes a pod's labels and annotations. @throws NotFoundError when gone. */
  patchPodMetadata(pod: PodRef, patch: MetadataPatch): Promise<void>;
  /** Writes a NodePool's resources in use and conditions. @throws NotFoundError when gone. */
  writeNodePoolStatus(name: string, status: NodePoolStatusUpdate): Promise<void>;
  /**
   * Sets conditions of an EC2NodeClass's status, keeping the others and each one's
   * lastTransitionTime while its status stays. @throws NotFoundError when gone.
   */
  writeNodeClassConditions(name: string, conditions: readonly ConditionUpdate[]): Promise<void>;
}
