/** What the watcher publishes through: the cluster's event bus (EventBridge in production). */

/** One event to put on the cluster's bus. */
export interface BusEvent {
  readonly source: string;
  readonly detailType: string;
  readonly detail: unknown;
  /** RFC 3339 / epoch ms; defaults to now. */
  readonly time?: number;
}

/** Puts events on the cluster's bus (EventBridgePublisher in production). */
export interface EventPublisherPort {
  /** @throws when entries still fail after retries. */
  publish(events: readonly BusEvent[]): Promise<void>;
}
