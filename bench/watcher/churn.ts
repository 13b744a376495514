import type { CapacityChangedDetail } from '../../shared/core/contracts/capacity-changed';
import type { PodsPendingDetail } from '../../shared/core/contracts/pods-pending';
import type { BusEvent, EventPublisherPort } from '../../shared/core/ports/publisher';
import { MemoryListWatch } from '../../sim/fakes/ports/memory-list-watch';
import { VirtualTime } from '../../sim/virtual-time';
import { Watcher } from '../../watcher/watcher';

/** How the cluster churns each second (the issue's measurement: 50 / 20 / 2). */
export interface ChurnRate {
  /** Pods the scheduler marks Unschedulable per second. */
  readonly podsMarkedPerSecond: number;
  /** Bound pods deleted per second. */
  readonly podsDeletedPerSecond: number;
  /** Node changes per second: alternately a node added and a node removed. */
  readonly nodesChangedPerSecond: number;
}

/** The issue's churn: 50 pods marked unschedulable, 20 deleted and 2 nodes changed every second. */
export const ISSUE_CHURN: ChurnRate = {
  podsMarkedPerSecond: 50,
  podsDeletedPerSecond: 20,
  nodesChangedPerSecond: 2,
};

/** The watcher's batching settings under test. */
export interface BatchingSettings {
  readonly batchIdleMs: number;
  readonly batchMaxMs: number;
  readonly podsPendingMaxMs: number;
  readonly podsPendingLeading: boolean;
  readonly capacityRidesAlong: boolean;
}

/** Karpenter's plain window on both detail types: what the watcher did before the leading edge. */
export const PLAIN_WINDOW: BatchingSettings = {
  batchIdleMs: 1000,
  batchMaxMs: 10_000,
  podsPendingMaxMs: 10_000,
  podsPendingLeading: false,
  capacityRidesAlong: false,
};

/** Options of {@link runWatcherChurn}. */
export interface ChurnOptions {
  readonly settings: Partial<BatchingSettings>;
  readonly rate?: ChurnRate;
  /** Virtual seconds of churn measured. @default 60 */
  readonly seconds?: number;
  /** Virtual seconds of churn before measuring, so the windows are in their steady state. @default 20 */
  readonly warmUpSeconds?: number;
}

/** What a churn run measured, on the virtual clock. */
export interface ChurnOutcome {
  /** Per pod marked during the measured span: virtual ms from marked to its PodsPending publish. */
  readonly hintLatenciesMs: readonly number[];
  /** Pods marked during the span that no publish carried (must be 0). */
  readonly unpublished: number;
  /** PutEvents calls made during the span, per minute. */
  readonly putEventsPerMinute: number;
  /** Events (entries) put during the span, per minute, by detail type. */
  readonly eventsPerMinute: Readonly<Record<'PodsPending' | 'CapacityChanged', number>>;
  /** Capacity changes made over the whole run (warm-up included). */
  readonly capacityChangesMade: number;
  /** Capacity changes the whole run's CapacityChanged events counted (must equal the above). */
  readonly capacityChangesPublished: number;
}

interface Call {
  readonly at: number;
  readonly events: readonly BusEvent[];
}

/**
 * Runs the real {@link Watcher} on a virtual clock against in-memory pods and nodes that churn at
 * `rate`, the changes spread evenly over each second as watch events arrive from a busy API
 * server, and measures how long each pending pod waited for its `PodsPending` hint and how many
 * PutEvents calls that took. Deterministic: the same options give the same figures.
 */
