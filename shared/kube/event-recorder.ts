import type { CoreV1Event } from '@kubernetes/client-node';
import type { NodeClaim } from '../core/model/nodeclaim';
import type { NodePool } from '../core/model/nodepool';
import type { Pod } from '../core/model/pod';
import type {
  EventInput,
  EventRecorderPort,
  EventRecordOutcome,
  InvolvedObject,
} from '../core/ports/cluster-events';
import type { Clock } from '../core/ports/time';
import { kubeError } from './api-errors';
import { kubeTime } from './conditions';
import type { KubeApi } from './kube-api';
import { MERGE_PATCH } from './kube-api';
import { EVENTS } from './kube-resources';
import { escapeFieldValue } from './pod-reads';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Kubernetes Events (core/v1) that explain podlift's decisions where people look: `kubectl
 * describe pod|node|nodepool|nodeclaim` and `kubectl get events`. Like client-go's recorder, an
 * event identical to a recent one (same object, type, reason, message and source) is not
 * created again: the existing one's `count` goes up and its `lastTimestamp` moves, which kubectl
 * shows as `(x3 over 10m)`.
 */

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /**
   * `source.component` and `reportingComponent`.
   * @default 'podlift'
   */
  readonly component?: string;
  /**
   * `reportingInstance`, e.g. the function's name.
   * @default undefined
   */
  readonly instance?: string;
  /**
   * How recent an identical event must be to be counted instead of created again.
   * @default 10 minutes (client-go's aggregation window)
   */
  readonly dedupeWindowMs?: number;
}

/** The longest message recorded; longer ones are cut (events.k8s.io caps its note at 1 kB). */
export const MAX_EVENT_MESSAGE_LENGTH = 1024;

/** Namespace of events about cluster-scoped objects: the API server accepts "" or `default` there; client-go uses `default`. */
export const CLUSTER_SCOPED_EVENT_NAMESPACE = 'default';

/** Records and de-duplicates Kubernetes Events: the {@link EventRecorderPort} on the Kubernetes API. */
export class EventRecorder implements EventRecorderPort {
  private readonly component: string;
  private readonly windowMs: number;
  private sequence = 0;

  constructor(
    private readonly api: KubeApi,
    private readonly clock: Clock,
    private readonly options: EventRecorderOptions = {},
  ) {
    this.component = options.component ?? 'podlift';
    this.windowMs = options.dedupeWindowMs ?? 10 * 60 * 1000;
  }

  /**
   * Records `event`: increments the count of an identical event seen within the window, or
   * creates a new one. Events about namespaced objects live in the object's namespace, others
   * in `default` (as the API server requires).
   * @returns what was done.
   * @throws CloudError when the API refuses (callers usually log and go on: an event is an
   *   explanation, not part of the decision).
   */
  async record(event: EventInput): Promise<EventRecordOutcome> {
    return this.recordWith(event, undefined);
  }

  /**
   * Records each event in order, as {@link record} does, reading the Events already there once
   * per namespace and reason (field selector `reason=`) and keeping that list up to date with
   * what it writes, instead of a read per object.
   */
  async recordEach(events: readonly EventInput[]): Promise<ReadonlyArray<EventRecordOutcome | Error>> {
    const listed = new Map<string, CoreV1Event[]>();
    const outcomes: Array<EventRecordOutcome | Error> = [];
    for (const event of events) {
      try {
        outcomes.push(await this.recordWith(event, listed));
      } catch (error) {
        outcomes.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return outcomes;
  }

  /**
   * Records `event`; with `listed`, reads its namespace's Events of its reason once into it and
   * answers later events from there.
   */
  private async recordWith(
    event: EventInput,
    listed: Map<string, CoreV1Event[]> | undefined,
  ): Promise<EventRecordOutcome> {
    const { object } = event;
    const namespace = object.namespace || CLUSTER_SCOPED_EVENT_NAMESPACE;
    const message = event.message.slice(0, MAX_EVENT_MESSAGE_LENGTH);
    const doing = `recording event ${event.reason} on ${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name}`;
    const core = await this.api.core();
    const now = this.clock.now();
    const { once, ...rest } = event;
    const wanted = { ...rest, message };
    const key = `${namespace}\u0000${event.reason}`;
    const eventsOf = async (): Promise<readonly CoreV1Event[]> => {
      if (!listed) return this.listFor(namespace, wanted);
      let all = listed.get(key);
      if (!all) {
        all = [...(await this.listReason(namespace, event.reason))];
        listed.set(key, all);
      }
      return all.filter((e) => involves(e, object));
    };
    const remember = (written: CoreV1Event, replaced?: CoreV1Event) => {
      const all = listed?.get(key);
      if (!all) return;
      const at = replaced ? all.indexOf(replaced) : -1;
      if (at >= 0) all[at] = written;
      else all.push(written);
    };
    let outcome: EventRecordOutcome = 'created';
    try {
      if (once) {
        const latest = latestOf(await eventsOf(), wanted, this.component);
        if (latest && latest.type === wanted.type && latest.message === wanted.message) return 'unchanged';
      }
      // Needs only list, create and patch on events: a 409 (the event was counted by someone
      // else, or a name collided) lists again, afresh.
      let attempt = 0;
      await retryOnConflict<CoreV1Event | undefined, { existing?: CoreV1Event }>(
        async () => {
          if (attempt++ > 0) listed?.delete(key);
          return this.findRecent(await eventsOf(), wanted, now);
        },
        (existing) => ({ existing }),
        async ({ existing }) => {
          if (existing) {
            outcome = 'counted';
            const counted = await core.patchNamespacedEvent(
              {
                name: existing.metadata.name ?? '',
                namespace,
                body: {
                  count: (existing.count ?? 1) + 1,
                  lastTimestamp: kubeTime(now),
                  metadata: { resourceVersion: existing.metadata.resourceVersion },
                },
              },
              MERGE_PATCH,
            );
            remember(counted, existing);
            return counted;
          }
          outcome = 'created';
          const created = await core.createNamespacedEvent({
            namespace,
            body: this.newEvent(namespace, wanted, now),
          });
          remember(created);
          return created;
        },
        { doing },
      );
      return outcome;
    } catch (error) {
      throw kubeError(error, doing, `${object.kind} ${object.name}`, EVENTS);
    }
  }

  /** The events of this object with the event's reason. */
  private async listFor(namespace: string, event: EventInput): Promise<readonly CoreV1Event[]> {
    const { object } = event;
    const fieldSelector = [
      `involvedObject.kind=${escapeFieldValue(object.kind)}`,
      `involvedObject.name=${escapeFieldValue(object.name)}`,
      ...(object.uid ? [`involvedObject.uid=${escapeFieldValue(object.uid)}`] : []),
      `reason=${escapeFieldValue(event.reason)}`,
    ].join(',');
    const core = await this.api.core();
    return (await core.listNamespacedEvent({ namespace, fieldSelector })).items;
  }

  /** Every event of the namespace with this reason. */
  private async listReason(namespace: string, reason: string): Promise<readonly CoreV1Event[]> {
    const core = await this.api.core();
    return (
      await core.listNamespacedEvent({ namespace, fieldSelector: `reason=${escapeFieldValue(reason)}` })
    ).items;
  }

  /** The most recent identical event of this component within the window, among `events` of its object. */
  private findRecent(
    events: readonly CoreV1Event[],
    event: EventInput,
    now: number,
  ): CoreV1Event | undefined {
    const { object } = event;
    let best: CoreV1Event | undefined;
    for (const candidate of events) {
      const last = (candidate.lastTimestamp ?? candidate.firstTimestamp)?.getTime();
      const identical =
        candidate.type === event.type &&
        candidate.message === event.message &&
        candidate.source?.component === this.component &&
        candidate.involvedObject.apiVersion === object.apiVersion &&
        (candidate.involvedObject.namespace ?? '') === (object.namespace ?? '');
      if (!identical || last === undefined || now - last > this.windowMs) continue;
      const bestLast = (best?.lastTimestamp ?? best?.firstTimestamp)?.getTime() ?? 0;
      if (!best || last > bestLast) best = candidate;
    }
    return best;
  }

  private newEvent(namespace: string, event: EventInput, now: number): CoreV1Event {
    const { object } = event;
    // client-go's naming: <object>.<hex of the creation time in ns>; the sequence keeps two
    // events of one millisecond apart.
    const nanos = BigInt(now) * 1_000_000n + BigInt(this.sequence++ % 1_000_000);
    const at = new Date(Math.floor(now / 1000) * 1000);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${object.name}.${nanos.toString(16)}`, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.name,
        ...(object.namespace ? { namespace: object.namespace } : {}),
        ...(object.uid ? { uid: object.uid } : {}),
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: this.component },
      reportingComponent: this.component,
      ...(this.options.instance ? { reportingInstance: this.options.instance } : {}),
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    };
  }
}

