import {
  CAPACITY_CHANGED_DETAIL_TYPE,
  capacityChangedDetail,
} from '../shared/core/contracts/capacity-changed';
import type { PendingPodRef } from '../shared/core/contracts/pods-pending';
import { PODS_PENDING_DETAIL_TYPE, podsPendingDetail } from '../shared/core/contracts/pods-pending';
import { WATCHER_EVENT_SOURCE } from '../shared/core/contracts/watcher-source';
import type { ListWatchSource } from '../shared/core/ports/list-watch';
import type { EventPublisherPort } from '../shared/core/ports/publisher';
import type { Clock, Timers } from '../shared/core/ports/time';
import { Backoff, type BackoffOptions } from './backoff';
import type { CapacityChange, CapacityChangesBatch } from './capacity-changes-accumulator';
import { CapacityChangesAccumulator } from './capacity-changes-accumulator';
import { ConsolidatableWakeups } from './consolidatable-wakeups';
import type { Hint } from './hint';
import { HintChannel } from './hint-channel';
import {
  generationDigest,
  generationHints,
  nodeClaimDigest,
  nodeClaimHints,
  nodePoolDigest,
} from './karpenter-object-hints';
import { nodeDigest, nodeHints } from './node-hints';
import type { PendingPodsBatch } from './pending-pods-accumulator';
import { PendingPodsAccumulator } from './pending-pods-accumulator';
import { podDigest, podHints } from './pod-hints';
import type { ObjectChange, ResourceHealth } from './reflector';
import { Reflector } from './reflector';
import { ValidationWakeups } from './validation-wakeups';
import type { WatchedResource } from './watched-resource';
import type { WatcherLog } from './watcher-log';
import { silentLog } from './watcher-log';
import { WatcherMetrics } from './watcher-metrics';

/** Options of {@link Watcher}. */
export interface WatcherOptions {
  /** The cluster's name, carried in every event. */
  readonly cluster: string;
  /** List/watch of each resource (watcher/kube-list-watch.ts builds them from a KubeConfig). */
  readonly sources: Readonly<Record<WatchedResource, ListWatchSource>>;
  readonly publisher: EventPublisherPort;
  readonly clock: Clock;
  readonly timers: Timers;
  /**
   * A batch is published this long after its last hint (Karpenter's idle window).
   * @default 1000
   */
  readonly batchIdleMs?: number;
  /**
   * ...or this long after its first hint, whichever comes first: the `CapacityChanged` maximum
   * (Karpenter's 10 s; its disruption controller also polls every 10 s).
   * @default 10000
   */
  readonly batchMaxMs?: number;
  /**
   * The `PodsPending` maximum: pending pods are published at most this long after they were
   * seen, and when none was published for this long the first one goes out at once (leading
   * edge). Under churn the idle window never closes, so this bounds the hint's latency and
   * sets the rate: one PutEvents per this many milliseconds.
   * @default DEFAULT_PODS_PENDING_MAX_MS
   */
  readonly podsPendingMaxMs?: number;
  /**
   * Whether the first pending pod after a quiet `podsPendingMaxMs` is published at once.
   * `false` is Karpenter's plain window (kept to measure the difference).
   * @default true
   */
  readonly podsPendingLeading?: boolean;
  /**
   * Whether a `CapacityChanged` batch whose window would close before the next `PodsPending`
   * publish goes in that publish's PutEvents call instead of one of its own. `false` gives
   * each detail type its own calls (kept to measure the difference).
   * @default true
   */
  readonly capacityRidesAlong?: boolean;
  /**
   * Backoff between list/watch retries of one resource.
   * @default { initialMs: 1000, maxMs: 30000, jitter: 0.2 }
   */
  readonly watchBackoff?: BackoffOptions;
  /**
   * Backoff between publish retries of one detail type.
   * @default { initialMs: 1000, maxMs: 60000, jitter: 0.2 }
   */
  readonly publishBackoff?: BackoffOptions;
  /**
   * A watch open longer than this is restarted (the source asks the server to end watches sooner).
   * @default 360000
   */
  readonly stallAfterMs?: number;
  /**
   * A resource not heard from for longer than this (no list, accepted watch, event or bookmark)
   * makes the watcher not ready.
   * @default DEFAULT_STALE_AFTER_MS
   */
  readonly staleAfterMs?: number;
  /** @default silentLog */
  readonly log?: WatcherLog;
  /** @default a new WatcherMetrics */
  readonly metrics?: WatcherMetrics;
}

