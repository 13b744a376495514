import { durationMs } from '../model/duration';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import type { Pod } from '../model/pod';
import type { NodeClaimStatusUpdate } from '../ports/cluster';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { joinNodesAndClaims } from '../state/cluster-snapshot';

/**
 * When a NodeClaim may be consolidated, as Karpenter decides it: the `Consolidatable` condition
 * (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/consolidation.go
 * `Consolidation.Reconcile`) is True once max(`status.lastPodEventTime`, Initialized) +
 * the NodePool's `consolidateAfter` has passed, and every consolidation method, emptiness
 * included, takes only NodeClaims that have it (disruption/emptiness.go and consolidation.go
 * `ShouldDisrupt`); `consolidateAfter: Never` removes it, so nothing is consolidated.
 *
 * `lastPodEventTime` is Karpenter's podevents controller's (pkg/controllers/nodeclaim/podevents
 * `Controller.Reconcile`): the time a pod was bound to the node, went terminal or started
 * terminating. podlift has no controller watching pods, so the disruption run observes them: each
 * run compares the node's pods (not DaemonSet pods, which Karpenter ignores too) with the
 * fingerprint it recorded last time on the NodeClaim (`podlift.dev/pod-events`); a difference is a
 * pod event, stamped with the run's time. The disruption function runs every minute and on the
 * watcher's CapacityChanged events, which it publishes within its batch window whenever a pod
 * leaves a node, so a pod that leaves is seen within seconds and one that binds within a minute:
 * the time is late, never early, so consolidation can only wait longer than Karpenter would. A pod
 * that binds and leaves between two runs leaves no trace; that is the difference.
 */

/** The NodeClaim condition type. */
export const CONSOLIDATABLE = 'Consolidatable';

/**
 * Karpenter's podevents `dedupeTimeout`: a lastPodEventTime newer than this is not moved, to
 * spare the API server; smaller than the 15 s validation, so a command decided while events are
 * de-duplicated is still invalidated.
 */
export const POD_EVENT_DEDUPE_MS = 10_000;

/** What to write on one NodeClaim: its status, and the fingerprint of its node's pods. */
export interface ConsolidatableChange {
  readonly nodeClaim: string;
  readonly status?: NodeClaimStatusUpdate;
  /** The new `podlift.dev/pod-events` annotation, when the pods changed. */
  readonly podEvents?: string;
}

/**
 * A fingerprint of the pods whose arrival, termination or departure is a pod event: every pod
 * bound to the node but DaemonSet pods, by uid, marked when terminating. FNV-1a over the sorted
 * list, so the annotation stays short however many pods run.
 */
export function podEventsFingerprint(pods: readonly Pod[]): string {
  const keys = pods
    .filter((p) => p.ownerKind !== 'DaemonSet')
    .map((p) => (p.deleting ? `${p.uid}~` : p.uid))
    .sort();
  let hash = 0x811c9dc5;
  for (const ch of keys.join(',')) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${keys.length}-${hash.toString(16)}`;
}

/**
 * Whether `claim` is under its NodePool's consolidateAfter at `now`
 * (pkg/utils/disruption/disruption.go `IsUnderConsolidateAfter`): from its lastPodEventTime, or
 * when it has none from the time it was initialized. Never (undefined) and 0 are never under it.
 */
export function underConsolidateAfter(
  claim: Pick<NodeClaim, 'status'>,
  consolidateAfter: number | undefined,
  now: number,
): boolean {
  if (!consolidateAfter) return false;
  const initialized = claim.status.conditions?.find((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initialized) return false;
  const since = Date.parse(claim.status.lastPodEventTime ?? initialized.lastTransitionTime);
  return now - since < consolidateAfter;
}

/**
 * The lastPodEventTime and Consolidatable changes a run makes: for each NodeClaim of a podlift
 * NodePool with its Node, a new lastPodEventTime when its node's pods changed since the recorded
 * fingerprint (kept when the last one is younger than {@link POD_EVENT_DEDUPE_MS}; the first look
 * at a node with pods counts as an event, since when they came is unknown), then the condition:
 * removed when consolidation is disabled, the claim not Initialized or under consolidateAfter;
 * set True otherwise. Only changes are returned.
 */
export function consolidatableChanges(snapshot: ClusterSnapshot, now: number): ConsolidatableChange[] {
  const pools = new Map(snapshot.nodePools.map((p) => [p.name, p]));
  const changes: ConsolidatableChange[] = [];
  for (const { node, nodeClaim: claim } of joinNodesAndClaims(snapshot.nodes, snapshot.nodeClaims)) {
    if (!claim || claim.deletionTimestamp) continue;
    const pool = pools.get(claim.labels[LABEL_NODEPOOL] ?? '');
    if (!pool) continue;
    const recorded = claim.annotations[ANNOTATIONS.podEvents];
    const fingerprint = node ? podEventsFingerprint(node.pods) : recorded;
    const changed = fingerprint !== recorded;
    const last = claim.status.lastPodEventTime;
    const event =
      changed &&
      (recorded !== undefined || !fingerprint?.startsWith('0-')) &&
      (last === undefined || now - Date.parse(last) >= POD_EVENT_DEDUPE_MS);
    // metav1.Time is whole seconds; cutting the milliseconds makes the event earlier, never later.
    const lastPodEventTime = event ? new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z') : last;
    const after = durationMs(pool.disruption.consolidateAfter);
    const consolidatable =
      after !== undefined &&
      claim.status.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True') === true &&
      !underConsolidateAfter({ status: { ...claim.status, lastPodEventTime } }, after, now);
    const has = claim.status.conditions?.find((c) => c.type === CONSOLIDATABLE);
    const status: NodeClaimStatusUpdate = {
      ...(event ? { lastPodEventTime } : {}),
      ...(consolidatable && has?.status !== 'True'
        ? { conditions: [{ type: CONSOLIDATABLE, status: 'True' as const }] }
        : {}),
      ...(!consolidatable && has ? { removeConditions: [CONSOLIDATABLE] } : {}),
    };
    if (!changed && Object.keys(status).length === 0) continue;
    changes.push({
      nodeClaim: claim.name,
      ...(Object.keys(status).length > 0 ? { status } : {}),
      ...(changed && fingerprint !== undefined ? { podEvents: fingerprint } : {}),
    });
  }
  return changes;
}
