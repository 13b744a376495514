import type { EC2NodeClassStatus } from '../core/model/ec2nodeclass-status';
import type { NodeClaim } from '../core/model/nodeclaim';
import type { NodePool } from '../core/model/nodepool';
import type { Pod } from '../core/model/pod';
import { podKey } from '../core/model/pod';
import type {
  ClusterReader,
  ClusterWriter,
  ConditionUpdate,
  DeletePodOptions,
  EC2NodeClassList,
  EvictionOutcome,
  MetadataPatch,
  NewNodeClaim,
  NodeClaimStatusUpdate,
  NodeOwnerReference,
  NodePoolStatusUpdate,
  ParsedList,
  PodRef,
  TaintChange,
  VolumeAttachment,
} from '../core/ports/cluster';
import type { Clock } from '../core/ports/time';
import type { DaemonSet, PodDisruptionBudget, StateNode } from '../core/state/cluster-state';
import { readDaemonSets } from './daemonset-reads';
import { writeEC2NodeClassConditions, writeEC2NodeClassStatus } from './ec2nodeclass-status-writer';
import {
  addNodeClaimFinalizer,
  addNodeFinalizer,
  removeNodeClaimFinalizer,
  removeNodeFinalizer,
} from './finalizers';
import { KubeApi } from './kube-api';
import type { KubeConfigSource } from './kubeconfig-source';
import { patchNodeClaimMetadata, patchNodeMetadata, patchPodMetadata } from './metadata-patches';
import { readNodes } from './node-reads';
import { deleteNode, labelNode, taintNode } from './node-writes';
import {
  createNodeClaim,
  deleteNodeClaim,
  readNodeClaim,
  readNodeClaims,
  updateNodeClaimStatus,
} from './nodeclaims';
import { readEC2NodeClasses, readNodePools } from './nodepool-reads';
import { writeNodePoolStatus } from './nodepool-status-writer';
import { addNodeOwnerReference } from './owner-references';
import type { PendingPodOptions } from './pending-pods';
import { readPodDisruptionBudgets } from './pod-disruption-budgets';
import { readPendingPods, readPodsOnNode } from './pod-reads';
import { deletePod, evictPod } from './pod-writes';
import type { KubernetesVersion } from './server-version';
import { checkServerVersion } from './server-version';
import { readClaimedVolumes, readVolumeAttachments } from './volume-attachments';
import { readVolumeZones, withVolumeZones } from './volume-zones';

/** Options of {@link KubeCluster}. */
export interface KubeClusterOptions extends PendingPodOptions {}

/**
 * The Kubernetes cluster adapter: every read and write podlift's functions make, through the
 * real @kubernetes/client-node, built from a {@link KubeConfigSource} and an injected clock.
 * The Lease and Events have their own classes (ClusterLease, EventRecorder).
 */
export class KubeCluster implements ClusterReader, ClusterWriter {
  /** The API clients, for ClusterLease and EventRecorder. */
  readonly api: KubeApi;
  private supportedVersion: Promise<KubernetesVersion> | undefined;

  constructor(
    source: KubeConfigSource,
    private readonly clock: Clock,
    private readonly options: KubeClusterOptions = {},
  ) {
    this.api = new KubeApi(source);
  }

  /**
   * Checks once per instance (a warm Lambda's module scope) that the cluster runs a Kubernetes
   * podlift supports, so a function can report an old cluster as such, once, rather than as the
   * evictions and lists that would fail on it. A failed check is tried again on the next call.
   * @throws UnsupportedKubernetesVersionError for a cluster older than 1.25.
   */
  checkServerVersion(): Promise<KubernetesVersion> {
    if (!this.supportedVersion) {
      this.supportedVersion = checkServerVersion(this.api).catch((error: unknown) => {
        this.supportedVersion = undefined;
        throw error;
      });
    }
    return this.supportedVersion;
  }

  async pendingPods(): Promise<ParsedList<Pod>> {
    const pending = await readPendingPods(this.api, this.options);
    const zones = await readVolumeZones(this.api, pending.claims);
    const items = pending.items.map((pod) => {
      const allowed = zones.get(podKey(pod));
      return allowed ? withVolumeZones(pod, allowed) : pod;
    });
    return { items, invalid: pending.invalid };
  }