/**
 * The `PodsPending` maximum wait. A churning cluster (pods marked unschedulable every few
 * milliseconds) never leaves Karpenter's 1 s idle window a gap to close in, so every batch waited
 * for the maximum: at 10 s, hints arrived p50 5 s and p99 10 s after the pod was marked. 4 s keeps
 * a hint within the provisioner's budget (pending pod to CreateFleet p99 ≤ 5 s with a warm
 * provisioner run of about 1 s) at 15 PutEvents a minute under churn, CapacityChanged riding
 * along in them (12 before, 21 without riding); `npm run bench` prints the trade-off.
 */
export const DEFAULT_PODS_PENDING_MAX_MS = 4000;

/**
 * How long a healthy resource can go without a sign from the API server: the server ends every
 * watch after its timeoutSeconds (300 s, watcher/kube-list-watch.ts) and the reflector reopens it
 * at once, which counts as a sign; in between, the watch cache sends a BOOKMARK roughly every
 * minute (k8s.io/apiserver cacher, `cacheWatcher.nextBookmarkTime`). Bookmarks are not
 * guaranteed (a resource served without the watch cache sends none), so the bound rests on the
 * timeout alone: one watch timeout plus one bookmark interval of slack, 360 s, which is also when
 * the reflector gives up on a silent watch (stallAfterMs). Longer than this, the server is down,
 * the resource went away, or the watch is stuck.
 */
export const DEFAULT_STALE_AFTER_MS = 360_000;

/**
 * The in-cluster watcher: follows pods, nodes, NodePools, EC2NodeClasses and NodeClaims and
 * turns their changes into hints, `PodsPending` and `CapacityChanged` (also when a recorded
 * disruption command is due for validation), batched per detail type
 * with Karpenter's window (PodsPending with a leading edge and a shorter maximum) and published
 * on the cluster's bus. It decides nothing about
 * capacity; the functions woken by the hints re-read the cluster.
 */
export class Watcher {
  readonly metrics: WatcherMetrics;
  private readonly reflectors: readonly {
    readonly resource: WatchedResource;
    health(staleAfterMs: number): ResourceHealth;
    start(): void;
    stop(): void;
  }[];
  private readonly staleAfterMs: number;
  private readonly pendingPods: HintChannel<PendingPodRef, PendingPodsBatch>;
  private readonly capacityChanges: HintChannel<CapacityChange, CapacityChangesBatch>;
  private readonly validationWakeups: ValidationWakeups;
  private readonly consolidatableWakeups: ConsolidatableWakeups;
  private readonly log: WatcherLog;

