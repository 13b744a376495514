import { CAPACITY_CHANGED_DETAIL_TYPE } from '../shared/core/contracts/capacity-changed';
import { PODS_PENDING_DETAIL_TYPE } from '../shared/core/contracts/pods-pending';
import { Counter, Histogram, renderMetrics } from './prometheus-metrics';
import { WATCHED_RESOURCES } from './watched-resource';

const detailTypes = [PODS_PENDING_DETAIL_TYPE, CAPACITY_CHANGED_DETAIL_TYPE].map((detail_type) => ({
  detail_type,
}));

/** The watcher's Prometheus metrics, served on /metrics. */
export class WatcherMetrics {
  /** Events put on the bus, per detail-type. */
  readonly eventsPublished = new Counter(
    'podlift_watcher_events_published_total',
    'Events published to the cluster event bus.',
    detailTypes,
  );
  /** Failed publish attempts (each is retried with backoff, the batch kept). */
  readonly publishFailures = new Counter(
    'podlift_watcher_publish_failures_total',
    'Publish attempts that failed; the batch is kept and retried with backoff.',
    detailTypes,
  );
  /** List/watch restarts after an error, an expired resourceVersion or a stalled watch. */
  readonly watchRestarts = new Counter(
    'podlift_watcher_watch_restarts_total',
    'List/watch restarts after an error, an expired resourceVersion (410) or a stalled watch.',
    WATCHED_RESOURCES.map((resource) => ({ resource })),
  );
  /** Pods seen becoming unschedulable. */
  readonly pendingPodsSeen = new Counter(
    'podlift_watcher_pending_pods_seen_total',
    'Pods seen becoming unschedulable (PodScheduled=False, reason Unschedulable).',
  );
  /** Capacity changes seen, per reason. */
  readonly capacityChangesSeen = new Counter(
    'podlift_watcher_capacity_changes_seen_total',
    'Changes seen that may change capacity, per reason.',
  );
  /** Hints per published event. */
  readonly batchSize = new Histogram(
    'podlift_watcher_batch_size',
    'Hints (pods, capacity changes) per published event.',
    [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
  );

  /** The text exposition of every metric. */
  render(): string {
    return renderMetrics([
      this.eventsPublished,
      this.publishFailures,
      this.watchRestarts,
      this.pendingPodsSeen,
      this.capacityChangesSeen,
      this.batchSize,
    ]);
  }
}
