import { durationMs } from '../model/duration';
import { ANNOTATIONS } from '../model/labels';
import { conditionIsTrue, type NodeClaim, parseProviderID } from '../model/nodeclaim';
import type { CloudInstance } from '../ports/cloud';
import type { StateNode } from '../state/cluster-state';
import type { TerminationAction, TerminationInput } from './actions';
import { claimGracePeriodExpiring } from './events';
import { nodeTerminationStep } from './node-termination';

/**
 * Termination and garbage collection as pure decisions (kubernetes-sigs/karpenter
 * pkg/controllers/node/termination, pkg/controllers/nodeclaim/lifecycle termination and
 * pkg/controllers/nodeclaim/garbagecollection): from the cluster and the cloud's instances at
 * `now`, the next step of every NodeClaim and Node on its way out, one step per run, each safe
 * to repeat.
 */

/**
 * NodeClaims not launched this long after creation are given up on (kubernetes-sigs/karpenter
 * pkg/controllers/nodeclaim/lifecycle/liveness.go `LaunchTimeout`, 5 minutes).
 */
export const LAUNCH_TTL_MS = 5 * 60_000;
/** Launched NodeClaims whose Node has not registered this long after creation (liveness.go `registrationTimeout`, 15 minutes). */
export const REGISTRATION_TTL_MS = 15 * 60_000;
/** Instances of the cluster without a NodeClaim are left alone this long (Karpenter: 30 seconds). */
export const ORPHAN_GRACE_MS = 30_000;

const age = (now: number, timestamp: string | undefined) => (timestamp ? now - Date.parse(timestamp) : 0);

/** Every action due now. */
export function decideTermination(input: TerminationInput): TerminationAction[] {
  const nodeByProvider = new Map(
    input.nodes.flatMap((n) => (n.providerID ? [[n.providerID, n] as const] : [])),
  );
  const instanceById = new Map(input.instances.map((i) => [i.id, i]));
  const actions: TerminationAction[] = [];
  const claimed = new Set<string>();
  for (const claim of input.nodeClaims) {
    const node = claim.status.providerID ? nodeByProvider.get(claim.status.providerID) : undefined;
    if (node) claimed.add(node.name);
    const instanceId = claim.status.providerID
      ? parseProviderID(claim.status.providerID)?.instanceId
      : undefined;
    const instance = instanceId ? instanceById.get(instanceId) : undefined;
    if (claim.deletionTimestamp) actions.push(...terminationStep(input, claim, node, instance));
    else actions.push(...collect(input.now, claim, node, instance));
  }
  for (const node of input.nodes) {
    if (claimed.has(node.name) || !node.nodePool) continue;
    const instanceId = node.providerID ? parseProviderID(node.providerID)?.instanceId : undefined;
    const gone = instanceId !== undefined && !instanceById.has(instanceId);
    if ((node.deleting || gone) && age(input.now, node.creationTimestamp) > ORPHAN_GRACE_MS) {
      actions.push({ kind: 'finish', node: node.name });
    }
  }
  // A NodeClaim that exists but did not validate still owns its instance. Karpenter's
  // garbagecollection/controller.go Reconcile lists every NodeClaim (ListManaged) and collects
  // nothing when the list fails to decode; here only that NodeClaim's instance is kept.
  const claimNames = new Set([...input.nodeClaims.map((c) => c.name), ...(input.unreadableNodeClaims ?? [])]);
  for (const instance of input.instances) {
    if (instance.nodeClaim && claimNames.has(instance.nodeClaim)) continue;
    if (instance.state === 'shutting-down' || instance.launchTime === undefined) continue;
    if (input.now - instance.launchTime <= ORPHAN_GRACE_MS) continue;
    actions.push({ kind: 'terminate-instance', instanceId: instance.id, reason: 'no NodeClaim owns it' });
  }
  return actions;
}

/** Garbage collection of a NodeClaim that is not being deleted. */
function collect(
  now: number,
  claim: NodeClaim,
  node: StateNode | undefined,
  instance: CloudInstance | undefined,
) {
  const reason = collectReason(now, claim, node, instance);
  return reason ? [{ kind: 'delete-nodeclaim' as const, nodeClaim: claim.name, reason }] : [];
}

/**
 * Why a NodeClaim not being deleted is deleted now, if it is: its Node is being deleted
 * (pkg/controllers/node/termination/controller.go `finalize` deletes the NodeClaim of a deleting
 * Node); it did not launch or register in time (pkg/controllers/nodeclaim/lifecycle/liveness.go
 * `Reconcile`, timed here from creation); or it is Registered, the cloud no longer lists its
 * instance and its Node is missing or not Ready — a Ready Node means the kubelet still runs
 * (pkg/controllers/nodeclaim/garbagecollection/controller.go `Reconcile`). A claim launched
 * but not registered is never collected for a missing instance: its registration timeout is.
 */
export function collectReason(
  now: number,
  claim: NodeClaim,
  node: StateNode | undefined,
  instance: CloudInstance | undefined,
): string | undefined {
  const created = age(now, claim.creationTimestamp);
  if (node?.deleting) return 'its Node is being deleted';
  if (!conditionIsTrue(claim, 'Launched'))
    return created > LAUNCH_TTL_MS ? 'not launched within 5 minutes' : undefined;
  if (!conditionIsTrue(claim, 'Registered'))
    return created > REGISTRATION_TTL_MS ? 'its Node did not register within 15 minutes' : undefined;
  if (!instance && node?.ready !== true) return 'its instance is gone';
  return undefined;
}

