import type { EC2NodeClassStatus } from '../core/ec2nodeclass-status';
import type { NodeClaim } from '../core/nodeclaim';
import type { NodePool } from '../core/nodepool';
import type { Pod } from '../core/pod';
import type { DaemonSet, StateNode } from '../core/scheduling/types';
import type { TaintChange } from './node-writes';
import type { NewNodeClaim } from './nodeclaim-manifest';
import type { NodeClaimStatusUpdate } from './nodeclaims';
import type { EC2NodeClassList } from './nodepool-reads';
import type { ParsedList } from './parsed-list';
import type { PodDisruptionBudget } from './pod-disruption-budgets';
import type { EvictionOutcome, PodRef } from './pod-writes';

/**
 * The cluster as podlift's functions see it: what they read and what they change. KubeCluster
 * implements both against the Kubernetes API; handler tests use in-memory fakes. (Candidates
 * for shared/core/ports.ts once the types they name live in core.)
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
  /** NodeClaim `name`. @throws NotFoundError when it does not exist. */
  nodeClaim(name: string): Promise<NodeClaim>;
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
  deletePod(pod: PodRef): Promise<boolean>;
  /** Writes an EC2NodeClass's resolved status. */
  writeNodeClassStatus(name: string, status: EC2NodeClassStatus): Promise<void>;
}
