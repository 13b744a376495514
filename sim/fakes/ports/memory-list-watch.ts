import type {
  ListPage,
  ListWatchSource,
  WatchEventType,
  WatchStream,
} from '../../../shared/core/ports/list-watch';

interface Stored {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion: string };
}

interface Recorded {
  readonly resourceVersion: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Stored;
}

interface OpenWatch {
  readonly onEvent: (type: WatchEventType, object: unknown) => void;
}

/**
 * One collection in memory behind the watcher's {@link ListWatchSource} port, for benchmarks and
 * tests that drive thousands of changes on a virtual clock: changes are delivered to open watches
 * synchronously, at the virtual instant they are made, with no HTTP in between. Like the API
 * server it stamps every change with a new resourceVersion, lists in one page, and replays to a
 * watch everything after the resourceVersion it starts from, so nothing made between a list and
 * its watch is lost.
 */
export class MemoryListWatch implements ListWatchSource {
  private readonly objects = new Map<string, Stored>();
  private readonly history: Recorded[] = [];
  private readonly watches = new Set<OpenWatch>();
  private revision = 0;

  /** Watches currently open. */
  get openWatches(): number {
    return this.watches.size;
  }

  /** Creates or replaces an object (`ADDED` or `MODIFIED`) and streams it to every open watch. */
  put(object: {
    readonly metadata: { readonly name: string; readonly namespace?: string };
    readonly [field: string]: unknown;
  }): void {
    const key = keyOf(object.metadata);
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    const stored = this.stamp(object);
    this.objects.set(key, stored);
    this.record(type, stored);
  }

  /** Deletes an object by `namespace/name` (or `name`); throws when there is none. */
  delete(key: string): void {
    const existing = this.objects.get(key);
    if (!existing) throw new Error(`MemoryListWatch.delete: no object ${JSON.stringify(key)}`);
    this.objects.delete(key);
    this.record('DELETED', this.stamp(existing));
  }

  async list(): Promise<ListPage> {
    return { items: [...this.objects.values()], resourceVersion: String(this.revision) };
  }

  async watch(
    resourceVersion: string,
    onEvent: (type: WatchEventType, object: unknown) => void,
    _onDone: (error: unknown) => void,
  ): Promise<WatchStream> {
    const from = Number(resourceVersion);
    if (!Number.isInteger(from) || from < 0)
      throw new Error(
        `MemoryListWatch.watch: resourceVersion ${JSON.stringify(resourceVersion)} is not a revision`,
      );
    for (const event of this.history) if (event.resourceVersion > from) onEvent(event.type, event.object);
    const open: OpenWatch = { onEvent };
    this.watches.add(open);
    return { abort: () => this.watches.delete(open) };
  }

  private stamp<T extends { readonly metadata: object }>(object: T): Stored {
    this.revision++;
    return {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(this.revision) },
    } as unknown as Stored;
  }

  private record(type: Recorded['type'], object: Stored): void {
    this.history.push({ resourceVersion: Number(object.metadata.resourceVersion), type, object });
    for (const watch of this.watches) watch.onEvent(type, object);
  }
}

function keyOf(metadata: { readonly name: string; readonly namespace?: string }): string {
  return metadata.namespace ? `${metadata.namespace}/${metadata.name}` : metadata.name;
}
