import type { SQSRecord } from 'aws-lambda';
import { makeDisruptionHandler } from '../../functions/disruption/handler';
import { makeInterruptionHandler } from '../../functions/interruption/handler';
import { makeProvisionerHandler } from '../../functions/provisioner/handler';
import { type LoopRuntime, runtimeOf } from '../../functions/runtime';
import { makeTerminationHandler } from '../../functions/termination/handler';
import {
  FUNCTION_TIMEOUT_SECONDS,
  type FunctionName,
  INTERRUPTION_VISIBILITY_TIMEOUT_SECONDS,
  routeEvent,
  SCHEDULES,
} from '../../shared/core/contracts/routing';
import { deniedSentence, firstDenial } from '../fakes/aws/iam-policy/authorization';
import { type LoggedLine, RecordingObservability } from '../fakes/ports/recording-observability';
import type { VirtualTime } from '../virtual-time';
import { type ClusterWorld, interruptionQueueArn, roleOf } from './cluster-world';
import { InterruptionQueue } from './interruption-queue';
import type { SequencedIo } from './io-sequencer';

/** Modelled latencies of the AWS plumbing, virtual ms. */
export interface RoutingLatencies {
  /** PutEvents (or a schedule firing) to the Lambda starting. @default 500 */
  readonly eventToInvocationMs?: number;
  /** A message becoming visible to the SQS poller starting the interruption function. @default 1000 */
  readonly queueToInvocationMs?: number;
}

/** Faults in event delivery: EventBridge is at-least-once and unordered, and a target can miss an event. */
export interface EventFaults {
  /** Probability an event is delivered twice. */
  readonly duplicate?: number;
  /** Probability an event is never delivered. */
  readonly drop?: number;
  /** Up to this many ms of extra, random delivery delay (reorders events). */
  readonly jitterMs?: number;
  /** Seeded source in [0, 1). */
  readonly random: () => number;
}

/** One function invocation the router ran. */
export interface InvocationRecord {
  readonly fn: FunctionName;
  readonly at: number;
  readonly trigger: string;
  readonly outcome: 'ok' | 'threw';
  readonly error?: string;
}

/** A function handler as Lambda calls it. */
type Handler = (
  event: unknown,
  context: { awsRequestId: string; getRemainingTimeInMillis(): number },
) => Promise<unknown>;

interface Pending {
  readonly fn: FunctionName;
  readonly event: unknown;
  readonly at: number;
  readonly trigger: string;
  /** Lambda's asynchronous invocation retries left (two by default). */
  readonly retriesLeft: number;
}

/**
 * The AWS plumbing between events and podlift's real handlers, routed by the rules the CDK stack
 * creates (shared/core/contracts/routing.ts): the watcher's events on the cluster bus invoke
 * their target functions asynchronously (a throwing invocation is retried twice, one and two
 * minutes later, as Lambda retries asynchronous invocations); AWS events on the default bus go
 * to the interruption queue, whose batches the interruption function gets as real SQS events
 * with partial batch responses; the one-minute schedules start their functions. Invocations run
 * one at a time, each to completion, while virtual time stands still except for the backoffs the
 * function waits on.
 */
export class FunctionRouter {
  readonly queue: InterruptionQueue;
  readonly invocations: InvocationRecord[] = [];
  /**
   * Set by fault injection: the named function's next run crashes mid-invocation — after its
   * first few requests, every further write to the API server and every EC2 call fails, as if
   * the container died there — and the run counts as failed.
   */
  readonly crashNext = new Set<FunctionName>();
  private readonly handlers: Record<FunctionName, Handler>;
  private readonly pending: Pending[] = [];
  private readonly nextSchedule = new Map<string, number>();
  private readonly latencies: Required<RoutingLatencies>;
  private busCursor = 0;
  private serial = 0;
  /** Delivery faults applied to cluster-bus events from now on. */
  faults: EventFaults | undefined;

