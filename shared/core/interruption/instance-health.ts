import { ANNOTATIONS } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { rfc3339 } from '../model/rfc3339';
import type { InstanceHealthReport, InstanceStatusCategory } from '../ports/cloud';
import { claimsByInstance, type InterruptionEvent, TERMINATING_ON_INTERRUPTION_EVENT } from './decide';

/**
 * What EC2's instance status checks make podlift do, as aws/karpenter-provider-aws does it:
 * pkg/providers/instancestatus/instancestatus.go `DefaultProvider.List` keeps the checks that
 * failed — an instance or system status check impaired for at least two minutes
 * (`UnhealthyThreshold`), or a scheduled event at once — and
 * pkg/controllers/interruption/instancestatus_controller.go `handleHealthStatus` hands each
 * category to the interruption handler: `actionForMessage` makes an impaired instance or system
 * status ForcefulTermination (the NodeClaim gets the termination timestamp now, so its pods are
 * deleted without waiting for their budgets, then it is deleted) and a scheduled event
 * CordonAndDrain (the NodeClaim is deleted and drained). EBS status checks are ignored (no kind
 * maps to them). `notifyForMessage` records InstanceUnhealthy and `deleteNodeClaim`
 * TerminatingOnInterruption on the NodeClaim and its Node. Instances that are not this
 * cluster's NodeClaims' are left alone.
 */

/** instancestatus.go `UnhealthyThreshold`. */
export const UNHEALTHY_THRESHOLD_MS = 120_000;

/** The categories Karpenter acts on (instancestatus_controller.go `categoryToKind`). */
export type UnhealthyCategory = Exclude<InstanceStatusCategory, 'EBSStatus'>;

/** What to do about one NodeClaim whose instance EC2 reports unhealthy. */
export interface InstanceHealthDecision {
  readonly instanceId: string;
  readonly nodeClaim: string;
  readonly node?: string;
  /** The failed categories, each counted once per instance (the metric's `category`). */
  readonly categories: readonly UnhealthyCategory[];
  /** RFC 3339 `karpenter.sh/nodeclaim-termination-timestamp` to write (ForcefulTermination), when absent. */
  readonly terminationTimestamp?: string;
  /** False when the NodeClaim is already being deleted. */
  readonly deleteNodeClaim: boolean;
  /** The Events to record on the NodeClaim and its Node, in order. */
  readonly events: readonly InterruptionEvent[];
}

/** events.go `Unhealthy`. */
export const INSTANCE_UNHEALTHY_EVENT: InterruptionEvent = {
  type: 'Warning',
  reason: 'InstanceUnhealthy',
  message: 'An unhealthy warning was triggered for the instance',
};

const ACTED_ON: readonly UnhealthyCategory[] = ['InstanceStatus', 'SystemStatus', 'EventStatus'];

/** The decisions for EC2's status reports, one per NodeClaim of the cluster an unhealthy report names. */
export function decideInstanceHealth(
  reports: readonly InstanceHealthReport[],
  nodeClaims: readonly NodeClaim[],
  now: number,
): InstanceHealthDecision[] {
  const byInstance = claimsByInstance(nodeClaims);
  const decisions: InstanceHealthDecision[] = [];
  for (const report of reports) {
    const categories = unhealthyCategories(report, now);
    const claim = byInstance.get(report.instanceId);
    if (categories.length === 0 || !claim) continue;
    const forceful = categories.some((c) => c !== 'EventStatus');
    const annotate = forceful && !(ANNOTATIONS.terminationTimestamp in claim.annotations);
    // A NodeClaim already being deleted is termination's: Karpenter's deleteNodeClaim does
    // nothing for it, and podlift does not repeat the Events every minute either.
    const deleting = Boolean(claim.deletionTimestamp);
    decisions.push({
      instanceId: report.instanceId,
      nodeClaim: claim.name,
      ...(claim.status.nodeName ? { node: claim.status.nodeName } : {}),
      categories,
      ...(annotate ? { terminationTimestamp: rfc3339(now) } : {}),
      deleteNodeClaim: !deleting,
      events: deleting ? [] : [INSTANCE_UNHEALTHY_EVENT, TERMINATING_ON_INTERRUPTION_EVENT],
    });
  }
  return decisions;
}

/**
 * instancestatus.go `List`'s filter: the categories with a failed check, an instance or system
 * check only once it has been impaired for {@link UNHEALTHY_THRESHOLD_MS} (a check without
 * ImpairedSince counts from the epoch, as Go's zero time does), a scheduled event at once.
 */
export function unhealthyCategories(report: InstanceHealthReport, now: number): UnhealthyCategory[] {
  const failed = new Set<InstanceStatusCategory>();
  for (const check of report.checks) {
    if (check.status !== 'failed') continue;
    if (check.category !== 'EventStatus' && now - (check.impairedSince ?? 0) < UNHEALTHY_THRESHOLD_MS)
      continue;
    failed.add(check.category);
  }
  return ACTED_ON.filter((c) => failed.has(c));
}
