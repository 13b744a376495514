import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../model/drift-hash';
import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import { type Condition, conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import { Requirements } from '../model/requirements';
import type { NodeClaimStatusUpdate } from '../ports/cluster';
import type { ClusterSnapshot, InstanceNetwork } from '../state/cluster-snapshot';

/**
 * Drift as Karpenter records it: a NodeClaim status condition `Drifted=True` whose reason says
 * what drifted, set and cleared by a controller of its own (kubernetes-sigs/karpenter
 * pkg/controllers/nodeclaim/disruption/drift.go `Drift.Reconcile`), and read by the disruption
 * method (pkg/controllers/disruption/drift.go `ShouldDisrupt`), which takes the claims that drifted
 * first. podlift's disruption loop writes the condition at the start of each run.
 */

/** The NodeClaim condition type drift sets. */
export const DRIFTED = 'Drifted';

/**
 * Why a NodeClaim drifted, as Karpenter names it: NodePoolDrifted (its NodePool's template hash
 * changed; core drift.go), RequirementsDrifted (its labels no longer meet the NodePool's
 * requirements; core drift.go), and the AWS provider's NodeClassDrift (the EC2NodeClass hash), AMIDrift,
 * SecurityGroupDrift and SubnetDrift (aws/karpenter-provider-aws pkg/cloudprovider/drift.go).
 */
export type DriftReason =
  | 'NodePoolDrifted'
  | 'RequirementsDrifted'
  | 'NodeClassDrift'
  | 'AMIDrift'
  | 'SecurityGroupDrift'
  | 'SubnetDrift';

/** A drifted NodeClaim's reason and what drifted, in words. */
export interface Drift {
  readonly reason: DriftReason;
  readonly message: string;
}

/**
 * What can be said about a NodeClaim's drift: it drifted, it did not, or it cannot be told now
 * (the EC2NodeClass is not resolved or the instance was not described), in which case Karpenter's
 * reconcile returns an error and leaves the condition as it was.
 */
export type DriftVerdict =
  | { readonly kind: 'drifted'; readonly drift: Drift }
  | { readonly kind: 'not-drifted' }
  | { readonly kind: 'unknown'; readonly why: string };

const NOT_DRIFTED: DriftVerdict = { kind: 'not-drifted' };
const drifted = (reason: DriftReason, message: string): DriftVerdict => ({
  kind: 'drifted',
  drift: { reason, message },
});

/**
 * Whether `claim` of NodePool `pool` drifted, checked in Karpenter's order: the NodePool hash
 * (`areStaticFieldsDrifted`), the NodePool's requirements (`areRequirementsDrifted`), then the provider's `isNodeClassDrifted` — the EC2NodeClass hash,
 * the AMI, the security groups, the subnet. A hash is compared only when both sides carry the same
 * hash version. No EC2NodeClass means no drift (the provider cannot resolve it and says none).
 */
export function driftOf(
  claim: NodeClaim,
  pool: NodePool,
  snapshot: Pick<ClusterSnapshot, 'nodeClasses' | 'nodeClassStatus' | 'instances'>,
): DriftVerdict {
  const a = claim.annotations;
  if (
    a[ANNOTATIONS.nodePoolHashVersion] === DRIFT_HASH_VERSION &&
    a[ANNOTATIONS.nodePoolHash] !== nodePoolHash(pool)
  ) {
    return drifted('NodePoolDrifted', `NodePool ${pool.name} changed`);
  }
  const unmet = requirementsDrift(claim, pool);
  if (unmet !== undefined)
    return drifted(
      'RequirementsDrifted',
      `NodePool ${pool.name}'s requirements no longer admit it: ${unmet}`,
    );
  const nodeClass = snapshot.nodeClasses.find((c) => c.name === claim.spec.nodeClassRef.name);
  if (!nodeClass) return NOT_DRIFTED;
  if (
    a[ANNOTATIONS.nodeClassHashVersion] === DRIFT_HASH_VERSION &&
    a[ANNOTATIONS.nodeClassHash] !== nodeClassHash(nodeClass)
  ) {
    return drifted('NodeClassDrift', `EC2NodeClass ${nodeClass.name} changed`);
  }
  const resolved = snapshot.nodeClassStatus.get(nodeClass.name);
  if (!resolved) return { kind: 'unknown', why: `EC2NodeClass ${nodeClass.name} is not resolved` };
  // A claim launched without a recorded image has nothing to compare (Karpenter errors there).
  if (claim.status.imageID) {
    if (resolved.amis.length === 0)
      return { kind: 'unknown', why: `EC2NodeClass ${nodeClass.name} resolves no AMIs` };
    if (!resolved.amis.some((ami) => ami.id === claim.status.imageID))
      return drifted('AMIDrift', `AMI ${claim.status.imageID} is no longer selected`);
  }
  const instance = claim.status.providerID ? snapshot.instances?.get(claim.status.providerID) : undefined;
  if (!instance)
    return { kind: 'unknown', why: `instance ${claim.status.providerID ?? '(none)'} not described` };
  return networkDrift(instance, resolved);
}

/**
 * Why the NodeClaim's labels no longer meet its NodePool's requirements, or undefined when they
 * do, as kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go
 * `areRequirementsDrifted` decides: the claim's labels, each an `In [value]` requirement
 * (`NewLabelRequirements`), must be `Compatible` with the NodePool's requirements with no label
 * allowed undefined — a key the NodePool requires positively that the claim has no label for is
 * drift, a key whose values no longer intersect the label is drift, and a requirement widened
 * (or turned into `Exists`) is not.
 */
export function requirementsDrift(
  claim: Pick<NodeClaim, 'labels'>,
  pool: Pick<NodePool, 'template'>,
): string | undefined {
  return Requirements.fromLabels(claim.labels).compatible(
    Requirements.from(pool.template.requirements),
    NO_UNDEFINED_LABELS,
  );
}

/** `Compatible` called without options: every key the NodePool requires must be labelled. */
const NO_UNDEFINED_LABELS: ReadonlySet<string> = new Set();

/**
 * Subnet and security-group drift, as aws/karpenter-provider-aws pkg/cloudprovider/drift.go
 * `areSecurityGroupsDrifted` and `isSubnetDrifted` decide them from the instance EC2 describes, in
 * that order: its security groups are no longer exactly the resolved set, or its subnet is no
 * longer among the resolved subnets. Nothing resolved is unknown (Karpenter errors out); nothing
 * known about the instance's side is no drift.
 */
export function networkDrift(
  instance: InstanceNetwork,
  resolved: Pick<EC2NodeClassStatus, 'subnets' | 'securityGroups'>,
): DriftVerdict {
  const groups = new Set(resolved.securityGroups.map((g) => g.id));
  if (groups.size === 0) return { kind: 'unknown', why: 'no security groups are resolved' };
  const running = new Set(instance.securityGroupIds ?? []);
  if (
    instance.securityGroupIds !== undefined &&
    (groups.size !== running.size || [...running].some((id) => !groups.has(id)))
  ) {
    return drifted(
      'SecurityGroupDrift',
      `security groups ${[...running].sort().join(', ') || '(none)'} are no longer the selected ${[...groups].sort().join(', ')}`,
    );
  }
  if (resolved.subnets.length === 0) return { kind: 'unknown', why: 'no subnets are resolved' };
  if (instance.subnetId !== undefined && !resolved.subnets.some((s) => s.id === instance.subnetId)) {
    return drifted('SubnetDrift', `subnet ${instance.subnetId} is no longer selected`);
  }
  return NOT_DRIFTED;
}

/** A Drifted condition change for one NodeClaim: what to write, and what it means. */
export interface DriftConditionChange {
  readonly nodeClaim: string;
  /** Set (with the drift) or cleared. */
  readonly change: 'set' | 'cleared';
  readonly drift?: Drift;
  readonly update: NodeClaimStatusUpdate;
}

/**
 * The Drifted condition writes the snapshot calls for, transitions only (Karpenter's
 * `Drift.Reconcile` patches the status only when it changed): for every NodeClaim that is not
 * being deleted and whose NodePool exists (the nodeclaim disruption controller skips the others),
 * `Drifted=True` with the reason and what drifted when it drifted and the condition does not say
 * so already; the condition removed (operatorpkg `Clear`) when it is not launched or no longer
 * drifted; nothing when drift cannot be told now.
 */
export function driftConditionChanges(snapshot: ClusterSnapshot): DriftConditionChange[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const changes: DriftConditionChange[] = [];
  for (const claim of snapshot.nodeClaims) {
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    if (claim.deletionTimestamp || !pool) continue;
    const current = claim.status.conditions?.find((c) => c.type === DRIFTED);
    const verdict: DriftVerdict = conditionIsTrue(claim, 'Launched')
      ? driftOf(claim, pool, snapshot)
      : NOT_DRIFTED;
    if (verdict.kind === 'unknown') continue;
    if (verdict.kind === 'not-drifted') {
      if (current)
        changes.push({
          nodeClaim: claim.name,
          change: 'cleared',
          update: { removeConditions: [DRIFTED] },
        });
      continue;
    }
    const { drift } = verdict;
    if (current?.status === 'True' && current.reason === drift.reason && current.message === drift.message)
      continue;
    changes.push({
      nodeClaim: claim.name,
      change: 'set',
      drift,
      update: {
        conditions: [{ type: DRIFTED, status: 'True', reason: drift.reason, message: drift.message }],
      },
    });
  }
  return changes;
}

/** The claim's Drifted=True condition, or undefined when it has none that is True. */
export function driftedCondition(claim: Pick<NodeClaim, 'status'>): Condition | undefined {
  return claim.status.conditions?.find((c) => c.type === DRIFTED && c.status === 'True');
}

/**
 * The candidates drift may take, in its order (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/drift.go `ShouldDisrupt` and `ComputeCommands`): those whose
 * Drifted condition is True, the longest drifted (earliest lastTransitionTime) first. Ties keep
 * the candidates' order.
 */
export function driftOrder<C extends { readonly claim: NodeClaim }>(candidates: readonly C[]): C[] {
  const since = (c: C) => Date.parse(driftedCondition(c.claim)?.lastTransitionTime ?? '') || 0;
  return candidates
    .filter((c) => driftedCondition(c.claim) !== undefined)
    .sort((a, b) => since(a) - since(b));
}