/**
 * One step of a deleting NodeClaim (pkg/controllers/nodeclaim/lifecycle/controller.go
 * `finalize`): record its termination time, take its Node through termination
 * (node-termination.ts), terminate its instance, and once EC2 no longer lists the instance let
 * both go.
 */
function terminationStep(
  input: TerminationInput,
  claim: NodeClaim,
  node: StateNode | undefined,
  instance: CloudInstance | undefined,
): TerminationAction[] {
  if (!claim.status.providerID) return [{ kind: 'finish', nodeClaim: claim.name }];
  const deadline = terminationDeadline(input, claim);
  const actions = terminationTimeActions(claim, deadline);
  if (node) {
    // node/termination/controller.go `finalize`: a Node that is not Ready and whose instance the
    // cloud no longer has is finalized at once; its kubelet is gone and nothing would drain it.
    if (!instance && node.ready !== true)
      return [...actions, { kind: 'finish', nodeClaim: claim.name, node: node.name }];
    const step = nodeTerminationStep({ ...input, claim, node, deadline });
    actions.push(...step.actions);
    if (!step.done) return actions;
  }
  if (instance && instance.state !== 'shutting-down') {
    actions.push({
      kind: 'terminate-instance',
      nodeClaim: claim.name,
      instanceId: instance.id,
      reason: 'NodeClaim deleted',
    });
    return actions;
  }
  if (instance) return actions; // shutting down: wait until EC2 reports it terminated
  return [...actions, { kind: 'finish', nodeClaim: claim.name, ...(node ? { node: node.name } : {}) }];
}

/**
 * The termination time recorded on a NodeClaim that has a deadline and none recorded yet
 * (lifecycle/controller.go `ensureTerminationGracePeriodTerminationTimeAnnotation`), and its Event.
 */
function terminationTimeActions(claim: NodeClaim, deadline: number | undefined): TerminationAction[] {
  if (deadline === undefined || claim.annotations[ANNOTATIONS.terminationTimestamp]) return [];
  const at = new Date(Math.floor(deadline / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return [
    { kind: 'set-termination-time', nodeClaim: claim.name, at },
    { kind: 'record-event', event: claimGracePeriodExpiring(claim, at) },
  ];
}

/** What {@link decideDrainStart} reads: termination's input without the cloud's instances. */
export type DrainStartInput = Pick<TerminationInput, 'now' | 'nodes' | 'nodeClaims' | 'nodePools'>;

/**
 * The first step of the drain of each named NodeClaim, for the function that has just deleted
 * them and should not leave the drain to termination's next invocation (the interruption
 * function). In Karpenter the deletion sets off its watches at once: the NodeClaim lifecycle
 * controller deletes the Node (nodeclaim/lifecycle/controller.go `finalize`), and the termination
 * controller takes it through `finalize` (node/termination/controller.go: `Taint`, `awaitDrain`);
 * podlift's termination runs on the watcher's hint, which can be lost, or on its schedule, up to
 * a minute of a spot warning's two. Only a NodeClaim being deleted whose Node's drain has not begun (no
 * `Drained` condition yet: from then on termination's own runs carry it), and only the steps of
 * that beginning: the termination time, the taint, the evictions, `Drained` Unknown and their
 * Events. A NodeClaim whose step would delete pods for its termination time is left to
 * termination whole: deleting pods is termination's right alone.
 */
export function decideDrainStart(
  input: DrainStartInput,
  nodeClaims: ReadonlySet<string>,
): TerminationAction[] {
  const nodeByProvider = new Map(
    input.nodes.flatMap((n) => (n.providerID ? [[n.providerID, n] as const] : [])),
  );
  return input.nodeClaims.flatMap((claim) => {
    if (!nodeClaims.has(claim.name) || !claim.deletionTimestamp || !claim.status.providerID) return [];
    if (claim.status.conditions?.some((c) => c.type === 'Drained')) return [];
    const node = nodeByProvider.get(claim.status.providerID);
    if (!node) return [];
    const deadline = terminationDeadline(input, claim);
    const actions = [
      ...terminationTimeActions(claim, deadline),
      ...nodeTerminationStep({ ...input, claim, node, deadline }).actions,
    ];
    return actions.some((a) => a.kind === 'delete-pods') ? [] : actions;
  });
}

/** When draining stops waiting: deletion + the NodeClaim's (or its NodePool's) terminationGracePeriod. */
function terminationDeadline(input: DrainStartInput, claim: NodeClaim): number | undefined {
  const recorded = claim.annotations[ANNOTATIONS.terminationTimestamp];
  if (recorded) return Date.parse(recorded);
  const period =
    claim.spec.terminationGracePeriod ??
    input.nodePools.find((p) => p.name === claim.labels['karpenter.sh/nodepool'])?.template
      .terminationGracePeriod;
  const ms = period ? durationMs(period) : undefined;
  return ms === undefined || !claim.deletionTimestamp ? undefined : Date.parse(claim.deletionTimestamp) + ms;
}
