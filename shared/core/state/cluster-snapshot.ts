import type { Catalog } from '../catalog/instance-type';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';
import type { ValidationError } from '../model/errors';
import { LABEL_NODEPOOL } from '../model/labels';
import { conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { Requirements } from '../model/requirements';
import { isKnownEphemeralTaint, taintTolerated } from '../model/taints';
import type { DaemonSet, PodDisruptionBudget, StateNode } from './cluster-state';

/**
 * Everything a control loop decides from, read once at the start of an invocation: the cluster
 * as the API server has it (the truth; events were only hints), the catalog and what EC2
 * refused lately. Plain data; the loops' decisions in core are functions of it and `now`.
 */
export interface ClusterSnapshot {
  /** Epoch ms the snapshot was taken at. */
  readonly now: number;
  /** Pods waiting for capacity (Unschedulable, not being deleted). */
  readonly pendingPods: readonly Pod[];
  /** Registered Nodes with the pods bound to them. */
  readonly nodes: readonly StateNode[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly daemonSets: readonly DaemonSet[];
  readonly podDisruptionBudgets: readonly PodDisruptionBudget[];
  /** podlift's NodePools (CRDs, and SSM parameters where no CRD of the name exists), valid ones only. */
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
  /** Resolved subnets, security groups, AMIs and profile per EC2NodeClass name (when resolved). */
  readonly nodeClassStatus: ReadonlyMap<string, EC2NodeClassStatus>;
  readonly catalog?: Catalog;
  /**
   * The cluster's instances as EC2 reports them, by providerID, when the loop read them
   * (disruption: subnet and security-group drift compare the instance with its EC2NodeClass).
   */
  readonly instances?: ReadonlyMap<string, InstanceNetwork>;
  /** offeringKey()s (and capacity-type marks) EC2 refused or reclaimed within the TTL. */
  readonly unavailableOfferings: ReadonlySet<string>;
  /** Objects that failed validation, each naming itself; the rest were read. */
  readonly invalid: readonly ValidationError[];
  /** What the loader worked around (an SSM NodePool shadowed by a CRD, …). */
  readonly warnings: readonly string[];
  /**
   * Nodes, by name, whose pods a disruption decision counts as pending because their node is
   * going (disruption/commands-in-flight.ts `besideCommandsInFlight`): pods that have yet to move.
   */
  readonly podsLeaving?: ReadonlySet<string>;
}

/**
 * What drift reads of an instance EC2 describes: the subnet and security groups it runs with
 * (the cloud port's CloudInstance has them; state does not depend on the ports).
 */
export interface InstanceNetwork {
  readonly subnetId?: string;
  readonly securityGroupIds?: readonly string[];
}

/** A Node and the NodeClaim it belongs to, joined by providerID (Karpenter's StateNode). */
export interface ClusterNode {
  readonly node?: StateNode;
  readonly nodeClaim?: NodeClaim;
}

/**
 * Nodes and NodeClaims joined by providerID: registered claims with their Node, in-flight claims
 * alone, and Nodes no NodeClaim owns (not podlift's, or their claim is gone).
 */
export function joinNodesAndClaims(
  nodes: readonly StateNode[],
  nodeClaims: readonly NodeClaim[],
): readonly ClusterNode[] {
  const byProvider = new Map<string, StateNode>();
  for (const node of nodes) if (node.providerID) byProvider.set(node.providerID, node);
  const joined: ClusterNode[] = [];
  const claimedNodes = new Set<StateNode>();
  for (const nodeClaim of nodeClaims) {
    const node = nodeClaim.status.providerID ? byProvider.get(nodeClaim.status.providerID) : undefined;
    if (node) claimedNodes.add(node);
    joined.push(node ? { node, nodeClaim } : { nodeClaim });
  }
  for (const node of nodes) if (!claimedNodes.has(node)) joined.push({ node });
  return joined;
}

/**
 * The capacity the scheduler may place pending pods on: every registered Node, plus every
 * NodeClaim not being deleted whose Node has not registered yet (in flight). An in-flight claim
 * is a node whose labels are the claim's own plus what its requirements pin to one value, whose
 * taints are its taints (startup taints are lifted before pods run), and which already runs the
 * DaemonSets that will land on it — so the next invocation places pending pods onto capacity
 * already on its way instead of launching more (Karpenter's in-flight nodes).
 *
 * A claim whose launch is recorded has the allocatable the launch recorded. A claim of a
 * NodePool whose launch is not recorded yet — created, then throttled, or launched but the
 * record failed — is in flight too, sized from its spec: allocatable its requests (what its
 * pods and DaemonSets were planned to take), and {@link StateNode.launchRequirements} so its
 * NodePool's limits count the largest type it may launch as. Karpenter has no such node: its
 * provisioner plans nothing while any NodeClaim lacks a providerID (kubernetes-sigs/karpenter
 * pkg/controllers/state/cluster.go `Synced`, checked by provisioning/provisioner.go `Reconcile`).
 * podlift keeps planning for everything else, and the claim stops holding its room when it
 * launches, or when it is deleted (launch.ts on a permanent error; termination after
 * `LAUNCH_TTL_MS`, liveness.go's launch timeout).
 */
export function schedulingCapacity(
  snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims' | 'daemonSets'>,
): StateNode[] {
  const registered = new Set(snapshot.nodes.flatMap((n) => (n.providerID ? [n.providerID] : [])));
  const inFlight = snapshot.nodeClaims.filter(
    (c) =>
      c.deletionTimestamp === undefined &&
      (c.status.providerID === undefined || !registered.has(c.status.providerID)) &&
      (c.status.allocatable !== undefined || c.labels[LABEL_NODEPOOL] !== undefined),
  );
  const initializing = new Map(
    snapshot.nodeClaims.flatMap((c) =>
      c.status.providerID && !c.deletionTimestamp && !conditionIsTrue(c, 'Initialized')
        ? [[c.status.providerID, c] as const]
        : [],
    ),
  );
  const nodes = snapshot.nodes.map((node) => {
    const claim = node.providerID ? initializing.get(node.providerID) : undefined;
    return claim ? initializingNode(node, claim) : node;
  });
  return [...nodes, ...inFlight.map((c) => inFlightNode(c, snapshot.daemonSets))];
}

/**
 * A Node that joined but is not initialized yet, as the scheduler should see it (Karpenter's
 * StateNode: until initialization it trusts its NodeClaim): without the ephemeral taints and
 * the claim's startup taints, with the claim's labels under its own, and the claim's allocatable
 * while the kubelet has not reported one. Otherwise the pods it was launched for would look
 * unplaceable for the minute between registration and Ready, and be launched for again.
 */
function initializingNode(node: StateNode, claim: NodeClaim): StateNode {
  const startup = claim.spec.startupTaints;
  const taints = node.taints.filter(
    (t) => !isKnownEphemeralTaint(t) && !startup.some((s) => s.key === t.key && s.effect === t.effect),
  );
  const reported = Object.keys(node.allocatable).length > 0;
  return {
    ...node,
    labels: { ...claim.labels, ...node.labels },
    taints,
    allocatable: reported ? node.allocatable : (claim.status.allocatable ?? {}),
  };
}

/**
 * An in-flight NodeClaim as the scheduler's {@link StateNode} (see {@link schedulingCapacity}):
 * with its recorded allocatable, or, while no launch is recorded, its requests and its
 * requirements to size its NodePool's limits by.
 */
export function inFlightNode(nodeClaim: NodeClaim, daemonSets: readonly DaemonSet[]): StateNode {
  const labels: Record<string, string> = { ...nodeClaim.labels };
  const requirements = Requirements.from(nodeClaim.spec.requirements);
  for (const key of requirements.keys()) {
    const requirement = requirements.get(key);
    if (requirement && !requirement.complement && requirement.values.size === 1 && labels[key] === undefined)
      labels[key] = [...requirement.values][0]!;
  }
  const taints = nodeClaim.spec.taints;
  const daemonPods: Pod[] = daemonSets
    .filter((ds) =>
      taints.every((t) => t.effect === 'PreferNoSchedule' || taintTolerated(ds.pod.tolerations, t)),
    )
    .filter((ds) => Object.entries(ds.pod.nodeSelector).every(([k, v]) => labels[k] === v))
    .map((ds) => ({ ...ds.pod, name: `${ds.name}-${nodeClaim.name}`, nodeName: nodeClaim.name }));
  const nodePool = labels[LABEL_NODEPOOL];
  const recorded = nodeClaim.status.allocatable;
  return {
    kind: 'nodeclaim',
    name: nodeClaim.name,
    labels,
    taints,
    allocatable: recorded ?? nodeClaim.spec.resources.requests,
    ...(nodeClaim.status.capacity ? { capacity: nodeClaim.status.capacity } : {}),
    ...(recorded ? {} : { launchRequirements: nodeClaim.spec.requirements }),
    pods: daemonPods,
    ...(nodePool !== undefined ? { nodePool } : {}),
    ...(nodeClaim.status.providerID ? { providerID: nodeClaim.status.providerID } : {}),
    ...(nodeClaim.creationTimestamp ? { creationTimestamp: nodeClaim.creationTimestamp } : {}),
  };
}
