import {
  claimsByInstance,
  decideInterruption,
  type InterruptionDecision,
} from '../../shared/core/interruption/decide';
import { classifyInterruption } from '../../shared/core/interruption/messages';
import type { CapacityType } from '../../shared/core/model/capacity-type';
import { ANNOTATIONS, DISRUPTED_TAINT } from '../../shared/core/model/labels';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import { runProvisioner } from '../provisioner/loop';
import type { LoopRuntime } from '../runtime';

/** One SQS message: its id (for `batchItemFailures`) and body. */
export interface QueueMessage {
  readonly messageId: string;
  readonly body: string;
}

/** A message's decisions, kept until its replacement capacity is launched. */
interface Handled {
  readonly messageId: string;
  readonly decisions: readonly InterruptionDecision[];
}

/**
 * Handles a batch of interruption messages; returns the ids of the messages to deliver again.
 *
 * Step one, per message: classify it, find this cluster's NodeClaims it names, mark the
 * interrupted offering unavailable, cordon the Node (`karpenter.sh/disrupted:NoSchedule`, which
 * also makes the provisioner treat its pods as needing a new home) and record the interruption
 * on the NodeClaim. Step two, once for the batch: a provisioner run launches the replacement
 * capacity (the offering excluded), so the pods have somewhere to go inside the two minutes.
 * Step three: the NodeClaims are deleted, which hands the Nodes to termination's drain. A message
 * whose replacement could not run (the Lease held elsewhere, a transient error) is delivered
 * again; everything it did is idempotent. Messages about other clusters' instances, unknown
 * kinds and malformed bodies are acknowledged with a log line and a metric.
 */
export async function runInterruption(
  runtime: LoopRuntime,
  invocation: Invocation,
  messages: readonly QueueMessage[],
  handleEach: (
    messages: readonly QueueMessage[],
    handle: (m: QueueMessage) => Promise<Handled>,
  ) => Promise<string[]>,
): Promise<string[]> {
  const claims = await runtime.ports.cluster.nodeClaims();
  const byInstance = claimsByInstance(claims.items);
  const handled: Handled[] = [];
  const failed = await handleEach(messages, async (message) => {
    const result = await handleMessage(runtime, invocation, message, byInstance);
    handled.push(result);
    return result;
  });
  const replacing = handled.filter((h) => h.decisions.some((d) => d.replace));
  if (replacing.length > 0) {
    const run = await runProvisioner(runtime, invocation);
    if (!run.ran) {
      invocation.log.info('replacement capacity waits for the cluster Lease; the messages come back', {
        messages: replacing.length,
      });
      return [...failed, ...replacing.map((h) => h.messageId)];
    }
  }
  const retry: string[] = [];
  for (const h of handled) {
    try {
      for (const d of h.decisions) if (d.deleteNodeClaim) await deleteClaim(runtime, invocation, d);
    } catch (error) {
      retry.push(h.messageId);
      invocation.log.warn('deleting an interrupted NodeClaim failed; the message comes back', {
        error: String(error),
      });
    }
  }
  return [...failed, ...retry];
}

async function handleMessage(
  runtime: LoopRuntime,
  invocation: Invocation,
  message: QueueMessage,
  byInstance: ReadonlyMap<string, NodeClaim>,
): Promise<Handled> {
  const classified = classifyInterruption(message.body);
  invocation.metrics.add(METRICS.interruptionMessages, 'Count', 1, { kind: classified.kind });
  if (classified.kind === 'unknown' || classified.kind === 'no-action') {
    invocation.log.info('acknowledging an interruption message without action', {
      messageId: message.messageId,
      kind: classified.kind,
      why: classified.why,
    });
    return { messageId: message.messageId, decisions: [] };
  }
  const decisions = decideInterruption(
    classified,
    byInstance,
    runtime.ports.config.rebalanceAction,
    invocation.time.now(),
  );
  if (decisions.length === 0) {
    invocation.log.info('no NodeClaim of this cluster is named; acknowledging', {
      messageId: message.messageId,
      kind: classified.kind,
      instanceIds: classified.instanceIds,
    });
  }
  for (const decision of decisions) await act(runtime, invocation, decision, classified.kind);
  return { messageId: message.messageId, decisions };
}

/** Step one for one NodeClaim: mark, cordon and record, and tell with an Event. */
async function act(
  runtime: LoopRuntime,
  invocation: Invocation,
  d: InterruptionDecision,
  kind: string,
): Promise<void> {
  const { cluster, events } = runtime.ports;
  if (d.unavailable) {
    const { instanceType, zone, capacityType } = d.unavailable;
    runtime.unavailable.mark(instanceType, zone, capacityType as CapacityType, kind);
  }
  if (d.cordon) {
    if (d.node) await cluster.taintNode(d.node, { add: [DISRUPTED_TAINT] });
    await cluster.patchNodeClaimMetadata(d.nodeClaim, {
      annotations: { [ANNOTATIONS.interruption]: d.cordon.annotation },
    });
  }
  // On the NodeClaim and its Node, as Karpenter's notifyForMessage; an Event never fails the message.
  const objects = [
    { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: d.nodeClaim },
    ...(d.node ? [{ apiVersion: 'v1', kind: 'Node', name: d.node }] : []),
  ];
  for (const object of objects) await events.record({ object, ...d.event }).catch(() => undefined);
  invocation.log.info('interruption', {
    kind,
    nodeClaim: d.nodeClaim,
    ...(d.node ? { node: d.node } : {}),
    replace: d.replace,
  });
}

async function deleteClaim(
  runtime: LoopRuntime,
  invocation: Invocation,
  d: InterruptionDecision,
): Promise<void> {
  await runtime.ports.cluster.deleteNodeClaim(d.nodeClaim);
  invocation.log.info('deleted interrupted NodeClaim; termination drains it', { nodeClaim: d.nodeClaim });
}
