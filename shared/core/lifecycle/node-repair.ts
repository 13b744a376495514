import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { rfc3339 } from '../model/rfc3339';
import { joinNodesAndClaims } from '../state/cluster-snapshot';
import type { NodeCondition, StateNode } from '../state/cluster-state';

/**
 * Node repair, Karpenter's `NodeRepair` feature gate (kubernetes-sigs/karpenter
 * pkg/controllers/node/health/controller.go `Controller.Reconcile`): a Node whose condition has
 * matched one of the cloud provider's repair policies for longer than the policy tolerates is
 * replaced — its NodeClaim gets the termination timestamp now (so termination deletes the pods
 * without waiting for their budgets) and is deleted — unless more than 20 % of the Nodes of its
 * NodePool (of the cluster, for a NodeClaim without a NodePool) match a policy, in which case the
 * repair is blocked with an Event: a failure that wide is not the nodes' fault.
 */

/** One condition a Node may be replaced for (cloudprovider.RepairPolicy). */
export interface RepairPolicy {
  readonly conditionType: string;
  readonly conditionStatus: 'True' | 'False' | 'Unknown';
  readonly tolerationMs: number;
}

const MINUTE = 60_000;

/**
 * The AWS provider's policies (aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go
 * `CloudProvider.RepairPolicies`): the kubelet's Ready condition False or Unknown for 30
 * minutes, and the EKS node monitoring agent's conditions False (accelerated hardware for 10
 * minutes, storage, networking, kernel and container runtime for 30).
 */
export const AWS_REPAIR_POLICIES: readonly RepairPolicy[] = [
  { conditionType: 'Ready', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationMs: 30 * MINUTE },
  { conditionType: 'AcceleratedHardwareReady', conditionStatus: 'False', tolerationMs: 10 * MINUTE },
  { conditionType: 'StorageReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'NetworkingReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'KernelReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'ContainerRuntimeReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
];

/** controller.go `allowedUnhealthyPercent`. */
const ALLOWED_UNHEALTHY_PERCENT = 20;

/** What node repair does about one unhealthy Node. */
export type NodeRepairDecision =
  | {
      readonly kind: 'repair';
      readonly node: string;
      readonly nodeClaim: string;
      readonly nodePool?: string;
      /** The condition that made it unhealthy (for the log and the metric). */
      readonly condition: string;
      /** RFC 3339 `karpenter.sh/nodeclaim-termination-timestamp` to write, unless one already passed. */
      readonly terminationTimestamp?: string;
      /** False when the NodeClaim is already being deleted. */
      readonly deleteNodeClaim: boolean;
    }
  | {
      readonly kind: 'blocked';
      readonly node: string;
      readonly nodeClaim: string;
      readonly nodePool?: string;
      /** The NodeRepairBlocked Event's message (controller.go's wording). */
      readonly message: string;
    };

/** What {@link decideNodeRepairs} reads. */
export interface NodeRepairInput {
  readonly now: number;
  readonly nodes: readonly StateNode[];
  readonly nodeClaims: readonly NodeClaim[];
  /** @default {@link AWS_REPAIR_POLICIES} */
  readonly policies?: readonly RepairPolicy[];
}

/**
 * The repairs due now, one per Node whose unhealthy condition outlasted its toleration and that
 * has a NodeClaim (Karpenter's `NodeClaimForNode`: Nodes it does not manage are never repaired).
 */
export function decideNodeRepairs(input: NodeRepairInput): NodeRepairDecision[] {
  const policies = input.policies ?? AWS_REPAIR_POLICIES;
  const decisions: NodeRepairDecision[] = [];
  for (const { node, nodeClaim } of joinNodesAndClaims(input.nodes, input.nodeClaims)) {
    if (!node || !nodeClaim) continue;
    const unhealthy = unhealthyCondition(node, policies);
    if (!unhealthy || input.now < unhealthy.terminationTime) continue;
    const nodePool = nodeClaim.labels[LABEL_NODEPOOL];
    const ids = { node: node.name, nodeClaim: nodeClaim.name, ...(nodePool ? { nodePool } : {}) };
    const scope = nodePool ? input.nodes.filter((n) => n.labels[LABEL_NODEPOOL] === nodePool) : input.nodes;
    if (!withinUnhealthyCap(scope, policies)) {
      const where = nodePool
        ? `more than ${ALLOWED_UNHEALTHY_PERCENT}% nodes are unhealthy in the nodepool`
        : `more then ${ALLOWED_UNHEALTHY_PERCENT}% nodes are unhealthy in the cluster`;
      decisions.push({ kind: 'blocked', ...ids, message: where });
      continue;
    }
    const terminationTimestamp = terminationTimestampToWrite(nodeClaim, input.now);
    decisions.push({
      kind: 'repair',
      ...ids,
      condition: unhealthy.condition.type,
      ...(terminationTimestamp ? { terminationTimestamp } : {}),
      deleteNodeClaim: !nodeClaim.deletionTimestamp,
    });
  }
  return decisions;
}

/**
 * controller.go `findUnhealthyConditions`: of the conditions matching a policy, the one whose
 * toleration ends first. A condition without lastTransitionTime counts from the epoch, as Go's
 * zero time does.
 */
function unhealthyCondition(
  node: StateNode,
  policies: readonly RepairPolicy[],
): { condition: NodeCondition; terminationTime: number } | undefined {
  let found: { condition: NodeCondition; terminationTime: number } | undefined;
  for (const policy of policies) {
    const condition = matching(node, policy);
    if (!condition) continue;
    const terminationTime = transitionTime(condition) + policy.tolerationMs;
    if (!found || terminationTime < found.terminationTime) found = { condition, terminationTime };
  }
  return found;
}

function matching(node: StateNode, policy: RepairPolicy): NodeCondition | undefined {
  const condition = node.conditions?.find((c) => c.type === policy.conditionType);
  return condition?.status === policy.conditionStatus ? condition : undefined;
}

function transitionTime(condition: NodeCondition): number {
  const at = condition.lastTransitionTime ? Date.parse(condition.lastTransitionTime) : Number.NaN;
  return Number.isNaN(at) ? 0 : at;
}

/**
 * controller.go `areNodesHealthy`: the Nodes matching any policy (whatever their toleration)
 * number at most 20 % of `nodes`, rounded up (intstr `GetScaledValueFromIntOrPercent` with
 * roundUp, as a PodDisruptionBudget's maxUnavailable): of three Nodes one may be unhealthy.
 */
function withinUnhealthyCap(nodes: readonly StateNode[], policies: readonly RepairPolicy[]): boolean {
  const unhealthy = nodes.filter((n) => policies.some((p) => matching(n, p))).length;
  return unhealthy <= Math.ceil((nodes.length * ALLOWED_UNHEALTHY_PERCENT) / 100);
}

/**
 * controller.go `annotateTerminationGracePeriod`: now, unless the NodeClaim already carries a
 * termination timestamp that has passed (an earlier one is kept; a later one is brought forward).
 */
function terminationTimestampToWrite(claim: NodeClaim, now: number): string | undefined {
  const existing = claim.annotations[ANNOTATIONS.terminationTimestamp];
  const at = existing ? Date.parse(existing) : Number.NaN;
  if (!Number.isNaN(at) && at < now) return undefined;
  return rfc3339(now);
}
