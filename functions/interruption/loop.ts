import * as z from 'zod';
import {
  claimsByInstance,
  decideInterruption,
  type InterruptionDecision,
  type InterruptionEvent,
  onNode,
  TERMINATING_ON_INTERRUPTION_EVENT,
} from '../../shared/core/interruption/decide';
import { classifyInterruption, type InterruptionMessage } from '../../shared/core/interruption/messages';
import { isNotFoundError } from '../../shared/core/model/errors';
import { ANNOTATIONS, DISRUPTED_TAINT } from '../../shared/core/model/labels';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import { sleep } from '../../shared/core/ports/time';
import { type Invocation, remainingMs } from '../invocation';
import { LEASE_TIMING } from '../lease';
import { METRICS } from '../observability';
import { runProvisioner } from '../provisioner/loop';
import { retryTransient } from '../retry';
import type { LoopRuntime } from '../runtime';
import { startDrains } from './drain';

/**
 * Runs `handle` once per record and returns the ids of the records it threw for (Powertools'
 * BatchProcessor in the handler), so that a record fails only itself.
 */
export type EachRecord = (
  records: readonly unknown[],
  handle: (record: unknown) => Promise<void>,
) => Promise<string[]>;

/** An SQS record as the interruption loop reads it: its id (for `batchItemFailures`) and body. */
const queueRecord = z.object({ messageId: z.string().min(1), body: z.string() });

/**
 * Handles a batch of interruption queue records; returns the ids of the records to deliver again.
 *
 * Per record, without the cluster Lease: classify it, find this cluster's NodeClaims it names,
 * mark a spot warning's spot offering unavailable, cordon the Node
 * (`karpenter.sh/disrupted:NoSchedule`, which also makes every provisioner run treat its pods as
 * needing a new home), record the interruption on the NodeClaim, record Karpenter's Event and
 * delete the NodeClaim (Karpenter's `handleNodeClaim`, aws/karpenter-provider-aws
 * pkg/controllers/interruption/utils.go). A record whose handling throws (a transient API error)
 * fails alone and comes back; every step is idempotent, and a NodeClaim already deleting is not
 * deleted twice.
 *
 * Once per batch: the marks are saved where the other loops read them; a provisioner run
 * launches the replacement capacity for the interrupted nodes' pods, planned while they still run
 * on the tainted nodes; then the drain of every NodeClaim the batch names that is deleting and
 * not yet draining begins here (drain.ts), as Karpenter's termination controller begins it the
 * moment its watch sees the deletion, not at termination's next run (the watcher's hint, which
 * can be lost, or its one-minute schedule). Only the launch needs the Lease: while another
 * invocation holds it the drain goes first, and the run is tried again while the invocation has
 * time. When the Lease stays held elsewhere (or the run fails) the records are acknowledged all
 * the same: Karpenter's interruption controller never launches, it deletes the NodeClaim and
 * leaves the pods to its provisioner, and podlift's provisioner finds the evicted pods' copies in
 * its next run (their PodsPending hints, or the one-minute schedule). A redelivery would not
 * help: it would find the NodeClaim deleting and its drain begun.
 *
 * A record that can never succeed — no body, a body that is not an event, an unknown kind —
 * is acknowledged with a log line and counted in `InterruptionMessages` as `unknown`, as
 * Karpenter's controller deletes a message it cannot parse (`Reconcile`: "failed parsing
 * interruption message", then `deleteMessage`). Messages about other clusters' instances are
 * acknowledged too.
 */
