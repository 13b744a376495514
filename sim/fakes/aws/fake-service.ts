import type { Clock } from '../../../shared/core/ports/time';
import { type Caller, type Denial, deniedSentence, firstDenial } from './iam-policy/authorization';
import type { AuthorizationRequest } from './iam-policy/evaluate';
import type { Fault, ServiceErrorFactory } from './service-error';

/** What the service returns for an operation: the command output without the SDK's `$metadata`. */
export type OperationOutput<T> = Omit<T, '$metadata'>;

/** One call that reached a fake through an SDK client. */
export interface CallRecord {
  /** The operation name as AWS spells it, e.g. `CreateFleet`. */
  readonly operation: string;
  /** A copy of the input the caller sent. */
  readonly input: unknown;
  /** Clock time of the call, in ms since the epoch. */
  readonly at: number;
  /** The error the call failed with (`name`, `message`), if it failed. */
  readonly error?: { readonly name: string; readonly message: string };
}

/** How an injected failure is shaped. */
export interface InjectedFailure {
  /** @default 1 */
  readonly times?: number;
  /** @default a message naming the operation and saying the failure was injected */
  readonly message?: string;
  /** @default from the service's table of known codes */
  readonly fault?: Fault;
  /** @default from the service's table of known codes */
  readonly httpStatusCode?: number;
}

interface PendingFailure {
  readonly build: () => Error;
  remaining: number;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers take each operation's own input type; the table is indexed by name at run time.
type OperationHandler = (input: any) => object;

/** The IAM service prefix of each client's actions. */
const IAM_PREFIXES: Readonly<Record<string, string>> = {
  EC2Client: 'ec2',
  IAMClient: 'iam',
  SSMClient: 'ssm',
  EventBridgeClient: 'events',
  EKSClient: 'eks',
  PricingClient: 'pricing',
  SQSClient: 'sqs',
};

/**
 * What every AWS fake shares: a call log, injected failures, throttling and unreachability,
 * and the routing of an operation name to the fake's handler. Subclasses list their
 * operations in `operations`; `attachFake` puts the fake behind a real SDK client.
 *
 * Only calls made through a client are logged and subject to injected failures; calling a
 * fake's methods directly (to seed or inspect state) bypasses both.
 */
export abstract class FakeAwsService {
  /** The SDK client class this fake answers for, e.g. `EC2Client`. */
  abstract readonly clientName: string;
  /** The error code this service returns when it throttles a caller. */
  protected abstract readonly throttlingErrorName: string;
  /** Operation name (as AWS spells it) to handler. */
  protected abstract readonly operations: Readonly<Record<string, OperationHandler>>;
  protected abstract readonly errors: ServiceErrorFactory;

  /** Every call that reached the fake through a client, oldest first. */
  readonly calls: CallRecord[] = [];

  private readonly failures = new Map<string, PendingFailure[]>();
  private unreachableError: (() => Error) | undefined;

  constructor(protected readonly clock: Clock) {}

  /** The operations this fake answers, as AWS spells them. */
  operationNames(): string[] {
    return Object.keys(this.operations).sort();
  }

  /** Inputs of the calls made to `operation`, oldest first. */
  callsTo(operation: string): unknown[] {
    this.assertOperation(operation);
    return this.calls.filter((call) => call.operation === operation).map((call) => call.input);
  }

  /**
   * Makes the next calls to `operation` (one, `times`, or `failure.times`) fail with the AWS
   * error code `errorName`, shaped as the SDK would throw it.
   */
  failNext(operation: string, errorName: string, timesOrFailure: number | InjectedFailure = {}): void {
    this.assertOperation(operation);
    const failure = typeof timesOrFailure === 'number' ? { times: timesOrFailure } : timesOrFailure;
    const message = failure.message ?? `${operation} failed with ${errorName} (injected by the fake)`;
    const queue = this.failures.get(operation) ?? [];
    queue.push({
      build: () =>
        this.errors.create({
          name: errorName,
          message,
          fault: failure.fault,
          httpStatusCode: failure.httpStatusCode,
        }),
      remaining: failure.times ?? 1,
    });
    this.failures.set(operation, queue);
  }

