import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { CloudError, ValidationError, type ValidationIssue } from '../../core/model/errors';
import type { BusEvent, EventPublisherPort } from '../../core/ports/publisher';
import { sleep } from '../../core/ports/time';
import { cloudErrorFrom, errorMessage } from '../aws-error';
import { backoffDelayMs, type RetryPolicy, retryRefusal, withRetry } from '../retry';
import { putEventsBatches } from './put-events-batches';
import { MAX_PUT_EVENTS_BYTES, putEventsEntrySize } from './put-events-entry-size';

/** Options of {@link EventBridgePublisher}. */
export interface EventBridgePublisherOptions {
  readonly eventBridge: EventBridgeClient;
  /** The cluster's bus: a name or an ARN. */
  readonly eventBusName: string;
  /** Backoff and deadline, for throttled calls and failed entries. */
  readonly retry: RetryPolicy;
}

/** Per-entry error codes worth sending again (AWS: retry entries failed with these). */
const TRANSIENT_ENTRY_CODES: ReadonlySet<string> = new Set([
  'InternalFailure',
  'InternalException',
  'ThrottlingException',
  'ServiceUnavailable',
]);

/** One event on its way: its position in the caller's list, its entry and its size. */
interface Pending {
  readonly index: number;
  readonly entry: PutEventsRequestEntry;
  readonly size: number;
}

/** An entry that did not make it, and why. */
interface Failure {
  readonly pending: Pending;
  readonly code: string;
  readonly message?: string;
}

/**
 * Publishes events to the cluster's EventBridge bus with PutEvents: at most 10 entries and
 * 256 KB per call (EventBridge's own size formula), throttled calls retried with backoff, and
 * entries EventBridge failed one by one (FailedEntryCount) sent again while they fail for
 * transient reasons (InternalFailure, ThrottlingException) and the deadline allows.
 */
export class EventBridgePublisher implements EventPublisherPort {
  constructor(private readonly options: EventBridgePublisherOptions) {}

  /**
   * @throws ValidationError before anything is sent when an event cannot be sent at all
   *   (detail not a JSON object, empty source or detail type, larger than 256 KB on its own).
   * @throws CloudError naming each event that still failed (code, source, detail type), or the
   *   call that failed; `retryable` when only transient failures are left.
   */
  async publish(events: readonly BusEvent[]): Promise<void> {
    let pending = this.entries(events);
    const failed: Failure[] = [];
    for (let round = 1; pending.length > 0; round += 1) {
      const transient: Failure[] = [];
      for (const batch of putEventsBatches(pending, (p) => p.size)) {
        for (const failure of await this.put(batch, events.length)) {
          (TRANSIENT_ENTRY_CODES.has(failure.code) ? transient : failed).push(failure);
        }
      }
      pending = transient.map((f) => f.pending);
      if (pending.length === 0) break;
      const delay = backoffDelayMs(round, this.options.retry);
      const refusal = retryRefusal(round, delay, this.options.retry);
      if (refusal !== undefined) {
        failed.push(...transient);
        throw this.failure(failed, events.length, refusal);
      }
      await sleep(this.options.retry.timers, delay);
    }
    if (failed.length > 0) throw this.failure(failed, events.length);
  }

  /** PutEvents entries for the events, or a ValidationError listing every event that cannot be sent. */
  private entries(events: readonly BusEvent[]): Pending[] {
    const issues: ValidationIssue[] = [];
    const out: Pending[] = [];
    events.forEach((event, index) => {
      const field = `events[${index}]`;
      if (event.source === '')
        issues.push({ field: `${field}.source`, value: event.source, message: 'must not be empty' });
      if (event.detailType === '')
        issues.push({ field: `${field}.detailType`, value: event.detailType, message: 'must not be empty' });
      const detail = event.detail === undefined ? {} : event.detail;
      if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
        issues.push({
          field: `${field}.detail`,
          value: detail,
          message: 'must be a JSON object (EventBridge rejects other details)',
        });
        return;
      }
      let json: string;
      try {
        json = JSON.stringify(detail);
      } catch (e) {
        issues.push({
          field: `${field}.detail`,
          value: String(detail),
          message: `cannot be written as JSON: ${errorMessage(e)}`,
        });
        return;
      }
      const entry: PutEventsRequestEntry = {
        Source: event.source,
        DetailType: event.detailType,
        Detail: json,
        EventBusName: this.options.eventBusName,
        ...(event.time === undefined ? {} : { Time: new Date(event.time) }),
      };
      const size = putEventsEntrySize(entry);
      if (size > MAX_PUT_EVENTS_BYTES) {
        issues.push({
          field: `${field}`,
          value: `${event.source} ${event.detailType} (${size} bytes)`,
          message: `is larger than PutEvents' ${MAX_PUT_EVENTS_BYTES} bytes: put a reference in the detail instead of the data`,
        });
        return;
      }
      out.push({ index, entry, size });
    });
    if (issues.length > 0) {
      throw new ValidationError(issues, {
        source: `publishing to EventBridge bus ${this.options.eventBusName}`,
      });
    }
    return out;
  }

  /** One PutEvents call; returns the entries it failed. */
  private async put(batch: readonly Pending[], total: number): Promise<Failure[]> {
    const what = `publishing ${batch.length} of ${total} events to EventBridge bus ${this.options.eventBusName}`;
    let output: PutEventsCommandOutput;
    try {
      output = await withRetry(
        what,
        () => this.options.eventBridge.send(new PutEventsCommand({ Entries: batch.map((p) => p.entry) })),
        this.options.retry,
      );
    } catch (error) {
      // Retryable failures already came back from withRetry as CloudErrors.
      throw cloudErrorFrom(what, error);
    }
    const failures: Failure[] = [];
    batch.forEach((pending, i) => {
      const result = output.Entries?.[i];
      if (result?.ErrorCode !== undefined && result.ErrorCode !== '') {
        failures.push({
          pending,
          code: result.ErrorCode,
          ...(result.ErrorMessage === undefined ? {} : { message: result.ErrorMessage }),
        });
      }
    });
    return failures;
  }

  private failure(failed: readonly Failure[], total: number, refusal?: string): CloudError {
    const sorted = [...failed].sort((a, b) => a.pending.index - b.pending.index);
    const listed = sorted
      .slice(0, 5)
      .map(
        (f) =>
          `events[${f.pending.index}] (${f.pending.entry.Source} "${f.pending.entry.DetailType}"): ${f.code}${
            f.message === undefined ? '' : `: ${f.message}`
          }`,
      )
      .join('; ');
    const more = sorted.length > 5 ? `; and ${sorted.length - 5} more` : '';
    return new CloudError(
      `publishing ${total} events to EventBridge bus ${this.options.eventBusName}: ${sorted.length} failed: ${listed}${more}${
        refusal === undefined ? '' : ` (${refusal})`
      }`,
      sorted[0]?.code,
      sorted.every((f) => TRANSIENT_ENTRY_CODES.has(f.code)),
    );
  }
}