/** Whether `event` is about `object`, as the field selector {@link EventRecorder} lists by would say. */
function involves(event: CoreV1Event, object: InvolvedObject): boolean {
  const about = event.involvedObject;
  return (
    about.kind === object.kind &&
    about.name === object.name &&
    (object.uid === undefined || about.uid === object.uid)
  );
}

/**
 * The latest event of `component` about the event's object (same apiVersion and namespace), of
 * any message and age: what the object was last told for this reason. Events carry second
 * timestamps; within one second the later name (client-go's, from the creation time) wins.
 */
function latestOf(
  events: readonly CoreV1Event[],
  event: EventInput,
  component: string,
): CoreV1Event | undefined {
  let latest: CoreV1Event | undefined;
  let latestAt = Number.NEGATIVE_INFINITY;
  for (const candidate of events) {
    if (
      candidate.source?.component !== component ||
      candidate.involvedObject.apiVersion !== event.object.apiVersion ||
      (candidate.involvedObject.namespace ?? '') !== (event.object.namespace ?? '')
    )
      continue;
    const at = (candidate.lastTimestamp ?? candidate.firstTimestamp)?.getTime() ?? Number.NEGATIVE_INFINITY;
    const later =
      at > latestAt || (at === latestAt && (candidate.metadata.name ?? '') > (latest?.metadata.name ?? ''));
    if (later) {
      latest = candidate;
      latestAt = at;
    }
  }
  return latest;
}

/** The event target for a pod (its uid only when the API gave one). */
export function podObject(pod: Pod): InvolvedObject {
  const synthetic = pod.uid === `${pod.namespace}/${pod.name}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.name,
    namespace: pod.namespace,
    ...(synthetic ? {} : { uid: pod.uid }),
  };
}

/** The event target for a Node. */
export function nodeObject(name: string, uid?: string): InvolvedObject {
  return { apiVersion: 'v1', kind: 'Node', name, ...(uid ? { uid } : {}) };
}

/** The event target for a NodePool. */
export function nodePoolObject(nodePool: Pick<NodePool, 'name' | 'uid'>): InvolvedObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    name: nodePool.name,
    ...(nodePool.uid ? { uid: nodePool.uid } : {}),
  };
}

/** The event target for a NodeClaim. */
export function nodeClaimObject(nodeClaim: Pick<NodeClaim, 'name' | 'uid'>): InvolvedObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    name: nodeClaim.name,
    ...(nodeClaim.uid ? { uid: nodeClaim.uid } : {}),
  };
}
