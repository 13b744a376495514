import { ANNOTATIONS } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import type { Pod } from '../model/pod';
import { isReschedulable } from '../provisioning/pods-to-provision';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { blockedFor, type Candidate, disruptionCandidates } from './candidates';
import { commandIdOf, MIN_COMMAND_TIMEOUT_MS, underCommand } from './command-record';
import type { DisruptionCommand } from './methods';

/**
 * Disruption commands in flight, side by side, as Karpenter's orchestration queue keeps them
 * (kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go): a candidate belongs to one
 * command (`HasAny`), a started command's candidates carry the `karpenter.sh/disrupted:NoSchedule`
 * taint and the `DisruptionReason` condition (`markDisrupted`), and a command that waits too long
 * for its replacements is given up (`waitOrTerminate`, `GetMaxRetryDuration`).
 */

/** The NodeClaim condition a started command sets on its candidates (v1.ConditionTypeDisruptionReason). */
export const DISRUPTION_REASON = 'DisruptionReason';

/** queue.go `maxRetryDuration` and `retryDurationScale` (`minRetryDuration`: command-record.ts). */
export const MAX_COMMAND_TIMEOUT_MS = 60 * 60_000;
export const COMMAND_TIMEOUT_SCALE_MS = 80;

/**
 * The snapshot as a decision beside the commands in flight sees it (helpers.go
 * `SimulateScheduling`: nodes marked for deletion take no pods, and their pods are scheduled
 * with the candidates'): the Nodes of every other command's candidates (all but `except`), and
 * every Node being deleted for any reason — expiry, interruption, node repair, a person — take no
 * pods, and their pods that would move are pending. `podsLeaving` names those Nodes, so that a
 * command's replacements stay awaited while its candidates' pods move (candidates.ts
 * `disruptionCandidates`).
 */
export function besideCommandsInFlight(snapshot: ClusterSnapshot, except?: string): ClusterSnapshot {
  const held = new Set(
    snapshot.nodeClaims.flatMap((c) =>
      ((underCommand(c) && commandIdOf(c) !== except) || c.deletionTimestamp !== undefined) &&
      c.status.providerID
        ? [c.status.providerID]
        : [],
    ),
  );
  if (held.size === 0 && !snapshot.nodes.some((n) => n.deleting)) return snapshot;
  const moving: Pod[] = [];
  const leaving = new Set(snapshot.podsLeaving);
  const nodes = snapshot.nodes.map((node) => {
    if (!node.deleting && (!node.providerID || !held.has(node.providerID))) return node;
    // Their pods are counted once, as pending; DaemonSet pods stay with their node.
    const pods = node.pods.filter(isReschedulable);
    moving.push(...pods.map((p) => ({ ...p, nodeName: undefined })));
    if (pods.length > 0) leaving.add(node.name);
    return { ...node, unschedulable: true, pods: node.pods.filter((p) => !isReschedulable(p)) };
  });
  return { ...snapshot, nodes, pendingPods: [...snapshot.pendingPods, ...moving], podsLeaving: leaving };
}

/**
 * How long a started command may wait for its replacements (queue.go `GetMaxRetryDuration`): 80 ms
 * per candidate of every command in flight, within 10 minutes and an hour — many commands mean
 * more cloud traffic and slower launches.
 */
export function commandTimeoutMs(candidatesInFlight: number): number {
  return Math.min(
    MAX_COMMAND_TIMEOUT_MS,
    Math.max(MIN_COMMAND_TIMEOUT_MS, COMMAND_TIMEOUT_SCALE_MS * candidatesInFlight),
  );
}

/**
 * When the command started (queue.go `cmd.CreationTimestamp`, set as `StartCommand` runs): the
 * earliest `DisruptionReason` its candidates carry; undefined while none does (not started).
 */
export function commandStartedAt(candidates: readonly Pick<NodeClaim, 'status'>[]): number | undefined {
  const times = candidates.flatMap((c) =>
    (c.status.conditions ?? [])
      .filter((k) => k.type === DISRUPTION_REASON && k.status === 'True')
      .map((k) => Date.parse(k.lastTransitionTime)),
  );
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** Why a started command must not delete its candidates now, and whether it may wait. */
export interface DeleteHold {
  readonly why: string;
  /**
   * Only a PodDisruptionBudget allows no eviction: often a moment in a rollout, so the command
   * keeps its replacements and waits, within its timeout, rather than leave them empty.
   */
  readonly wait: boolean;
}

/**
 * The last check before a started command deletes its candidates, once its replacements are up:
 * why it must not, or undefined. The taint kept new pods off, so what can still change is what
 * a pod tolerating it, a person or the cluster did: a candidate gone or no longer a candidate,
 * newly blocked (do-not-disrupt, a PodDisruptionBudget at 0, for its method), or, for an emptiness
 * or drift command that deletes without replacing, no longer empty. Only a PodDisruptionBudget at
 * 0 is waited for. Karpenter's `waitOrTerminate` deletes without looking, and its drain then waits
 * for the budget with the node already going (node/termination/terminator `Drain`).
 */
export function whyNotDeleteNow(
  command: DisruptionCommand,
  snapshot: ClusterSnapshot,
): DeleteHold | undefined {
  const byName = new Map(disruptionCandidates(snapshot).map((c) => [c.claim.name, c]));
  let unbudgeted: Map<string, Candidate> | undefined;
  let waitFor: DeleteHold | undefined;
  for (const name of command.candidates) {
    const c = byName.get(name);
    if (!c) return { why: `NodeClaim ${name} is no longer a disruption candidate`, wait: false };
    const blocked = blockedFor(c, command.method);
    if (blocked) {
      unbudgeted ??= new Map(
        disruptionCandidates({ ...snapshot, podDisruptionBudgets: [] }).map((u) => [u.claim.name, u]),
      );
      // PodDisruptionBudgets block a candidate but never make or unmake one: it is there too.
      if (blockedFor(unbudgeted.get(name) as Candidate, command.method)) return { why: blocked, wait: false };
      waitFor ??= { why: blocked, wait: true };
    }
    // Emptiness and drift delete only empty nodes; a consolidation that deletes moves the pods
    // its simulation placed on the capacity that stays.
    if (command.method !== 'consolidation' && !command.replace && c.pods.length > 0)
      return {
        why: `${c.pods.length} pods landed on NodeClaim ${name} since the command started`,
        wait: false,
      };
  }
  return waitFor;
}

/**
 * NodeClaims marked by a command that is no more (its annotation cleared, a crash between the
 * steps of a cancellation), to unmark: `DisruptionReason` set, no command, not being deleted, not
 * interrupted (interruption cordons with the same taint). controller.go `Reconcile` removes the
 * taint and the condition from every node not in the queue and not marked for deletion.
 */
export function staleDisruptionMarks(snapshot: ClusterSnapshot): NodeClaim[] {
  return snapshot.nodeClaims.filter(
    (c) =>
      !c.deletionTimestamp &&
      !underCommand(c) &&
      c.annotations[ANNOTATIONS.interruption] === undefined &&
      c.status.conditions?.some((k) => k.type === DISRUPTION_REASON) === true,
  );
}
