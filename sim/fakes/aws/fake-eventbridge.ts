import {
  EventBridgeServiceException,
  InternalException,
  type PutEventsCommandInput,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
  ThrottlingException,
} from '@aws-sdk/client-eventbridge';
import type { Clock } from '../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from './fake-service';
import type { AuthorizationRequest } from './iam-policy/evaluate';
import { type ModeledExceptionClass, ServiceErrorFactory } from './service-error';

/** An event as EventBridge delivers it to targets. */
export interface DeliveredEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: string[];
  readonly detail: unknown;
}

/** Options of `FakeEventBridge`. */
export interface FakeEventBridgeOptions {
  readonly clock: Clock;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly accountId?: string;
}

/** At most this many entries per PutEvents call. */
export const MAX_ENTRIES_PER_CALL = 10;
/** The total entry size limit of one PutEvents call, in bytes (256 KB). */
export const MAX_REQUEST_ENTRY_BYTES = 256 * 1024;

const MODELED: Readonly<Record<string, ModeledExceptionClass>> = {
  InternalException: InternalException as unknown as ModeledExceptionClass,
  ThrottlingException: ThrottlingException as unknown as ModeledExceptionClass,
};

/**
 * A PutEvents entry's size as EventBridge counts it, following "Calculating Amazon EventBridge
 * PutEvents event entry size" in the EventBridge user guide: 14 bytes for Time when set, the
 * UTF-8 bytes of Source and DetailType, of Detail when set, and of every Resources entry.
 * EventBusName is not counted. The fake keeps its own copy of the rule, written from the
 * documentation rather than imported from the publisher, so a size bug in the publisher shows
 * up as a rejected call instead of being agreed with.
 */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  const encoder = new TextEncoder();
  let size = entry.Time === undefined ? 0 : 14;
  for (const text of [entry.Source, entry.DetailType, entry.Detail, ...(entry.Resources ?? [])]) {
    if (text !== undefined) size += encoder.encode(text).length;
  }
  return size;
}

/**
 * EventBridge PutEvents: rejects calls with more than 10 entries or more than 256 KB of
 * entries (ValidationException), fails single entries as the service does (InvalidArgument,
 * MalformedDetail, NotAuthorizedForSourceException for `aws.` sources) or as injected, and
 * records every accepted event per bus. Rules and targets are not modelled.
 */
export class FakeEventBridge extends FakeAwsService {
  readonly clientName = 'EventBridgeClient';
  readonly region: string;
  readonly accountId: string;

  protected readonly throttlingErrorName = 'ThrottlingException';
  protected readonly errors = new ServiceErrorFactory(EventBridgeServiceException, MODELED, {
    InternalException: { fault: 'server', httpStatusCode: 500 },
  });
  protected readonly operations = { PutEvents: this.putEvents };

  private readonly buses = new Map<string, DeliveredEvent[]>();
  private readonly entryFailures: Array<{ code: string; message: string }> = [];
  private counter = 0;

  constructor(options: FakeEventBridgeOptions) {
    super(options.clock);
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '123456789012';
  }

  /** events:PutEvents on the bus of each entry (the account's default bus when unnamed). */
  protected override authorizationRequests(_operation: string, input: object): AuthorizationRequest[] {
    const entries = (input as PutEventsCommandInput).Entries ?? [];
    const buses = new Set(entries.map((e) => e.EventBusName ?? 'default'));
    return [...buses].map((bus) => ({
      action: 'events:PutEvents',
      resource: bus.startsWith('arn:')
        ? bus
        : `arn:aws:events:${this.region}:${this.accountId}:event-bus/${bus}`,
      context: {},
    }));
  }

  protected override requestedRegion(): string {
    return this.region;
  }

  /** Events accepted on `bus` (a name or ARN), oldest first. */
  events(bus = 'default'): DeliveredEvent[] {
    return structuredClone(this.buses.get(busName(bus)) ?? []);
  }

  /** Makes the next `count` entries (across calls) fail with `code`, e.g. `InternalFailure` or `ThrottlingException`. */
  failNextEntries(count: number, code = 'InternalFailure', message = 'Internal Service Failure'): void {
    for (let i = 0; i < count; i += 1) this.entryFailures.push({ code, message });
  }

  putEvents(input: PutEventsCommandInput): OperationOutput<PutEventsCommandOutput> {
    const entries = input.Entries ?? [];
    if (entries.length < 1 || entries.length > MAX_ENTRIES_PER_CALL) {
      throw this.fail(
        'ValidationException',
        `1 validation error detected: Value '[${entries.length} entries]' at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES_PER_CALL}`,
      );
    }
    const total = entries.reduce((sum, entry) => sum + putEventsEntrySize(entry), 0);
    if (total > MAX_REQUEST_ENTRY_BYTES) {
      throw this.fail('ValidationException', 'Total size of the entries in the request is over the limit.');
    }
    const results: PutEventsResultEntry[] = entries.map((entry) => {
      const failure = this.entryFailures.shift() ?? this.validate(entry);
      if (failure !== undefined) return { ErrorCode: failure.code, ErrorMessage: failure.message };
      const id = this.eventId();
      const bus = busName(entry.EventBusName ?? 'default');
      const delivered = this.buses.get(bus) ?? [];
      delivered.push({
        version: '0',
        id,
        'detail-type': entry.DetailType!,
        source: entry.Source!,
        account: this.accountId,
        time: new Date(entry.Time?.getTime() ?? this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: this.region,
        resources: [...(entry.Resources ?? [])],
        detail: JSON.parse(entry.Detail!),
      });
      this.buses.set(bus, delivered);
      return { EventId: id };
    });
    return { FailedEntryCount: results.filter((r) => r.ErrorCode !== undefined).length, Entries: results };
  }

  private validate(entry: PutEventsRequestEntry): { code: string; message: string } | undefined {
    for (const field of ['Source', 'DetailType', 'Detail'] as const) {
      if (entry[field] === undefined || entry[field] === '') {
        return {
          code: 'InvalidArgument',
          message: `Parameter ${field} is not valid. Reason: ${field} is a required argument.`,
        };
      }
    }
    if (entry.Source!.startsWith('aws.')) {
      return { code: 'NotAuthorizedForSourceException', message: 'Not authorized for the source.' };
    }
    try {
      const detail: unknown = JSON.parse(entry.Detail!);
      if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
        throw new Error('not an object');
    } catch {
      return { code: 'MalformedDetail', message: 'Detail is malformed.' };
    }
    return undefined;
  }

  private eventId(): string {
    this.counter += 1;
    const hex = this.counter.toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${hex}`;
  }
}

function busName(nameOrArn: string): string {
  return nameOrArn.startsWith('arn:') ? (nameOrArn.split('/').at(-1) ?? nameOrArn) : nameOrArn;
}