  /** Makes the next `times` calls to `operation` fail with this service's throttling error. */
  throttle(operation: string, times = 1): void {
    this.failNext(operation, this.throttlingErrorName, { times, message: 'Rate exceeded' });
  }

  /** Forgets every injected failure that has not fired yet. */
  clearFailures(): void {
    this.failures.clear();
  }

  /**
   * Makes every call fail as if the endpoint could not be reached (DNS failure), or lifts that.
   * The error is a plain Node error with `code: 'ENOTFOUND'`, not a service exception, as the
   * SDK surfaces it.
   */
  setUnreachable(
    unreachable: boolean,
    host = `${this.clientName.replace(/Client$/, '').toLowerCase()}.amazonaws.com`,
  ): void {
    this.unreachableError = unreachable
      ? () =>
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {
            code: 'ENOTFOUND',
            $metadata: { attempts: 1 },
          })
      : undefined;
  }

  /**
   * Runs `operation` as the service would; used by `attachFake`. With a `caller`, the request is
   * first evaluated against the caller's identity policies, as AWS does before anything else,
   * and refused with the service's access-denied error when they do not allow it.
   */
  invoke(operation: string, input: unknown, caller?: Caller): object {
    const handler = this.operations[operation];
    if (handler === undefined) {
      throw new Error(
        `${this.constructor.name} does not model ${operation}; it answers ${this.operationNames().join(', ')}`,
      );
    }
    const record: {
      operation: string;
      input: unknown;
      at: number;
      error?: { name: string; message: string };
    } = {
      operation,
      input: structuredClone(input),
      at: this.clock.now(),
    };
    this.calls.push(record);
    try {
      if (this.unreachableError !== undefined) throw this.unreachableError();
      this.fireInjectedFailure(operation);
      if (caller !== undefined) {
        const denial = firstDenial(
          caller,
          this.authorizationRequests(operation, input ?? {}),
          this.requestedRegion(),
        );
        if (denial !== undefined) throw this.accessDenied(caller, denial);
      }
      return structuredClone(handler.call(this, structuredClone(input ?? {})));
    } catch (error) {
      const { name, message } = error as Error;
      record.error = { name, message };
      throw error;
    }
  }

  /**
   * What AWS authorizes for a call: one request per action and resource, with the condition
   * keys the service fills in. By default the operation's action on `*` (for services or
   * actions without resource-level permissions); services with resource ARNs override it.
   */
  protected authorizationRequests(operation: string, _input: object): AuthorizationRequest[] {
    return [{ action: `${this.iamPrefix()}:${operation}`, resource: '*', context: {} }];
  }

  /** The region a request goes to (`aws:RequestedRegion`); IAM and Pricing answer from us-east-1. */
  protected requestedRegion(): string {
    return 'us-east-1';
  }

  /** The service's refusal of a request the caller's policies do not allow. */
  protected accessDenied(caller: Caller, denial: Denial): Error {
    return this.errors.create({
      name: 'AccessDeniedException',
      message: deniedSentence(caller, denial),
      fault: 'client',
      httpStatusCode: 400,
    });
  }

  /** The prefix of this service's IAM actions, e.g. `ec2`. */
  protected iamPrefix(): string {
    const prefix = IAM_PREFIXES[this.clientName];
    if (prefix === undefined)
      throw new Error(`${this.constructor.name}: no IAM prefix for ${this.clientName}`);
    return prefix;
  }

  /** Builds this service's SDK-shaped error for `name`. */
  protected fail(name: string, message: string, fault?: Fault): Error {
    return this.errors.create({ name, message, fault });
  }

  private fireInjectedFailure(operation: string): void {
    const queue = this.failures.get(operation);
    const next = queue?.[0];
    if (queue === undefined || next === undefined) return;
    next.remaining -= 1;
    if (next.remaining <= 0) queue.shift();
    throw next.build();
  }

  private assertOperation(operation: string): void {
    if (!(operation in this.operations)) {
      throw new Error(
        `${this.constructor.name} has no operation ${operation}; it answers ${this.operationNames().join(', ')}`,
      );
    }
  }
}