  nodes(): Promise<ParsedList<StateNode>> {
    return readNodes(this.api);
  }

  podsOnNode(nodeName: string): Promise<ParsedList<Pod>> {
    return readPodsOnNode(this.api, nodeName);
  }

  volumeAttachments(): Promise<readonly VolumeAttachment[]> {
    return readVolumeAttachments(this.api);
  }

  claimedVolumes(): Promise<ReadonlyMap<string, string>> {
    return readClaimedVolumes(this.api);
  }

  daemonSets(): Promise<ParsedList<DaemonSet>> {
    return readDaemonSets(this.api);
  }

  podDisruptionBudgets(): Promise<readonly PodDisruptionBudget[]> {
    return readPodDisruptionBudgets(this.api);
  }

  nodePools(): Promise<ParsedList<NodePool>> {
    return readNodePools(this.api);
  }

  nodeClasses(): Promise<EC2NodeClassList> {
    return readEC2NodeClasses(this.api);
  }

  nodeClaims(): Promise<ParsedList<NodeClaim>> {
    return readNodeClaims(this.api);
  }

  nodeClaim(name: string): Promise<NodeClaim> {
    return readNodeClaim(this.api, name);
  }

  createNodeClaim(claim: NewNodeClaim): Promise<NodeClaim> {
    return createNodeClaim(this.api, claim);
  }

  updateNodeClaimStatus(name: string, update: NodeClaimStatusUpdate): Promise<NodeClaim> {
    return updateNodeClaimStatus(this.api, this.clock, name, update);
  }

  addNodeClaimFinalizer(name: string, finalizer: string): Promise<void> {
    return addNodeClaimFinalizer(this.api, name, finalizer);
  }

  removeNodeClaimFinalizer(name: string, finalizer: string): Promise<void> {
    return removeNodeClaimFinalizer(this.api, name, finalizer);
  }

  deleteNodeClaim(name: string): Promise<boolean> {
    return deleteNodeClaim(this.api, name);
  }

  addNodeFinalizer(name: string, finalizer: string): Promise<void> {
    return addNodeFinalizer(this.api, name, finalizer);
  }

  addNodeOwnerReference(name: string, owner: NodeOwnerReference): Promise<void> {
    return addNodeOwnerReference(this.api, name, owner);
  }

  removeNodeFinalizer(name: string, finalizer: string): Promise<void> {
    return removeNodeFinalizer(this.api, name, finalizer);
  }

  taintNode(name: string, change: TaintChange): Promise<void> {
    return taintNode(this.api, name, change);
  }

  labelNode(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    return labelNode(this.api, name, labels);
  }

  deleteNode(name: string): Promise<boolean> {
    return deleteNode(this.api, name);
  }

  evictPod(pod: PodRef): Promise<EvictionOutcome> {
    return evictPod(this.api, pod);
  }

  deletePod(pod: PodRef, options?: DeletePodOptions): Promise<boolean> {
    return deletePod(this.api, pod, options);
  }

  writeNodeClassStatus(name: string, status: EC2NodeClassStatus): Promise<void> {
    return writeEC2NodeClassStatus(this.api, name, status);
  }

  patchNodeClaimMetadata(name: string, patch: MetadataPatch): Promise<void> {
    return patchNodeClaimMetadata(this.api, name, patch);
  }

  patchNodeMetadata(name: string, patch: MetadataPatch): Promise<void> {
    return patchNodeMetadata(this.api, name, patch);
  }

  patchPodMetadata(pod: PodRef, patch: MetadataPatch): Promise<void> {
    return patchPodMetadata(this.api, pod, patch);
  }

  writeNodePoolStatus(name: string, status: NodePoolStatusUpdate): Promise<void> {
    return writeNodePoolStatus(this.api, this.clock, name, status);
  }

  writeNodeClassConditions(name: string, conditions: readonly ConditionUpdate[]): Promise<void> {
    return writeEC2NodeClassConditions(this.api, this.clock, name, conditions);
  }
}