  constructor(
    private readonly world: ClusterWorld,
    onLine: (fn: FunctionName, line: LoggedLine) => void,
    latencies: RoutingLatencies = {},
  ) {
    const time = world.time;
    this.latencies = {
      eventToInvocationMs: latencies.eventToInvocationMs ?? 500,
      queueToInvocationMs: latencies.queueToInvocationMs ?? 1000,
    };
    this.queue = new InterruptionQueue({
      clock: time,
      arn: interruptionQueueArn(world.config.region, world.config.clusterName),
      region: world.config.region,
      // The stack's queue (infra/parts/routing.ts).
      visibilityTimeoutMs: INTERRUPTION_VISIBILITY_TIMEOUT_SECONDS * 1000,
    });
    const runtime = (fn: FunctionName): (() => LoopRuntime) => {
      const seen = new RecordingObservability((line) => onLine(fn, line));
      // Each function is its own Lambda container: its own ports, caches and unavailable offerings.
      // It authenticates to the API server as that function (its IAM role's access entry), and its
      // AWS clients carry the function's role: the fakes refuse what the stack does not grant it.
      const rt = runtimeOf(fn, world.composeAgain(fn), time, seen.log, seen.metricsPort);
      return () => rt;
    };
    this.handlers = {
      provisioner: makeProvisionerHandler(runtime('provisioner')),
      disruption: makeDisruptionHandler(runtime('disruption')),
      termination: makeTerminationHandler(runtime('termination')),
      interruption: makeInterruptionHandler(runtime('interruption')) as Handler,
    };
    for (const schedule of SCHEDULES)
      this.nextSchedule.set(schedule.id, time.now() + schedule.everySeconds * 1000);
  }

  /** An AWS event on the account's default bus: the interruption rules send it to the queue. */
  putDefaultBusEvent(event: unknown): FunctionName[] {
    const targets = routeEvent('default', event);
    if (targets.includes('interruption')) this.queue.send(event);
    return targets;
  }

  /** Routes the events the watcher put on the cluster bus since the last call. */
  drainClusterBus(): number {
    const bus = this.world.config.eventBusName;
    const events = this.world.fakes.eventBridge.events(bus);
    const fresh = events.slice(this.busCursor);
    this.busCursor = events.length;
    for (const event of fresh) this.enqueueEvent(event, this.latencies.eventToInvocationMs);
    return fresh.length;
  }

  /** Queues `event` for the functions the cluster-bus rules route it to, after `delayMs`. */
  enqueueEvent(event: unknown, delayMs = this.latencies.eventToInvocationMs): void {
    const detailType = (event as { 'detail-type'?: string })['detail-type'] ?? '?';
    for (const fn of routeEvent('cluster', event)) {
      const f = this.faults;
      if (f?.drop && f.random() < f.drop) continue;
      const copies = f?.duplicate && f.random() < f.duplicate ? 2 : 1;
      for (let i = 0; i < copies; i++) {
        const jitter = f?.jitterMs ? Math.floor(f.random() * f.jitterMs) : 0;
        this.pending.push({
          fn,
          event,
          at: this.world.time.now() + delayMs + jitter,
          trigger: detailType,
          retriesLeft: 2,
        });
      }
    }
  }

  /** Runs every invocation that is due: schedules, routed events, and the queue's visible batches. */
  async runDue(): Promise<void> {
    const now = this.world.time.now();
    for (const schedule of SCHEDULES) {
      const due = this.nextSchedule.get(schedule.id) ?? now;
      if (due > now) continue;
      this.nextSchedule.set(schedule.id, due + schedule.everySeconds * 1000);
      this.pending.push({
        fn: schedule.target,
        event: this.scheduledEvent(schedule.id),
        at: now,
        trigger: 'schedule',
        retriesLeft: 2,
      });
    }
    this.pending.sort((a, b) => a.at - b.at);
    while (this.pending.length > 0 && this.pending[0].at <= this.world.time.now()) {
      const next = this.pending.shift() as Pending;
      const outcome = await this.invoke(next.fn, next.event, next.trigger);
      if (outcome === 'threw' && next.retriesLeft > 0)
        this.pending.push({
          ...next,
          at: this.world.time.now() + (3 - next.retriesLeft) * 60_000,
          retriesLeft: next.retriesLeft - 1,
        });
    }
    const denied = this.queuePollingDenied();
    if (denied !== undefined) {
      // The event source mapping cannot poll: the messages stay in the queue, as in Lambda.
      if (this.queue.depth > 0)
        this.invocations.push({
          fn: 'interruption',
          at: this.world.time.now(),
          trigger: 'sqs',
          outcome: 'threw',
          error: denied,
        });
      return;
    }
    for (let batch = this.queue.receive(); batch; batch = this.queue.receive()) {
      const records = batch.Records;
      let failed: string[] = records.map((r) => r.messageId);
      const response = await this.invokeFor('interruption', batch, 'sqs');
      if (response.outcome === 'ok')
        failed = (
          (response.value as { batchItemFailures?: { itemIdentifier: string }[] })?.batchItemFailures ?? []
        ).map((f) => f.itemIdentifier);
      this.queue.complete(records as SQSRecord[], failed);
    }
  }

