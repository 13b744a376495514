import type { Time } from '../shared/core/ports/time';
import { type LoopLog, type LoopMetrics, withFields } from './observability';

/**
 * One run of a control loop: what every step needs besides the ports — the time, how long the
 * Lambda may still run, who is running (the Lease holder identity), and where to say what
 * happened. Built by the handler from the Lambda context; tests and the simulator build it on a
 * virtual timeline.
 */
export interface Invocation {
  readonly time: Time;
  /** The loop's name (`provisioner`, …) and the request id: who holds the Lease. */
  readonly holder: string;
  /** Ties every log line of this invocation together (the Lambda request id, or the event's id). */
  readonly correlationId: string;
  /** Epoch ms by which the invocation must have returned (a safety margin is already taken off). */
  readonly deadline: number;
  readonly log: LoopLog;
  readonly metrics: LoopMetrics;
  /**
   * Set while the invocation holds the cluster Lease (functions/lease.ts): aborted, with a
   * LeaseLostError, once the hold is lost. Loops call `checkpoint()` before each act.
   */
  readonly signal?: AbortSignal;
}

/** Milliseconds left before `invocation`'s deadline (never negative). */
export function remainingMs(invocation: Pick<Invocation, 'time' | 'deadline'>): number {
  return Math.max(0, invocation.deadline - invocation.time.now());
}

/** The part of the Lambda context an invocation is built from. */
export interface LambdaContextLike {
  readonly awsRequestId: string;
  readonly functionName?: string;
  getRemainingTimeInMillis(): number;
}

/**
 * Time kept back from the Lambda's own timeout, so a loop that stops at its deadline still has
 * time to persist what it learned, release the Lease and flush metrics.
 */
export const DEADLINE_MARGIN_MS = 5_000;

/** What {@link invocationFor} needs besides the Lambda context. */
export interface InvocationOptions {
  readonly loop: string;
  readonly time: Time;
  readonly log: LoopLog;
  readonly metrics: LoopMetrics;
  /** The event's own id, when it has one (EventBridge `id`, SQS `messageId`); else the request id. */
  readonly correlationId?: string;
}

/** The {@link Invocation} for one Lambda call. */
export function invocationFor(context: LambdaContextLike, options: InvocationOptions): Invocation {
  const now = options.time.now();
  const correlationId = options.correlationId ?? context.awsRequestId;
  return {
    time: options.time,
    holder: `${options.loop}/${context.awsRequestId}`,
    correlationId,
    deadline: now + Math.max(0, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS),
    log: withFields(options.log, { correlationId }),
    metrics: options.metrics,
  };
}
