import { ANNOTATIONS, DISRUPTED_TAINT, LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS } from '../model/labels';
import type { Condition, NodeClaim } from '../model/nodeclaim';
import type { ConditionUpdate, VolumeAttachment } from '../ports/cluster';
import type { StateNode } from '../state/cluster-state';
import type { TerminationAction, TerminationInput } from './actions';
import {
  DEFAULT_POD_GRACE_SECONDS,
  forceDeleteGracePeriodSeconds,
  isDrainable,
  planDrain,
  podRef,
} from './drain';
import {
  awaitingVolumeDetachment,
  failedDraining,
  nodeGracePeriodExpiring,
  podDeletedForDeadline,
} from './events';

/**
 * A deleting NodeClaim's Node on its way out, as kubernetes-sigs/karpenter
 * pkg/controllers/node/termination/controller.go `finalize` takes it: taint (and label) it,
 * `awaitDrain`, then `awaitVolumeDetachment`, recording the NodeClaim's `Drained` and
 * `VolumesDetached` conditions as it goes; instance termination follows in decide.ts.
 */

/** What a Node's termination step reads. */
export interface NodeTerminationInput extends Omit<TerminationInput, 'instances'> {
  readonly claim: NodeClaim;
  readonly node: StateNode;
  /** The node's termination time (the NodeClaim's terminationGracePeriod), if it has one. */
  readonly deadline: number | undefined;
}

/** What one step does, and whether the Node is drained and its volumes detached (instance termination may go on). */
export interface NodeTerminationStep {
  readonly actions: readonly TerminationAction[];
  readonly done: boolean;
}

/** The next step of `input.node`'s termination. */
export function nodeTerminationStep(input: NodeTerminationInput): NodeTerminationStep {
  const { claim, node, deadline, now } = input;
  const actions: TerminationAction[] = [];
  const conditions: ConditionUpdate[] = [];
  const finish = (done: boolean): NodeTerminationStep => {
    const changes = conditions.filter((c) => conditionChanges(claim, c));
    if (changes.length > 0)
      actions.push({ kind: 'set-conditions', nodeClaim: claim.name, conditions: changes });
    return { actions, done };
  };
  // terminator.go `Taint`: the taint and the exclude-from-external-load-balancers label together.
  const tainted = node.taints.some(
    (t) => t.key === DISRUPTED_TAINT.key && t.effect === DISRUPTED_TAINT.effect,
  );
  if (!tainted || node.labels[LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS] === undefined)
    actions.push({ kind: 'taint-node', node: node.name });
  const recorded = claim.annotations[ANNOTATIONS.terminationTimestamp];
  if (recorded) actions.push({ kind: 'record-event', event: nodeGracePeriodExpiring(node.name, recorded) });

  // controller.go `awaitDrain`.
  const drained = condition(claim, 'Drained');
  if (!drained)
    conditions.push({ type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' });
  const plan = planDrain(node.pods, deadline, now);
  if (plan.waiting.length > 0) {
    if (plan.forceDelete.length > 0 && deadline !== undefined) {
      const grace = forceDeleteGracePeriodSeconds(deadline, now);
      actions.push({
        kind: 'delete-pods',
        node: node.name,
        pods: plan.forceDelete.map((p) => ({ ...podRef(p), gracePeriodSeconds: grace })),
      });
      for (const pod of plan.forceDelete) {
        const podGrace = pod.terminationGracePeriodSeconds ?? DEFAULT_POD_GRACE_SECONDS;
        actions.push({ kind: 'record-event', event: podDeletedForDeadline(pod, grace, deadline, podGrace) });
      }
    }
    if (plan.evict.length > 0)
      actions.push({
        kind: 'evict',
        node: node.name,
        pods: plan.evict.map(podRef),
        reason: evictionReason(claim),
      });
    const why = `${plan.waiting.length} pods are waiting to be evicted`;
    actions.push({ kind: 'record-event', event: failedDraining(node.name, why) });
    return finish(false);
  }
  // controller.go holds Drained Unknown for `MinDrainTime` (5 s, requeueing every second) so that
  // pods a scheduler still unaware of the taint binds are seen. podlift has no requeue: the
  // verdict comes from a later invocation (an event or the schedule) that lists the Node's pods
  // afresh from the API server, after the run that tainted it and set Drained Unknown. A 5 s
  // wait would cost up to a minute here, until the schedule runs termination again.
  if (!drained) return finish(false);
  conditions.push({ type: 'Drained', status: 'True' });

  // controller.go `awaitVolumeDetachment`.
  const pending = pendingVolumeAttachments(input);
  if (pending.length === 0) {
    conditions.push({ type: 'VolumesDetached', status: 'True' });
    return finish(true);
  }
  if (deadline === undefined || now <= deadline) {
    actions.push({ kind: 'record-event', event: awaitingVolumeDetachment(node.name, pending) });
    const reason = 'AwaitingVolumeDetachment';
    conditions.push({ type: 'VolumesDetached', status: 'Unknown', reason, message: reason });
    return finish(false);
  }
  const reason = 'TerminationGracePeriodElapsed';
  conditions.push({ type: 'VolumesDetached', status: 'False', reason, message: reason });
  return finish(true);
}

/**
 * The VolumeAttachments of the Node that hold its termination (controller.go
 * `pendingVolumeAttachments`, `filterVolumeAttachments`): those of a PersistentVolume, except the
 * volumes of pods the drain does not move (their claims' volumes: such a pod keeps its volume
 * until the node goes).
 */
export function pendingVolumeAttachments(input: NodeTerminationInput): VolumeAttachment[] {
  const { node, now } = input;
  const attached = (input.volumeAttachments ?? []).filter((a) => a.nodeName === node.name);
  if (attached.length === 0) return [];
  const kept = new Set<string>();
  for (const pod of node.pods) {
    if (isDrainable(pod, now)) continue;
    for (const claim of pod.volumeClaims ?? []) {
      const volume = input.claimedVolumes?.get(`${pod.namespace}/${claim}`);
      if (volume) kept.add(volume);
    }
  }
  return attached.filter((a) => a.persistentVolumeName !== undefined && !kept.has(a.persistentVolumeName));
}

/**
 * Whether {@link pendingVolumeAttachments} needs the claims' volumes: some deleting Node has
 * attachments and a pod the drain does not move that mounts a claim. Saves listing every
 * PersistentVolumeClaim on the runs (nearly all) where nothing depends on it.
 */
export function needsClaimedVolumes(
  nodes: readonly StateNode[],
  attachments: readonly VolumeAttachment[],
  now: number,
): boolean {
  const attachedTo = new Set(attachments.map((a) => a.nodeName));
  return nodes.some(
    (n) =>
      attachedTo.has(n.name) && n.pods.some((p) => (p.volumeClaims?.length ?? 0) > 0 && !isDrainable(p, now)),
  );
}

/** Karpenter's eviction reason (eviction.go `evictionReason`): the DisruptionReason condition's reason, else a forceful termination. */
function evictionReason(claim: NodeClaim): string {
  const reason = condition(claim, 'DisruptionReason');
  return reason?.status === 'True' ? reason.reason : 'Forceful Termination';
}

function condition(claim: NodeClaim, type: string): Condition | undefined {
  return claim.status.conditions?.find((c) => c.type === type);
}

/** Whether setting `update` changes the NodeClaim's condition (status, or reason when given). */
function conditionChanges(claim: NodeClaim, update: ConditionUpdate): boolean {
  const current = condition(claim, update.type);
  if (!current || current.status !== update.status) return true;
  return (update.reason ?? (update.status === 'True' ? update.type : current.reason)) !== current.reason;
}
