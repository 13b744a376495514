import type { KubeObject } from '../fakes/kube';

/**
 * Which surplus pods the ReplicaSet controller deletes on a scale-down, ranked as kubernetes
 * pkg/controller/replicaset/replica_set.go `getPodsToDelete` → `getPodsRankedByRelatedPodsOnSameNode`
 * and pkg/controller/controller_utils.go `ActivePodsWithRanks.Less` rank them, with the feature
 * gates PodDeletionCost and LogarithmicScaleDown (both on by default since 1.22)
 * in their default state.
 */

/** The annotation a workload sets to steer which of its pods go first (core.PodDeletionCost). */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/**
 * The most pods one sync deletes (replica_set.go `manageReplicas` caps `diff` at `burstReplicas`,
 * which kube-controller-manager sets to `BurstReplicas = 500`); the rest go on later syncs.
 */
export const BURST_REPLICAS = 500;

/** A candidate pod with its rank: the active related pods on its node (its own included). */
export interface RankedPod {
  readonly pod: KubeObject;
  readonly rank: number;
}

interface PodView {
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: readonly { type?: string; status?: string; lastTransitionTime?: string }[];
  };
}

/** controller_utils.go `podPhaseToOrdinal`; a phase it does not list reads as 0, as a Go map does. */
const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * The `diff` pods to delete out of `pods` (the ReplicaSet's active pods), `related` being the
 * active and inactive pods of every ReplicaSet of the same Deployment (`getIndirectlyRelatedPods`).
 * As `getPodsToDelete`, it only ranks when some pods stay, so deleting all keeps the input order.
 * `now` is the controller's clock in epoch ms (the `Now` of `ActivePodsWithRanks`). Pods that tie
 * on every key keep their input order (Go's `sort.Sort` leaves ties in no defined order).
 */
export function podsToDelete(
  pods: readonly KubeObject[],
  related: readonly KubeObject[],
  diff: number,
  now: number,
): KubeObject[] {
  if (diff >= pods.length) return pods.slice(0, diff);
  const ranked = rankedByRelatedPodsOnSameNode(pods, related);
  ranked.sort((a, b) => (deletesFirst(a, b, now) ? -1 : deletesFirst(b, a, now) ? 1 : 0));
  return ranked.slice(0, diff).map((r) => r.pod);
}

/**
 * replica_set.go `getPodsRankedByRelatedPodsOnSameNode`: each pod's rank is the number of active
 * related pods on the same `spec.nodeName` (unassigned pods share the node name ""), so a pod
 * doubled up on a node ranks higher and goes first: a scale-down spreads over the nodes instead
 * of emptying the newest.
 */
export function rankedByRelatedPodsOnSameNode(
  pods: readonly KubeObject[],
  related: readonly KubeObject[],
): RankedPod[] {
  const podsOnNode = new Map<string, number>();
  for (const pod of related) {
    if (!isPodActive(pod)) continue;
    const node = nodeName(pod);
    podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
  }
  return pods.map((pod) => ({ pod, rank: podsOnNode.get(nodeName(pod)) ?? 0 }));
}

/**
 * controller_utils.go `ActivePodsWithRanks.Less`: true when `a` should be deleted before `b`.
 * The first key that differs decides: 1 unassigned first; 2 Pending < Unknown < Running;
 * 3 not Ready first; 4 lower pod-deletion-cost first; 5 higher rank (more related pods on its
 * node) first; 6 both Ready: Ready for less time first, in log2 buckets of nanoseconds with the
 * UID breaking a tie in bucket; 7 more container restarts first — skipped: the simulator's
 * containers never restart, so every pod has 0; 8 newer first, in the same buckets and tie-break.
 */
export function deletesFirst(a: RankedPod, b: RankedPod, now: number): boolean {
  const [pa, pb] = [a.pod as KubeObject & PodView, b.pod as KubeObject & PodView];
  // 1. Unassigned < assigned.
  const [na, nb] = [nodeName(pa), nodeName(pb)];
  if (na !== nb && (na === '' || nb === '')) return na === '';
  // 2. PodPending < PodUnknown < PodRunning.
  const [oa, ob] = [phaseOrdinal(pa), phaseOrdinal(pb)];
  if (oa !== ob) return oa < ob;
  // 3. Not ready < ready.
  const [ra, rb] = [isPodReady(pa), isPodReady(pb)];
  if (ra !== rb) return !ra;
  // 4. Lower pod-deletion-cost < higher pod-deletion-cost.
  const [ca, cb] = [podDeletionCost(pa.metadata.annotations), podDeletionCost(pb.metadata.annotations)];
  if (ca !== cb) return ca < cb;
  // 5. Doubled up < not doubled up.
  if (a.rank !== b.rank) return a.rank > b.rank;
  // 6. Been ready for empty time < less time < more time.
  if (ra && rb) {
    const decided = newerFirst(readyTime(pa), readyTime(pb), pa, pb, now);
    if (decided !== undefined) return decided;
  }
  // 7. Higher restart counts first: every simulated container has restarted 0 times.
  // 8. Empty creation time pods < newer pods < older pods.
  return (
    newerFirst(
      parseTime(pa.metadata.creationTimestamp),
      parseTime(pb.metadata.creationTimestamp),
      pa,
      pb,
      now,
    ) ?? false
  );
}

/**
 * Keys 6 and 8 of `Less` with LogarithmicScaleDown: undefined when the times are equal (the next
 * key decides); a zero time goes first (`afterOrZero`); otherwise the time in the lower log2
 * bucket of (now − time) goes first, the lower UID when both share a bucket.
 */
function newerFirst(
  ta: number | undefined,
  tb: number | undefined,
  a: KubeObject,
  b: KubeObject,
  now: number,
): boolean | undefined {
  if (ta === tb) return undefined;
  if (ta === undefined || tb === undefined) return ta === undefined;
  const diff = logarithmicRankDiff(ta, tb, now);
  if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
  return diff < 0;
}

/**
 * controller_utils.go `logarithmicRankDiff`: the difference of ⌊log2((now − t) in ns)⌋ of two
 * times given in epoch ms, a time at or after `now` counting as bucket −1.
 */
export function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  return bucket(now - t1) - bucket(now - t2);
}

function bucket(ms: number): number {
  return ms > 0 ? Math.trunc(Math.log2(ms * 1e6)) : -1;
}

/**
 * pkg/apis/core/helper `GetDeletionCostFromPodAnnotations`: the annotation as an int32; 0 when
 * missing or invalid (a leading "+", a leading zero other than "0" itself, not an integer, out
 * of int32 range).
 */
export function podDeletionCost(annotations: Readonly<Record<string, string>> | undefined): number {
  const value = annotations?.[POD_DELETION_COST];
  if (value === undefined || !/^(0|[1-9][0-9]*|-[0-9]+)$/.test(value)) return 0;
  const parsed = Number(value);
  return parsed >= -(2 ** 31) && parsed <= 2 ** 31 - 1 ? parsed : 0;
}

/** controller_utils.go `IsPodActive`: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = (pod as PodView).status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

const nodeName = (pod: KubeObject): string => (pod as PodView).spec?.nodeName ?? '';

const phaseOrdinal = (pod: PodView): number => PHASE_ORDINAL[pod.status?.phase ?? ''] ?? 0;

/** pkg/api/v1/pod `IsPodReady`: the first PodReady condition has status True. */
function readyCondition(pod: PodView) {
  return (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

function isPodReady(pod: PodView): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** controller_utils.go `podReadyTime`: the PodReady condition's lastTransitionTime, zero when absent. */
function readyTime(pod: PodView): number | undefined {
  return parseTime(readyCondition(pod)?.lastTransitionTime);
}

function parseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