export async function runInterruption(
  runtime: LoopRuntime,
  invocation: Invocation,
  records: readonly unknown[],
  eachRecord: EachRecord,
): Promise<string[]> {
  const claims = await runtime.ports.cluster.nodeClaims();
  const byInstance = claimsByInstance(claims.items);
  const acted: InterruptionDecision[] = [];
  const failed = await eachRecord(records, (record) =>
    handleRecord(runtime, invocation, record, byInstance, acted),
  );
  await keepMarks(runtime, invocation, acted);
  // The first provisioner run plans with the interrupted nodes' pods still on them; the drain
  // begins after it, and never waits for the Lease (a later run finds the evicted pods' copies).
  // Only NodeClaims being deleted can need it: a rebalance recommendation's Event reads nothing more.
  const deleting = new Set(claims.items.filter((c) => c.deletionTimestamp).map((c) => c.name));
  const draining = acted.filter((d) => d.deleteNodeClaim || deleting.has(d.nodeClaim));
  const waiting = await launchReplacements(runtime, invocation, acted, { waitForLease: false });
  await startDrains(runtime, invocation, new Set(draining.map((d) => d.nodeClaim)));
  if (waiting) await launchReplacements(runtime, invocation, acted, { waitForLease: true });
  return failed;
}

async function handleRecord(
  runtime: LoopRuntime,
  invocation: Invocation,
  record: unknown,
  byInstance: ReadonlyMap<string, NodeClaim>,
  acted: InterruptionDecision[],
): Promise<void> {
  const parsed = queueRecord.safeParse(record);
  const messageId = parsed.success ? parsed.data.messageId : messageIdOf(record);
  const classified: InterruptionMessage = parsed.success
    ? classifyInterruption(parsed.data.body)
    : { kind: 'unknown', why: 'not an SQS record with a messageId and a string body' };
  invocation.metrics.add(METRICS.interruptionMessages, 'Count', 1, { kind: classified.kind });
  if (classified.kind === 'unknown') {
    invocation.log.warn('acknowledging an interruption message that can never be handled', {
      messageId,
      why: classified.why,
    });
    return;
  }
  if (classified.kind === 'no-action') {
    invocation.log.info('acknowledging an interruption message without action', {
      messageId,
      why: classified.why,
    });
    return;
  }
  const decisions = decideInterruption(
    classified,
    byInstance,
    runtime.ports.config.rebalanceAction,
    invocation.time.now(),
  );
  if (decisions.length === 0) {
    invocation.log.info('no NodeClaim of this cluster is named; acknowledging', {
      messageId,
      kind: classified.kind,
      instanceIds: classified.instanceIds,
    });
  }
  for (const decision of decisions) {
    await act(runtime, invocation, decision, classified.kind);
    acted.push(decision);
  }
}

/** The messageId of a record that did not parse, for its log line. */
function messageIdOf(record: unknown): string | undefined {
  const id = (record as { messageId?: unknown } | null | undefined)?.messageId;
  return typeof id === 'string' ? id : undefined;
}

/** One NodeClaim: mark, cordon and record, tell with an Event, delete — none of it needs the Lease. */
async function act(
  runtime: LoopRuntime,
  invocation: Invocation,
  d: InterruptionDecision,
  kind: string,
): Promise<void> {
  const { cluster, events } = runtime.ports;
  if (d.unavailable) {
    const { instanceType, zone, capacityType } = d.unavailable;
    runtime.unavailable.mark(instanceType, zone, capacityType, kind);
  }
  // A transient refusal (a 5xx, throttling) is tried again at once, client-go's DefaultBackoff:
  // failed, the record would come back only after the queue's visibility timeout, 30 s of the
  // two minutes a spot warning gives. Every write here is safe to repeat.
  const retried = <T>(write: () => Promise<T>) => retryTransient(invocation.time, write);
  if (d.cordon) {
    const { node } = d;
    // Objects gone meanwhile (termination got there first) need no cordon: Karpenter's IgnoreNotFound.
    if (node) await ignoreNotFound(retried(() => cluster.taintNode(node, { add: [DISRUPTED_TAINT] })));
    const annotation = d.cordon.annotation;
    await ignoreNotFound(
      retried(() =>
        cluster.patchNodeClaimMetadata(d.nodeClaim, {
          annotations: { [ANNOTATIONS.interruption]: annotation },
        }),
      ),
    );
  }
  // On the NodeClaim and its Node, as Karpenter's notifyForMessage; an Event never fails the message.
  const objects = [
    { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: d.nodeClaim },
    ...(d.node ? [{ apiVersion: 'v1', kind: 'Node', name: d.node }] : []),
  ];
  const record = async (event: InterruptionEvent) => {
    for (const object of objects)
      await events
        .record({ object, ...(object.kind === 'Node' ? onNode(event) : event) })
        .catch(() => undefined);
  };
  await record(d.event);
  invocation.log.info('interruption', {
    kind,
    nodeClaim: d.nodeClaim,
    ...(d.node ? { node: d.node } : {}),
    replace: d.replace,
  });
  if (d.deleteNodeClaim) {
    // utils.go `deleteNodeClaim`: the Event only when the delete went through, not for one gone.
    if (await retried(() => cluster.deleteNodeClaim(d.nodeClaim)))
      await record(TERMINATING_ON_INTERRUPTION_EVENT);
    invocation.log.info('deleted interrupted NodeClaim; termination drains it', { nodeClaim: d.nodeClaim });
  }
}

