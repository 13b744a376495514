import { durationMs } from '../model/duration';
import { ANNOTATIONS, DISRUPTED_TAINT } from '../model/labels';
import { conditionIsTrue, type NodeClaim, parseProviderID } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import type { CloudInstance } from '../ports/cloud';
import type { PodRef } from '../ports/cluster';
import type { StateNode } from '../state/cluster-state';
import { needsEviction, nextEvictionGroup, podRef } from './drain';

/**
 * Termination and garbage collection as pure decisions (kubernetes-sigs/karpenter
 * pkg/controllers/node/termination, pkg/controllers/nodeclaim/lifecycle termination and
 * pkg/controllers/nodeclaim/garbagecollection): from the cluster and the cloud's instances at
 * `now`, the next step of every NodeClaim and Node on its way out, one step per run, each safe
 * to repeat.
 */

/** NodeClaims not launched this long after creation are given up on (Karpenter: 5 minutes). */
export const LAUNCH_TTL_MS = 5 * 60_000;
/** Launched NodeClaims whose Node has not registered this long after creation (Karpenter: 15 minutes). */
export const REGISTRATION_TTL_MS = 15 * 60_000;
/** Instances of the cluster without a NodeClaim are left alone this long (Karpenter: 30 seconds). */
export const ORPHAN_GRACE_MS = 30_000;

/** One thing to do. */
export type TerminationAction =
  | { readonly kind: 'delete-nodeclaim'; readonly nodeClaim: string; readonly reason: string }
  | { readonly kind: 'taint-node'; readonly node: string }
  | { readonly kind: 'set-termination-time'; readonly nodeClaim: string; readonly at: string }
  | { readonly kind: 'evict'; readonly node: string; readonly pods: readonly PodRef[] }
  | { readonly kind: 'delete-pods'; readonly node: string; readonly pods: readonly PodRef[] }
  | {
      readonly kind: 'terminate-instance';
      readonly nodeClaim?: string;
      readonly instanceId: string;
      readonly reason: string;
    }
  | { readonly kind: 'finish'; readonly nodeClaim?: string; readonly node?: string };

/** What termination decides from. */
export interface TerminationInput {
  readonly now: number;
  readonly nodes: readonly StateNode[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodePools: readonly NodePool[];
  /** The cluster's instances that are not terminated (shutting-down ones included). */
  readonly instances: readonly CloudInstance[];
}

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
  const claimNames = new Set(input.nodeClaims.map((c) => c.name));
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

function collectReason(
  now: number,
  claim: NodeClaim,
  node: StateNode | undefined,
  instance: CloudInstance | undefined,
) {
  const created = age(now, claim.creationTimestamp);
  if (node?.deleting) return 'its Node is being deleted';
  if (!conditionIsTrue(claim, 'Launched'))
    return created > LAUNCH_TTL_MS ? 'not launched within 5 minutes' : undefined;
  if (!instance && created > ORPHAN_GRACE_MS) return 'its instance is gone';
  if (!conditionIsTrue(claim, 'Registered') && created > REGISTRATION_TTL_MS)
    return 'its Node did not register within 15 minutes';
  return undefined;
}

/** One step of a deleting NodeClaim: drain its Node, terminate its instance, then let both go. */
function terminationStep(
  input: TerminationInput,
  claim: NodeClaim,
  node: StateNode | undefined,
  instance: CloudInstance | undefined,
): TerminationAction[] {
  if (!claim.status.providerID) return [{ kind: 'finish', nodeClaim: claim.name }];
  if (node && !drained(node)) return drainStep(input, claim, node);
  if (instance && instance.state !== 'shutting-down') {
    return [
      {
        kind: 'terminate-instance',
        nodeClaim: claim.name,
        instanceId: instance.id,
        reason: 'NodeClaim deleted',
      },
    ];
  }
  if (instance) return []; // shutting down: wait until EC2 reports it terminated
  return [{ kind: 'finish', nodeClaim: claim.name, ...(node ? { node: node.name } : {}) }];
}

function drained(node: StateNode): boolean {
  return !node.pods.some(needsEviction);
}

function drainStep(input: TerminationInput, claim: NodeClaim, node: StateNode): TerminationAction[] {
  const actions: TerminationAction[] = [];
  if (!node.taints.some((t) => t.key === DISRUPTED_TAINT.key && t.effect === DISRUPTED_TAINT.effect)) {
    actions.push({ kind: 'taint-node', node: node.name });
  }
  const deadline = terminationDeadline(input, claim);
  if (deadline && !claim.annotations[ANNOTATIONS.terminationTimestamp]) {
    actions.push({
      kind: 'set-termination-time',
      nodeClaim: claim.name,
      at: new Date(deadline).toISOString(),
    });
  }
  const waiting = node.pods.filter(needsEviction);
  if (deadline !== undefined && input.now >= deadline) {
    // terminationGracePeriod is over: the pods go whatever their budgets say (Karpenter deletes them).
    actions.push({ kind: 'delete-pods', node: node.name, pods: waiting.map(podRef) });
    return actions;
  }
  const group = nextEvictionGroup(waiting).filter((p) => !p.deleting);
  if (group.length > 0) actions.push({ kind: 'evict', node: node.name, pods: group.map(podRef) });
  return actions;
}

/** When draining stops waiting: deletion + the NodeClaim's (or its NodePool's) terminationGracePeriod. */
function terminationDeadline(input: TerminationInput, claim: NodeClaim): number | undefined {
  const recorded = claim.annotations[ANNOTATIONS.terminationTimestamp];
  if (recorded) return Date.parse(recorded);
  const period =
    claim.spec.terminationGracePeriod ??
    input.nodePools.find((p) => p.name === claim.labels['karpenter.sh/nodepool'])?.template
      .terminationGracePeriod;
  const ms = period ? durationMs(period) : undefined;
  return ms === undefined || !claim.deletionTimestamp ? undefined : Date.parse(claim.deletionTimestamp) + ms;
}
