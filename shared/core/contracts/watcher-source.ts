/** The EventBridge `source` of every event the in-cluster watcher publishes. */
export const WATCHER_EVENT_SOURCE = 'podlift.watcher';
