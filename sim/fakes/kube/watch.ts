/**
 * Watch streams: one JSON event per line over a chunked 200 response, replayed from the
 * store's history after the requested resourceVersion and then live, with BOOKMARKs on request,
 * `timeoutSeconds`, and in-stream 410 Expired for a resourceVersion the history no longer holds.
 */
import type { ServerResponse } from 'node:http';
import type { TimerHandle, Timers } from '../../../shared/core/ports/time';
import type { KubeObject } from './kube-object';
import type { ResourceType } from './resources';
import { apiVersionOf } from './resources';
import { badRequest, isKubeApiError } from './status';
import type { KubeStore, StoredEvent } from './store';

/** What a watch request asks for. */
export interface WatchRequest {
  readonly resource: ResourceType;
  /** Only this namespace; all when absent. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Start after this resourceVersion; absent or `0` starts with ADDED for every current object. */
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks: boolean;
  /** End the stream after this many seconds. */
  readonly timeoutSeconds?: number;
}

interface OpenWatch {
  readonly request: WatchRequest;
  readonly response: ServerResponse;
  bookmark(): void;
}

/** The open watch streams of one server. */
export class WatchHub {
  private readonly open = new Set<OpenWatch>();
  private readonly store: KubeStore;
  private readonly timers: Timers;
  private readonly bookmarkIntervalMs: number | undefined;

  constructor(store: KubeStore, timers: Timers, bookmarkIntervalMs?: number) {
    this.store = store;
    this.timers = timers;
    this.bookmarkIntervalMs = bookmarkIntervalMs;
  }

  /** How many watch streams are open. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Validates `request` (throws a 400 {@link KubeApiError} for a bad selector or
   * resourceVersion, before any byte is sent), then streams on `response` until the client
   * goes away, the timeout passes or the hub drops it.
   */
  serve(request: WatchRequest, response: ServerResponse): void {
    const store = this.store;
    const matches = store.matcher(request.resource, request);
    const from = request.resourceVersion;
    const fromStart = from === undefined || from === '' || from === '0';
    if (!fromStart && !/^\d+$/.test(from)) {
      throw badRequest(`invalid resource version: ${JSON.stringify(from)}`);
    }
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    const send = (type: string, object: unknown) => {
      if (!response.writableEnded) response.write(`${JSON.stringify({ type, object })}\n`);
    };
    let backlog: StoredEvent[];
    if (fromStart) {
      for (const object of store.list(request.resource, request).items) send('ADDED', object);
      backlog = [];
    } else {
      try {
        backlog = store.eventsSince(Number(from));
      } catch (error) {
        if (!isKubeApiError(error)) throw error;
        send('ERROR', error.status);
        response.end();
        return;
      }
    }
    const deliver = (event: StoredEvent) => {
      if (event.resource !== request.resource) return;
      const type = visibleAs(event, matches);
      if (type) send(type, event.object);
    };
    backlog.forEach(deliver);
    const unsubscribe = store.subscribe(deliver);
    const watch: OpenWatch = {
      request,
      response,
      bookmark: () => {
        if (!request.allowWatchBookmarks) return;
        send('BOOKMARK', {
          kind: request.resource.kind,
          apiVersion: apiVersionOf(request.resource),
          metadata: { resourceVersion: store.resourceVersion },
        });
      },
    };
    this.open.add(watch);
    const timers = this.timers;
    let timeout: TimerHandle | undefined;
    let nextBookmark: TimerHandle | undefined;
    if (request.timeoutSeconds !== undefined && request.timeoutSeconds > 0) {
      timeout = timers.setTimeout(() => response.end(), request.timeoutSeconds * 1000);
    }
    const intervalMs = this.bookmarkIntervalMs;
    if (request.allowWatchBookmarks && intervalMs) {
      // Timers are one-shot: each bookmark schedules the next.
      const bookmarkAndRepeat = () => {
        watch.bookmark();
        nextBookmark = timers.setTimeout(bookmarkAndRepeat, intervalMs);
      };
      nextBookmark = timers.setTimeout(bookmarkAndRepeat, intervalMs);
    }
    response.on('close', () => {
      unsubscribe();
      if (timeout) timers.clearTimeout(timeout);
      if (nextBookmark) timers.clearTimeout(nextBookmark);
      this.open.delete(watch);
    });
  }

  /** Sends a BOOKMARK at the current resourceVersion on every stream that asked for bookmarks. */
  sendBookmarks(): void {
    for (const watch of this.open) watch.bookmark();
  }

  /**
   * Ends every open stream: cleanly (the client sees the response end, as when the server's
   * watch timeout passes) or, with `abrupt`, by destroying the connection.
   */
  drop(abrupt = false): void {
    for (const watch of [...this.open]) {
      if (abrupt) watch.response.destroy();
      else watch.response.end();
      this.open.delete(watch);
    }
  }
}

/**
 * How a change looks through a filtered watch: an object entering the filter is ADDED, one
 * leaving it is DELETED, as the real watch cache reports them.
 */
function visibleAs(
  event: StoredEvent,
  matches: (object: KubeObject) => boolean,
): StoredEvent['type'] | undefined {
  const now = matches(event.object);
  if (event.type === 'ADDED') return now ? 'ADDED' : undefined;
  const before = event.previous !== undefined && matches(event.previous);
  if (event.type === 'DELETED') return before || now ? 'DELETED' : undefined;
  if (before && now) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}