  /**
   * Why Lambda's SQS event source could not poll the queue for the interruption function, if it
   * could not: it receives, deletes and changes visibility with the function's role, and reads
   * the queue's attributes (AWS Lambda developer guide, "Execution role permissions" for SQS).
   */
  private queuePollingDenied(): string | undefined {
    const policies = this.world.policies;
    if (policies === false) return undefined;
    const caller = {
      arn: 'arn:aws:sts::123456789012:assumed-role/podlift-functions/interruption',
      policies: policies[roleOf('interruption')],
    };
    const actions = [
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueAttributes',
    ];
    const denial = firstDenial(
      caller,
      actions.map((action) => ({ action, resource: this.queue.arn, context: {} })),
      this.world.config.region,
    );
    return denial === undefined ? undefined : deniedSentence(caller, denial);
  }

  /** When the next invocation is due (routed event, schedule or queued message), for skipping idle time. */
  nextDue(): number {
    return Math.min(...this.pending.map((p) => p.at), ...this.nextSchedule.values());
  }

  private async invoke(fn: FunctionName, event: unknown, trigger: string): Promise<'ok' | 'threw'> {
    return (await this.invokeFor(fn, event, trigger)).outcome;
  }

  private async invokeFor(
    fn: FunctionName,
    event: unknown,
    trigger: string,
  ): Promise<{ outcome: 'ok' | 'threw'; value?: unknown }> {
    const time = this.world.time;
    const at = time.now();
    const id = `${fn}-${++this.serial}`;
    try {
      const crash = this.crashNext.delete(fn) ? this.crashAfter(this.worldRequests() + 3) : undefined;
      const value = await settleOn(
        time,
        this.world.io,
        // Each function gets the timeout the stack gives it (FUNCTION_TIMEOUT_SECONDS), so a loop
        // that waits while it has time waits no longer than it would in Lambda.
        this.handlers[fn](event, {
          awsRequestId: id,
          getRemainingTimeInMillis: () => FUNCTION_TIMEOUT_SECONDS[fn] * 1000,
        }),
        crash?.poll,
      ).finally(() => crash?.end());
      if (crash?.fired) throw new Error(`${fn} crashed mid-invocation (injected fault)`);
      this.invocations.push({ fn, at, trigger, outcome: 'ok' });
      return { outcome: 'ok', value };
    } catch (error) {
      this.invocations.push({ fn, at, trigger, outcome: 'threw', error: (error as Error).message });
      return { outcome: 'threw' };
    }
  }

  /** Cuts the world off from the running function once it has made `afterRequests` requests in all. */
  private crashAfter(afterRequests: number) {
    const { kube, ec2 } = this.world.fakes;
    const state = {
      fired: false,
      poll: () => {
        if (state.fired || this.worldRequests() < afterRequests) return;
        state.fired = true;
        for (const verb of ['create', 'update', 'patch', 'delete'] as const)
          kube.failNext(verb, '*', 503, { times: 1_000_000 });
        ec2.setUnreachable(true);
      },
      end: () => {
        kube.clearFaults();
        ec2.setUnreachable(false);
      },
    };
    return state;
  }

  /** How many requests the fakes have answered: grows while a function does I/O. */
  private worldRequests(): number {
    const f = this.world.fakes;
    return (
      f.kube.requests.length +
      f.ec2.calls.length +
      f.ssm.calls.length +
      f.eventBridge.calls.length +
      f.iam.calls.length +
      f.pricing.calls.length +
      f.eks.calls.length
    );
  }

  private scheduledEvent(ruleId: string) {
    const time = this.world.time;
    return {
      version: '0',
      id: `sched-${++this.serial}`,
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: new Date(time.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      region: this.world.config.region,
      resources: [
        `arn:aws:events:${this.world.config.region}:123456789012:rule/podlift-${this.world.config.clusterName}-${ruleId}`,
      ],
      detail: {},
    };
  }
}

/**
 * Settles `run` while moving virtual time on for it: whenever the world's real I/O has settled
 * (`io.idle`: every request served in order and read, the watcher caught up) and the run is not
 * done, it is waiting on a timer — a backoff, a Lease — and the clock moves to the next one due
 * within 10 s; while it does I/O the clock stands still. `poll` runs at each of those points and
 * before each request the API server serves, the places a run can be cut off at the same request
 * in every replay.
 */
export async function settleOn<T>(
  time: VirtualTime,
  io: SequencedIo,
  run: Promise<T>,
  poll?: () => void,
): Promise<T> {
  let done = false;
  const tracked = run.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  const stopPolling = poll ? io.onServe(poll) : undefined;
  try {
    for (;;) {
      await io.idle();
      if (done) break;
      poll?.();
      const [next] = time.delays();
      // Nothing the world knows of is due soon: the run waits on something else; give it real time.
      if (next === undefined || next > 10_000) await new Promise((resolve) => setTimeout(resolve, 1));
      else await time.advanceAsync(Math.max(next, 0));
    }
  } finally {
    stopPolling?.();
  }
  return tracked;
}
