import type { ResponseMetadata } from '@smithy/types';

/** Whether AWS blames the caller (4xx) or itself (5xx) for an error. */
export type Fault = 'client' | 'server';

/** How a fake describes an error before it is turned into the SDK's exception class. */
export interface ServiceErrorSpec {
  /** The error code AWS returns, which the SDK exposes as `err.name`. */
  readonly name: string;
  readonly message: string;
  /** @default from the service's table of known codes, else 'client' */
  readonly fault?: Fault;
  /** @default from the service's table of known codes, else 400 (client) or 500 (server) */
  readonly httpStatusCode?: number;
}

/** The options every SDK v3 ServiceException subclass accepts. */
interface ServiceExceptionInit {
  name: string;
  $fault: Fault;
  $metadata: ResponseMetadata;
  message?: string;
}

/** The package's base exception, e.g. `EC2ServiceException`. */
export type ServiceExceptionClass = new (options: ServiceExceptionInit) => Error;

/**
 * A modeled exception class, e.g. IAM's `NoSuchEntityException`. Their constructors take
 * `{ $metadata, message, ...modeled fields }`; the only modeled field the fakes set is the
 * `Message` some of them carry besides `message`.
 */
export type ModeledExceptionClass = new (options: {
  $metadata: ResponseMetadata;
  message: string;
  Message: string | undefined;
}) => Error;

/** Fault and HTTP status of the error codes a service is known to return. */
export type KnownErrorTable = Readonly<
  Record<string, { readonly fault: Fault; readonly httpStatusCode: number }>
>;

let requestCounter = 0;

/** A request id shaped like AWS's (a UUID), unique within the process and deterministic in order. */
export function nextRequestId(): string {
  requestCounter += 1;
  const hex = requestCounter.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

/** The `$metadata` the SDK attaches to a response or error that took one attempt. */
export function responseMetadata(httpStatusCode: number): ResponseMetadata {
  return { httpStatusCode, requestId: nextRequestId(), attempts: 1, totalRetryDelay: 0 };
}

/**
 * Builds errors exactly as the SDK would after deserializing an AWS error response: an
 * instance of the modeled exception class when the package has one for the code (so
 * `instanceof ParameterNotFound` works), otherwise an instance of the package's base
 * ServiceException with `name` set to the code (EC2 models no exceptions at all).
 */
export class ServiceErrorFactory {
  constructor(
    private readonly base: ServiceExceptionClass,
    private readonly modeled: Readonly<Record<string, ModeledExceptionClass>>,
    private readonly known: KnownErrorTable,
  ) {}

  create(spec: ServiceErrorSpec): Error {
    const known = this.known[spec.name];
    const fault = spec.fault ?? known?.fault ?? 'client';
    const httpStatusCode = spec.httpStatusCode ?? known?.httpStatusCode ?? (fault === 'client' ? 400 : 500);
    const $metadata = responseMetadata(httpStatusCode);
    const Modeled = this.modeled[spec.name];
    if (Modeled !== undefined)
      return new Modeled({ $metadata, message: spec.message, Message: spec.message });
    return new this.base({ name: spec.name, $fault: fault, $metadata, message: spec.message });
  }
}
