/**
 * The list-and-watch port the in-cluster watcher reads the cluster through.
 */

/** The parts of object metadata the watcher reads. */
export interface WatchedObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly deletionTimestamp?: unknown;
}

/** One page of a list. */
export interface ListPage {
  /** Objects as the API returned them. */
  readonly items: readonly unknown[];
  /** The list's resourceVersion: a watch from it misses nothing. */
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continueToken?: string;
}

/** An open watch. */
export interface WatchStream {
  /** Closes the stream; its `onDone` is not called for this. */
  abort(): void;
}

/** Watch event types, as the API streams them. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * List and watch of one cluster-wide collection: the port a {@link Reflector} reads through.
 * The watcher's watcher/kube-list-watch.ts implements it with @kubernetes/client-node; tests and
 * the simulator list and watch the fake API server through the same class.
 */
export interface ListWatchSource {
  /**
   * One page of the collection (the first when `continueToken` is undefined).
   * @throws an error with `code` or `statusCode` 410 when the continue token expired.
   */
  list(continueToken: string | undefined): Promise<ListPage>;
  /**
   * Watches changes after `resourceVersion`. `onEvent` gets each event; `onDone` is called
   * once when the stream ends: with null when the server closed it, with the error otherwise
   * (an HTTP failure carries `statusCode`).
   */
  watch(
    resourceVersion: string,
    onEvent: (type: WatchEventType, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<WatchStream>;
}