async function ignoreNotFound(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!isNotFoundError(error)) throw error;
  }
}

/**
 * Saves the batch's marks with the Lease object's unavailable offerings (merged with concurrent
 * savers', so no Lease hold is needed), so the other loops and containers skip the reclaimed spot
 * offering even when no provisioner run follows here. The marks stay in this container either way.
 */
async function keepMarks(
  runtime: LoopRuntime,
  invocation: Invocation,
  acted: readonly InterruptionDecision[],
): Promise<void> {
  if (!acted.some((d) => d.unavailable)) return;
  try {
    await runtime.ports.lease.saveUnavailableOfferings(runtime.unavailable.list());
  } catch (error) {
    invocation.log.warn('saving the unavailable offerings failed; this container keeps them', {
      error: String(error),
    });
  }
}

/**
 * What the interruption function keeps of its time for a provisioner run (reads, CreateFleet,
 * NodeClaim writes) when it waits for the cluster Lease: it stops waiting this long before its
 * deadline.
 */
export const REPLACEMENT_RUN_RESERVE_MS = 10_000;

/**
 * One provisioner run for the interrupted nodes' pods; whether it is still to come because
 * another invocation holds the Lease. With `waitForLease` it tries again at client-go's retry
 * period (a live holder releases within seconds, a crashed one's hold lapses within its 15 s) as
 * long as the invocation keeps {@link REPLACEMENT_RUN_RESERVE_MS} for the run: the hints that
 * came while the Lease was held are gone, so otherwise the replacement would wait for the
 * provisioner's next scheduled run, up to a minute of the two-minute notice. The NodeClaims are
 * deleted already; this only waits to launch.
 */
async function launchReplacements(
  runtime: LoopRuntime,
  invocation: Invocation,
  acted: readonly InterruptionDecision[],
  { waitForLease }: { readonly waitForLease: boolean },
): Promise<boolean> {
  const interrupted = acted.filter((d) => d.replace).map((d) => d.nodeClaim);
  if (interrupted.length === 0) return false;
  try {
    for (;;) {
      if ((await runProvisioner(runtime, invocation)).ran) return false;
      if (!waitForLease) return true;
      if (remainingMs(invocation) < LEASE_TIMING.retryPeriodMs + REPLACEMENT_RUN_RESERVE_MS) break;
      await sleep(invocation.time, LEASE_TIMING.retryPeriodMs);
    }
    invocation.log.info(
      "replacement capacity is left to the provisioner's next run: the Lease is held elsewhere",
      {
        nodeClaims: interrupted,
      },
    );
  } catch (error) {
    invocation.log.warn("launching replacement capacity failed; the provisioner's next run finds the pods", {
      nodeClaims: interrupted,
      error: String(error),
    });
  }
  return false;
}
