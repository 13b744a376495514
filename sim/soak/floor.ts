import { ANNOTATIONS } from '../../shared/core/model/labels';
import { parseProviderID } from '../../shared/core/model/nodeclaim';
import type { KubeObject } from '../fakes/kube';
import { budgetSelects } from '../fakes/kube/disruption';
import type { StoredEvent } from '../fakes/kube/store';

/**
 * What a run could not have shed by a soak point, from the cluster as it stood: the instances
 * whose cost is sunk at that moment by the NodePool's rules. Their $/h, or the bound if more,
 * against the bound, is a floor under the point's cost ÷ bound. It takes the pod events the run
 * had as given, its own moves' included, so it is the run's floor, not every strategy's: where it
 * is 1.00, nothing at that point was held above the bound by the user's rules.
 */

/**
 * Karpenter's podevents `dedupeTimeout` (pkg/controllers/nodeclaim/podevents/controller.go): a
 * pod event within this long of the last recorded one does not move it.
 */
export const POD_EVENT_DEDUPE_MS = 5_000;

/** A pod as far as the pod-event predicate reads it. */
interface PodFields {
  readonly spec?: { readonly nodeName?: string };
  readonly status?: { readonly phase?: string };
}

function nodeNameOf(pod: KubeObject | undefined): string {
  return (pod as PodFields | undefined)?.spec?.nodeName ?? '';
}

function isTerminal(pod: KubeObject | undefined): boolean {
  const phase = (pod as PodFields | undefined)?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * The node a pod event counts for, or undefined: Karpenter's podevents controller's predicate
 * (`Register`) — a pod newly bound to a node, newly terminal or newly terminating on one, or
 * created on one (the predicate sets no CreateFunc, and controller-runtime's `TypedFuncs.Create`
 * passes every creation; `Reconcile` skips pods without a node). A deletion passes too, but
 * `Reconcile` no longer finds the pod; it was terminating before, which already counted.
 */
export function podEventNode(event: StoredEvent): string | undefined {
  if (event.resource.plural !== 'pods' || event.type === 'DELETED') return undefined;
  const before = event.previous;
  const after = event.object;
  const node = nodeNameOf(after);
  if (node === '') return undefined;
  // A pod created on a node has no state before: it counts as newly bound.
  const bound = nodeNameOf(before) === '';
  const terminal = !isTerminal(before) && isTerminal(after);
  const terminating = !before?.metadata.deletionTimestamp && after.metadata.deletionTimestamp !== undefined;
  return bound || terminal || terminating ? node : undefined;
}

/**
 * When each node last had a pod event, as Karpenter's podevents controller records it in the
 * NodeClaim's `status.lastPodEventTime` (deduplicated the same way), taken from the API server's
 * changes as they happen rather than from podlift's own record.
 */
export class PodEventClock {
  private readonly last = new Map<string, number>();

  /** Records `event` if it is a pod event (see {@link podEventNode}) at `nowMs`. */
  observe(event: StoredEvent, nowMs: number): void {
    const node = podEventNode(event);
    if (node === undefined) return;
    const previous = this.last.get(node);
    if (previous !== undefined && nowMs - previous < POD_EVENT_DEDUPE_MS) return;
    this.last.set(node, nowMs);
  }

  /** The node's last pod event, or undefined when none was seen. */
  lastEventMs(nodeName: string): number | undefined {
    return this.last.get(nodeName);
  }
}

/** A NodeClaim as the floor reads it. */
interface ClaimFields {
  readonly status?: {
    readonly providerID?: string;
    readonly nodeName?: string;
    readonly conditions?: readonly {
      readonly type: string;
      readonly status: string;
      readonly lastTransitionTime?: string;
    }[];
  };
}

/** What {@link sunkInstanceIds} reads. */
export interface SunkInput {
  /** The instances to judge, by id. */
  readonly instanceIds: readonly string[];
  readonly nodeClaims: readonly KubeObject[];
  readonly pods: readonly KubeObject[];
  /** With the status the API server's disruption controller keeps. */
  readonly podDisruptionBudgets: readonly KubeObject[];
  readonly podEvents: PodEventClock;
  readonly nowMs: number;
  readonly consolidateAfterMs: number;
}

/**
 * The instances no disruption keeping the NodePool's rules could remove at `nowMs`: those without a
 * NodeClaim, whose NodeClaim is being deleted (billed until the instance is gone) or not
 * Initialized (Karpenter disrupts only initialized nodes); those under consolidateAfter — the
 * NodeClaim's Node had a pod event, or with none the NodeClaim became Initialized, less than
 * consolidateAfter ago (pkg/utils/disruption/disruption.go `IsUnderConsolidateAfter`); and those
 * whose Node runs a pod that may not be evicted whatever happens: one annotated
 * `karpenter.sh/do-not-disrupt: "true"`, or one a PodDisruptionBudget selects that allows no
 * disruption even with every pod healthy (desiredHealthy ≥ expectedPods, as `minAvailable: 50%`
 * of one pod). A budget that allows none only for now, budgets of nodes and the drain's pace are
 * left out, so it never counts an instance a strategy keeping every rule could remove.
 */
export function sunkInstanceIds(input: SunkInput): Set<string> {
  const claimOf = new Map<string, KubeObject>();
  for (const claim of input.nodeClaims) {
    const id = parseProviderID((claim as ClaimFields).status?.providerID ?? '')?.instanceId;
    if (id !== undefined) claimOf.set(id, claim);
  }
  const held = nodesHeldByPods(input.pods, input.podDisruptionBudgets);
  return new Set(input.instanceIds.filter((id) => isSunk(claimOf.get(id), held, input)));
}

function isSunk(claim: KubeObject | undefined, held: ReadonlySet<string>, input: SunkInput): boolean {
  if (!claim || claim.metadata.deletionTimestamp) return true;
  const status = (claim as ClaimFields).status;
  const initialized = status?.conditions?.find((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initialized?.lastTransitionTime) return true;
  const node = status?.nodeName ?? '';
  if (held.has(node)) return true;
  const since = input.podEvents.lastEventMs(node) ?? Date.parse(initialized.lastTransitionTime);
  return input.nowMs - since < input.consolidateAfterMs;
}

/** A PodDisruptionBudget's status as the floor reads it. */
interface BudgetStatus {
  readonly expectedPods?: number;
  readonly desiredHealthy?: number;
}

/**
 * Nodes running a pod that may never be evicted as things stand: do-not-disrupt, or selected by
 * a budget whose desiredHealthy is every expected pod. Terminating and terminal pods hold nothing.
 */
function nodesHeldByPods(pods: readonly KubeObject[], budgets: readonly KubeObject[]): Set<string> {
  const blocking = budgets.filter((b) => {
    const status = b.status as BudgetStatus | undefined;
    const expected = status?.expectedPods ?? 0;
    return expected > 0 && (status?.desiredHealthy ?? 0) >= expected;
  });
  const held = new Set<string>();
  for (const pod of pods) {
    const node = nodeNameOf(pod);
    if (node === '' || pod.metadata.deletionTimestamp || isTerminal(pod)) continue;
    if (
      pod.metadata.annotations?.[ANNOTATIONS.doNotDisrupt] === 'true' ||
      blocking.some((b) => budgetSelects(b, pod))
    )
      held.add(node);
  }
  return held;
}
