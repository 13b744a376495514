import { createHash, type Hash } from 'node:crypto';
import type { CallRecord } from '../fakes/aws/fake-service';
import type { KubeStore, StoredEvent } from '../fakes/kube/store';
import type { VirtualTime } from '../virtual-time';
import type { InvocationRecord } from './function-router';

/** What a {@link WorldTrace} reads besides the store: append-only logs it follows by cursor. */
export interface TracedLogs {
  /** AWS fakes' call logs by service (EC2's; EventBridge's, where the watcher's hints go), oldest first. */
  readonly aws: Readonly<Record<string, readonly CallRecord[]>>;
  /** Every function invocation, oldest first (the router's log). */
  readonly invocations: () => readonly InvocationRecord[];
}

/**
 * The ordered log of what happened in a world — every Kubernetes write (type, object, its
 * resourceVersion and a hash of its content), every call to the AWS fakes followed (operation,
 * input hash, error: CreateFleet, PutEvents…) and every function invocation — each with its virtual time,
 * folded into one SHA-256 as it goes. Two runs of the same seed replay exactly when their
 * digests agree; {@link lines} (when kept) shows where two runs part.
 *
 * AWS calls and invocations are read from their logs at each Kubernetes write and
 * at each {@link flush}, so they sit in the trace between the writes they happened between.
 */
export class WorldTrace {
  private readonly hash: Hash = createHash('sha256');
  private readonly start: number;
  private readonly kept: string[] | undefined;
  private readonly awsCursors = new Map<string, number>();
  private invocationCursor = 0;
  private recorded = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly time: VirtualTime,
    store: KubeStore,
    private readonly logs: TracedLogs,
    options: { keepLines?: boolean } = {},
  ) {
    this.start = time.now();
    this.kept = options.keepLines ? [] : undefined;
    this.unsubscribe = store.subscribe((event) => this.record('kube', kubeLine(event)));
  }

  /** Entries recorded so far. */
  get count(): number {
    return this.recorded;
  }

  /** The trace's lines so far, when the trace was asked to keep them. */
  get lines(): readonly string[] {
    return this.kept ?? [];
  }

  /** SHA-256 (hex) of every entry so far; recording goes on afterwards. */
  digest(): string {
    this.flush();
    return this.hash.copy().digest('hex');
  }

  /** Adds one entry (`kind`, free text) at the current virtual time, after those logged before it. */
  record(kind: string, text: string): void {
    this.flush();
    this.add(kind, text);
  }

  /** Records the AWS calls and invocations logged since the last flush. */
  flush(): void {
    for (const [service, calls] of Object.entries(this.logs.aws)) {
      let cursor = this.awsCursors.get(service) ?? 0;
      for (; cursor < calls.length; cursor++) {
        const call = calls[cursor];
        this.add(
          service,
          `${call.operation} ${short(call.input)}${call.error ? ` ! ${call.error.name}` : ''}`,
        );
      }
      this.awsCursors.set(service, cursor);
    }
    const invocations = this.logs.invocations();
    for (; this.invocationCursor < invocations.length; this.invocationCursor++) {
      const i = invocations[this.invocationCursor];
      this.add('invoke', `${i.fn} at ${i.at - this.start} by ${i.trigger}: ${i.outcome}`);
    }
  }

  private add(kind: string, text: string): void {
    const line = `${this.time.now() - this.start} ${kind} ${text}`;
    this.hash.update(`${line}\n`);
    this.recorded++;
    this.kept?.push(line);
  }

  /** Stops following the store. */
  close(): void {
    this.unsubscribe();
  }
}

function kubeLine(event: StoredEvent): string {
  const { namespace, name } = event.object.metadata;
  return `${event.type} ${event.resource.plural} ${namespace ? `${namespace}/` : ''}${name} rv=${event.resourceVersion} ${short(event.object)}`;
}

/** A short content hash: equal content, equal hash; any difference shows. */
function short(value: unknown): string {
  return createHash('sha1')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('hex')
    .slice(0, 12);
}
