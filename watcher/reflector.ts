import type { ListWatchSource, WatchEventType, WatchStream } from '../shared/core/ports/list-watch';
import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';
import type { Backoff } from './backoff';
import { describeFailure, errorStatus, metadataOf } from './watch-objects';
import type { WatchedResource } from './watched-resource';
import { WatchStatusError } from './watcher-errors';
import type { WatcherLog } from './watcher-log';
import { errorAttributes } from './watcher-log';

/** One object appearing, changing or disappearing, as digests (the parts the watcher compares). */
export interface ObjectChange<Digest> {
  readonly type: 'added' | 'modified' | 'deleted';
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** The state before (modified, deleted). */
  readonly previous?: Digest;
  /** The state after (added, modified). */
  readonly current?: Digest;
  /** From the first list: what existed when the watcher started, not a change. */
  readonly initial: boolean;
}

/** Why a reflector restarted its list/watch. */
export type RestartReason = 'list-failed' | 'watch-failed' | 'expired' | 'stalled';

/** Whether a resource's view is current, and why (a line of /readyz). */
export interface ResourceHealth {
  readonly ready: boolean;
  /** `ready, last heard 12s ago`, `not ready: not listed yet: <why>`. */
  readonly detail: string;
}

/** Options of {@link Reflector}. */
export interface ReflectorOptions<Digest> {
  readonly resource: WatchedResource;
  readonly source: ListWatchSource;
  /** What of an object to keep and compare; the reflector holds only digests, never whole objects. */
  readonly digest: (object: unknown) => Digest;
  readonly onChange: (change: ObjectChange<Digest>) => void;
  /** Called for each restart after a failure, an expired resourceVersion or a stalled watch. */
  readonly onRestart: (reason: RestartReason) => void;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Delays before retrying a failed list or watch. */
  readonly backoff: Backoff;
  readonly log: WatcherLog;
  /**
   * A watch open longer than this, counted from its request, is presumed dead (the server ends
   * every watch after its timeoutSeconds) and is restarted from the last resourceVersion; so is
   * a watch request still unanswered after this long.
   * @default 360_000
   */
  readonly stallAfterMs?: number;
  /**
   * A watch the server ends cleanly sooner than this, having delivered nothing, is retried
   * after a backoff rather than at once, so a server that closes watches at once cannot spin us.
   * @default 1000
   */
  readonly minWatchMs?: number;
}

interface Entry<Digest> {
  readonly uid: string;
  readonly digest: Digest;
}

/** An object from a list or watch event, reduced to what the reflector keeps. */
interface Listed<Digest> extends Entry<Digest> {
  readonly key: string;
}

/**
 * List-then-watch of one resource, kept running: the part of a client-go reflector the
 * watcher needs. Unlike client-node's informer it restarts itself after errors (with backoff),
 * relists after 410 Expired, restarts watches that stall, reports the previous state with
 * each change, and keeps digests rather than whole objects.
 *
 * A relist is diffed against what is known, so it reports only what changed while the watch
 * was down; nothing already reported is reported again.
 */
export class Reflector<Digest> {
  private readonly entries = new Map<string, Entry<Digest>>();
  private resourceVersion = '';
  /** Bumped for every list or watch started: callbacks of older ones are ignored. */
  private generation = 0;
  private stream: WatchStream | undefined;
  private timer: TimerHandle | undefined;
  private running = false;
  private hasSynced = false;
  /** When the server last showed this resource's list or watch alive (ms since the epoch). */
  private lastContactMs: number | undefined;
  /** Why the last list or watch failed, until the next contact. */
  private lastProblem: string | undefined;
  private readonly stallAfterMs: number;
  private readonly minWatchMs: number;

  constructor(private readonly options: ReflectorOptions<Digest>) {
    this.stallAfterMs = options.stallAfterMs ?? 360_000;
    this.minWatchMs = options.minWatchMs ?? 1000;
  }

  /** The resource this reflector follows. */
  get resource(): WatchedResource {
    return this.options.resource;
  }

  /** Whether the first list has been applied. */
  get synced(): boolean {
    return this.hasSynced;
  }

