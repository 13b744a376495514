/**
 * Kubernetes Events in core types: how podlift's functions explain their decisions where people
 * look (`kubectl describe`, `kubectl get events`). shared/kube implements the recorder
 * (EventRecorder); loop tests and the simulator use fakes.
 */

/** The object an event is about (core/v1 ObjectReference). */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** Absent for cluster-scoped objects (Node, NodePool, NodeClaim). */
  readonly namespace?: string;
  readonly uid?: string;
}

/** One event to record. */
export interface EventInput {
  readonly object: InvolvedObject;
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, e.g. `Nominated`, `DisruptionBlocked`. */
  readonly reason: string;
  readonly message: string;
  /**
   * Say it once: when the object's latest Event of this reason from podlift already says this
   * (same type and message, however old), nothing is written — a decision re-made every minute
   * while nothing changed leaves the one Event it made, not a count that climbs.
   */
  readonly once?: boolean;
}

/**
 * What recording did: created a new Event, counted one more of an identical recent one, or
 * (with `once`) nothing, because the latest Event already said it.
 */
export type EventRecordOutcome = 'created' | 'counted' | 'unchanged';

/** Records Events on objects, de-duplicating identical recent ones as client-go's recorder does. */
export interface EventRecorderPort {
  /**
   * Records `event` on its object.
   * @throws CloudError when the API refuses (callers usually log and go on: an event is an
   *   explanation, not part of the decision).
   */
  record(event: EventInput): Promise<EventRecordOutcome>;
  /**
   * Records each of `events` in order, as {@link record} would one by one, but reads the Events
   * already there once per namespace and reason instead of once per object: a run that explains
   * itself on thousands of nodes makes a handful of reads, not thousands.
   * @returns per event, what was done, or the error that refused it (the others go on).
   */
  recordEach(events: readonly EventInput[]): Promise<ReadonlyArray<EventRecordOutcome | Error>>;
}