export async function runWatcherChurn(options: ChurnOptions): Promise<ChurnOutcome> {
  const rate = options.rate ?? ISSUE_CHURN;
  const seconds = options.seconds ?? 60;
  const warmUp = options.warmUpSeconds ?? 20;
  const total = seconds + warmUp;
  const time = new VirtualTime();
  const start = time.now();
  const pods = new MemoryListWatch();
  const nodes = new MemoryListWatch();
  const empty = () => new MemoryListWatch();
  const calls: Call[] = [];
  const publisher: EventPublisherPort = {
    async publish(events) {
      calls.push({ at: time.now(), events });
    },
  };

  // Pods waiting for the scheduler, bound pods to delete, and nodes, all there before the start.
  const waiting = total * rate.podsMarkedPerSecond;
  for (let i = 0; i < waiting; i++) pods.put(podObject(`pending-${i}`, false));
  const bound = total * rate.podsDeletedPerSecond;
  for (let i = 0; i < bound; i++)
    pods.put({ ...podObject(`bound-${i}`, false), spec: { nodeName: 'node-0' } });
  for (let i = 0; i < 100; i++) nodes.put(nodeObject(`node-${i}`));

  const watcher = new Watcher({
    cluster: 'bench',
    sources: { pods, nodes, nodepools: empty(), ec2nodeclasses: empty(), nodeclaims: empty() },
    publisher,
    clock: time,
    timers: time,
    ...options.settings,
  });
  watcher.start();
  await time.advanceAsync(0);
  if (pods.openWatches !== 1 || nodes.openWatches !== 1)
    throw new Error('runWatcherChurn: the watcher did not open its pod and node watches');

  const markedAt = new Map<string, number>();
  const changes = churnSchedule(rate);
  const measureFrom = start + warmUp * 1000;
  let marked = 0;
  let deleted = 0;
  let nodeSerial = 100;
  let nodeToRemove = 0;
  for (let second = 0; second < total; second++) {
    for (let i = 0; i < changes.length; i++) {
      const at = start + second * 1000 + Math.floor((i * 1000) / changes.length);
      await time.advanceAsync(at - time.now());
      const change = changes[i];
      if (change === 'mark') {
        const name = `pending-${marked++}`;
        pods.put(podObject(name, true));
        if (at >= measureFrom) markedAt.set(`uid-${name}`, at);
      } else if (change === 'delete') pods.delete(`default/bound-${deleted++}`);
      else if ((nodeSerial + nodeToRemove) % 2 === 0) nodes.put(nodeObject(`node-${nodeSerial++}`));
      else nodes.delete(`node-${nodeToRemove++}`);
    }
  }
  const end = start + total * 1000;
  // Publishes of changes made in the span may come up to a maximum later.
  await time.advanceAsync(end - time.now() + 60_000);
  await watcher.stop();

  const latencies: number[] = [];
  let capacityChangesPublished = 0;
  const inSpan = calls.filter((c) => c.at >= measureFrom && c.at < end);
  for (const call of calls) {
    for (const event of call.events) {
      if (event.detailType === 'PodsPending') {
        for (const pod of (event.detail as PodsPendingDetail).pods) {
          const at = markedAt.get(pod.uid);
          if (at === undefined) continue;
          latencies.push(call.at - at);
          markedAt.delete(pod.uid);
        }
      } else {
        const reasons = (event.detail as CapacityChangedDetail).reasons;
        for (const tally of Object.values(reasons)) capacityChangesPublished += tally?.count ?? 0;
      }
    }
  }
  const perMinute = (n: number) => (n * 60) / seconds;
  const entries = (type: string) =>
    inSpan.flatMap((c) => c.events).filter((e) => e.detailType === type).length;
  return {
    hintLatenciesMs: latencies.sort((a, b) => a - b),
    unpublished: markedAt.size,
    putEventsPerMinute: perMinute(inSpan.length),
    eventsPerMinute: {
      PodsPending: perMinute(entries('PodsPending')),
      CapacityChanged: perMinute(entries('CapacityChanged')),
    },
    capacityChangesMade: total * (rate.podsDeletedPerSecond + rate.nodesChangedPerSecond),
    capacityChangesPublished,
  };
}

/** The `q` quantile (0–1) of ascending `sorted`, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** One second's changes, interleaved so each kind is spread over the second. */
function churnSchedule(rate: ChurnRate): ('mark' | 'delete' | 'node')[] {
  const kinds: ['mark' | 'delete' | 'node', number][] = [
    ['mark', rate.podsMarkedPerSecond],
    ['delete', rate.podsDeletedPerSecond],
    ['node', rate.nodesChangedPerSecond],
  ];
  const slots = kinds.flatMap(([kind, count]) =>
    Array.from({ length: count }, (_, i) => ({ kind, position: (i + 0.5) / count })),
  );
  return slots.sort((a, b) => a.position - b.position).map((s) => s.kind);
}

function podObject(name: string, unschedulable: boolean) {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {},
    status: {
      phase: 'Pending',
      conditions: unschedulable ? [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] : [],
    },
  };
}

function nodeObject(name: string) {
  return {
    metadata: { name, uid: `uid-${name}` },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