  /**
   * Ready when the first list has been applied and the server was last heard from within
   * `staleAfterMs`: a list, a watch it accepted, or any event on it, bookmarks included. A
   * resource never listed (its CRD missing, the server down) is not ready and says why.
   */
  health(staleAfterMs: number): ResourceHealth {
    const problem = this.lastProblem ? `: ${this.lastProblem}` : '';
    if (!this.hasSynced || this.lastContactMs === undefined) {
      return { ready: false, detail: `not ready: not listed yet${problem}` };
    }
    const silentMs = this.options.clock.now() - this.lastContactMs;
    const seconds = (ms: number) => `${Math.floor(ms / 1000)}s`;
    if (silentMs > staleAfterMs) {
      return {
        ready: false,
        detail: `not ready: nothing from the API server for ${seconds(silentMs)} (more than ${seconds(staleAfterMs)})${problem}`,
      };
    }
    return { ready: true, detail: `ready, last heard ${seconds(silentMs)} ago` };
  }

  /** Starts listing and watching; a no-op when running. */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.list();
  }

  /** Closes the watch and cancels any pending retry. */
  stop(): void {
    this.running = false;
    this.generation++;
    this.clearTimer();
    this.stream?.abort();
    this.stream = undefined;
  }

  private async list(): Promise<void> {
    const generation = ++this.generation;
    // Digested page by page: a large cluster's pods are never all held as objects at once.
    const listed: Listed<Digest>[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    try {
      do {
        const page = await this.options.source.list(continueToken);
        if (generation !== this.generation) return;
        for (const object of page.items) listed.push(this.reduce(object));
        resourceVersion = page.resourceVersion;
        continueToken = page.continueToken;
      } while (continueToken);
    } catch (error) {
      if (generation !== this.generation) return;
      this.retryLater('list-failed', error, () => this.list());
      return;
    }
    this.replace(listed, !this.hasSynced);
    this.contact();
    this.resourceVersion = resourceVersion;
    if (!this.hasSynced)
      this.options.log.info('watcher synced', { resource: this.resource, objects: listed.length });
    this.hasSynced = true;
    this.options.backoff.reset();
    void this.watch();
  }

  private async watch(): Promise<void> {
    const generation = ++this.generation;
    const { clock, source } = this.options;
    const startedAt = clock.now();
    let delivered = 0;
    let expired = false;
    let streamError: unknown;
    const onEvent = (type: WatchEventType, object: unknown) => {
      if (generation !== this.generation) return;
      if (type === 'ERROR') {
        if (errorStatus(object) === 410) expired = true;
        else streamError = new WatchStatusError(this.resource, object);
        return;
      }
      delivered++;
      this.contact();
      this.options.backoff.reset();
      if (type === 'ADDED' || type === 'MODIFIED') {
        this.upsert(this.reduce(object), false);
      } else if (type === 'DELETED') this.remove(object);
      const resourceVersion = metadataOf(object).resourceVersion;
      if (resourceVersion) this.resourceVersion = resourceVersion;
    };
    const onDone = (error: unknown) => {
      if (generation !== this.generation) return;
      this.generation++;
      this.clearTimer();
      this.stream = undefined;
      if (expired || errorStatus(error) === 410) {
        this.options.log.info('watch expired, relisting', { resource: this.resource });
        this.options.onRestart('expired');
        this.resourceVersion = '';
        void this.list();
      } else if (error || streamError) {
        this.retryLater('watch-failed', error || streamError, () => this.watch());
      } else if (delivered === 0 && clock.now() - startedAt < this.minWatchMs) {
        this.retryLater(undefined, undefined, () => this.watch());
      } else void this.watch();
    };
    // The stall timer runs from the request, not from the server's answer: on a silently dead
    // connection the answer may never come, and a timer armed on the answer would never run.
    // client-node 1.4's Watch.watch (dist/watch.js) has no timeout of its own (its 30 s
    // AbortSignal.timeout is overwritten by the controller's signal, fixed upstream only in
    // kubernetes-client/javascript#2665) and hands over no handle before the response.
    this.clearTimer();
    this.timer = this.options.timers.setTimeout(() => this.stalled(generation), this.stallAfterMs);
    try {
      const stream = await source.watch(this.resourceVersion, onEvent, onDone);
      if (generation !== this.generation) {
        // Ended or stalled before it was handed over, or the reflector was stopped meanwhile.
        stream.abort();
        return;
      }
      this.stream = stream;
      // The server accepted the watch from our resourceVersion: as good a sign as an event.
      this.contact();
    } catch (error) {
      if (generation !== this.generation) return;
      this.generation++;
      this.retryLater('watch-failed', error, () => this.watch());
    }
  }

  /**
   * The watch requested `stallAfterMs` ago is still open, or still unanswered: presumed dead.
   * One not handed over yet is aborted when (if ever) its answer comes, as the generation moved on.
   */
  private stalled(generation: number): void {
    this.timer = undefined;
    if (generation !== this.generation) return;
    this.generation++;
    const answered = this.stream !== undefined;
    this.stream?.abort();
    this.stream = undefined;
    this.options.log.warn(answered ? 'watch stalled, restarting' : 'watch request unanswered, restarting', {
      resource: this.resource,
      afterMs: this.stallAfterMs,
    });
    this.options.onRestart('stalled');
    void this.watch();
  }

  /** Waits a backoff, then runs `action`; counts a restart when there is a `reason`. */
  private retryLater(reason: RestartReason | undefined, error: unknown, action: () => Promise<void>): void {
    const delayMs = this.options.backoff.next();
    if (reason) {
      this.lastProblem = describeFailure(
        reason === 'list-failed' ? 'listing' : 'watching',
        this.resource,
        error,
      );
      this.options.log.warn(`${reason === 'list-failed' ? 'list' : 'watch'} failed, retrying`, {
        resource: this.resource,
        delayMs,
        ...errorAttributes(error),
      });
      this.options.onRestart(reason);
    }
    this.clearTimer();
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.running) void action();
    }, delayMs);
  }

  private contact(): void {
    this.lastContactMs = this.options.clock.now();
    this.lastProblem = undefined;
  }

  private clearTimer(): void {
    if (this.timer) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Applies a full list: changes for what differs from the known state, deletions for what is gone. */
  private replace(listed: readonly Listed<Digest>[], initial: boolean): void {
    const keys = new Set(listed.map((entry) => entry.key));
    for (const [key, entry] of this.entries) {
      if (keys.has(key)) continue;
      this.entries.delete(key);
      this.emit({ type: 'deleted', key, previous: entry.digest, initial });
    }
    for (const entry of listed) this.upsert(entry, initial);
  }

  private reduce(object: unknown): Listed<Digest> {
    return { key: keyOf(object), uid: metadataOf(object).uid ?? '', digest: this.options.digest(object) };
  }

  private upsert({ key, uid, digest }: Listed<Digest>, initial: boolean): void {
    let known = this.entries.get(key);
    if (known && known.uid !== uid) {
      // Same name, new object: the old one was deleted while we were not watching.
      this.entries.delete(key);
      this.emit({ type: 'deleted', key, previous: known.digest, initial });
      known = undefined;
    }
    this.entries.set(key, { uid, digest });
    this.emit(
      known
        ? { type: 'modified', key, previous: known.digest, current: digest, initial }
        : { type: 'added', key, current: digest, initial },
    );
  }

  private remove(object: unknown): void {
    const key = keyOf(object);
    if (!this.entries.delete(key)) return;
    // The DELETED event carries the object's last state, newer than the known digest.
    this.emit({ type: 'deleted', key, previous: this.options.digest(object), initial: false });
  }

  private emit(change: ObjectChange<Digest>): void {
    try {
      this.options.onChange(change);
    } catch (error) {
      // client-node swallows exceptions thrown from watch callbacks; say so rather than lose them.
      this.options.log.error('handling a change failed', {
        resource: this.resource,
        key: change.key,
        ...errorAttributes(error),
      });
    }
  }
}

function keyOf(object: unknown): string {
  const { namespace, name } = metadataOf(object);
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}