  constructor(options: WatcherOptions) {
    const { cluster, clock, timers, publisher } = options;
    this.metrics = options.metrics ?? new WatcherMetrics();
    this.log = options.log ?? silentLog;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    const channel = {
      publisher,
      clock,
      timers,
      metrics: this.metrics,
      log: this.log,
      source: WATCHER_EVENT_SOURCE,
    };
    const window = { idleMs: options.batchIdleMs ?? 1000, maxMs: options.batchMaxMs ?? 10_000 };
    const publishBackoff = options.publishBackoff ?? { initialMs: 1000, maxMs: 60_000, jitter: 0.2 };
    this.pendingPods = new HintChannel({
      ...channel,
      idleMs: window.idleMs,
      maxMs: options.podsPendingMaxMs ?? DEFAULT_PODS_PENDING_MAX_MS,
      leading: options.podsPendingLeading ?? true,
      // Capacity changes due before the next PodsPending publish go in its call.
      riders: () => (options.capacityRidesAlong === false ? [] : [this.capacityChanges]),
      detailType: PODS_PENDING_DETAIL_TYPE,
      accumulator: new PendingPodsAccumulator(),
      toDetail: (batch) => podsPendingDetail({ cluster, pods: batch.pods, total: batch.total }),
      retryBackoff: new Backoff(publishBackoff),
    });
    this.capacityChanges = new HintChannel({
      ...channel,
      ...window,
      detailType: CAPACITY_CHANGED_DETAIL_TYPE,
      accumulator: new CapacityChangesAccumulator(),
      toDetail: (batch) => capacityChangedDetail({ cluster, reasons: batch }),
      retryBackoff: new Backoff(publishBackoff),
    });

    this.validationWakeups = new ValidationWakeups(clock, timers, (name) =>
      this.route({ type: 'CapacityChanged', change: { reason: 'validationDue', name } }),
    );
    this.consolidatableWakeups = new ConsolidatableWakeups(clock, timers, (name) =>
      this.route({ type: 'CapacityChanged', change: { reason: 'consolidatableDue', name } }),
    );

    const reflect = <Digest>(
      resource: WatchedResource,
      digest: (object: unknown) => Digest,
      hints: (change: ObjectChange<Digest>) => Hint[],
    ) =>
      new Reflector<Digest>({
        resource,
        source: options.sources[resource],
        digest,
        onChange: (change) => {
          for (const hint of hints(change)) this.route(hint);
        },
        onRestart: () => this.metrics.watchRestarts.inc({ resource }),
        clock,
        timers,
        backoff: new Backoff(options.watchBackoff ?? { initialMs: 1000, maxMs: 30_000, jitter: 0.2 }),
        log: this.log,
        ...(options.stallAfterMs !== undefined ? { stallAfterMs: options.stallAfterMs } : {}),
      });
    this.reflectors = [
      reflect('pods', podDigest, podHints),
      reflect('nodes', nodeDigest, nodeHints),
      reflect('nodepools', nodePoolDigest, (change) => {
        this.consolidatableWakeups.observeNodePool(change);
        return generationHints('nodePoolChanged')(change);
      }),
      reflect('ec2nodeclasses', generationDigest, generationHints('nodeClassChanged')),
      reflect('nodeclaims', nodeClaimDigest, (change) => {
        this.validationWakeups.observe(change);
        this.consolidatableWakeups.observeNodeClaim(change);
        return nodeClaimHints(change);
      }),
    ];
  }

  /** Starts every list/watch. */
  start(): void {
    for (const reflector of this.reflectors) reflector.start();
  }

  /**
   * Per resource, whether its view is current: listed, and heard from (an accepted watch, an
   * event or a bookmark) within {@link WatcherOptions.staleAfterMs}.
   */
  readiness(): Record<WatchedResource, ResourceHealth> {
    return Object.fromEntries(
      this.reflectors.map((r) => [r.resource, r.health(this.staleAfterMs)]),
    ) as Record<WatchedResource, ResourceHealth>;
  }

  /** Whether every resource's view is current, so changes are being seen and hinted. */
  get ready(): boolean {
    return Object.values(this.readiness()).every((health) => health.ready);
  }

  /** Closes the watches and clears the wake-ups, then publishes the hints still batched (one attempt each). */
  async stop(): Promise<void> {
    for (const reflector of this.reflectors) reflector.stop();
    this.validationWakeups.stop();
    this.consolidatableWakeups.stop();
    await Promise.all([this.pendingPods.flush(), this.capacityChanges.flush()]);
    this.log.info('watcher stopped');
  }

  private route(hint: Hint): void {
    if (hint.type === 'PodsPending') {
      this.metrics.pendingPodsSeen.inc();
      this.pendingPods.add(hint.pod);
    } else {
      this.metrics.capacityChangesSeen.inc({ reason: hint.change.reason });
      this.capacityChanges.add(hint.change);
    }
  }
}
