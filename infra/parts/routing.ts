import {
  Duration,
  aws_events as events,
  type aws_lambda as lambda,
  aws_sqs as sqs,
  aws_events_targets as targets,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import {
  CLUSTER_BUS_RULES,
  type EventPattern,
  type FunctionName,
  INTERRUPTION_RULES,
  SCHEDULES,
} from '../../shared/core/contracts/routing';

/**
 * Karpenter's interruption queue keeps messages 300 s (cloudformation.yaml,
 * KarpenterInterruptionQueue): a spot warning gives two minutes, so an older message is moot.
 */
export const INTERRUPTION_RETENTION = Duration.seconds(300);

/** Receives of one message before it goes to the dead-letter queue. */
export const INTERRUPTION_MAX_RECEIVES = 3;

/** Props of {@link Routing}. */
export interface RoutingProps {
  readonly clusterName: string;
  /** The interruption function's timeout: a received message stays invisible this long. */
  readonly interruptionTimeout: Duration;
}

/**
 * The cluster's event bus and the interruption queue. Rules are created by {@link Routing.route}
 * from shared/core/contracts/routing.ts, the list the simulator routes by.
 */
export class Routing extends Construct {
  readonly bus: events.EventBus;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: RoutingProps) {
    super(scope, id);
    this.bus = new events.EventBus(this, 'Bus', { eventBusName: `podlift-${props.clusterName}` });
    this.deadLetterQueue = new sqs.Queue(this, 'InterruptionDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'InterruptionQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: INTERRUPTION_RETENTION,
      // The function's timeout, the least Lambda's event source accepts: a record the function
      // reported failed (partial batch response) comes back after it, within a spot warning's
      // two minutes (shared/core/contracts/routing.ts INTERRUPTION_VISIBILITY_TIMEOUT_SECONDS,
      // which the simulator's queue uses).
      visibilityTimeout: props.interruptionTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: INTERRUPTION_MAX_RECEIVES },
    });
    // Karpenter's queue policy (KarpenterInterruptionQueuePolicy) lets events.amazonaws.com and
    // sqs.amazonaws.com send from anywhere; here each default-bus rule's SqsQueue target adds a
    // statement for events.amazonaws.com conditioned on that rule's ARN (aws:SourceArn), so no
    // other rule or account can write to the queue.
  }

  /**
   * Creates every rule and schedule of the routing data, each sending to its function (the
   * cluster bus and the schedules) or to the interruption queue (the default bus). Returns the
   * rules by their data id.
   */
  route(functions: Readonly<Record<FunctionName, lambda.IFunction>>): Map<string, events.Rule> {
    const rules = new Map<string, events.Rule>();
    for (const rule of CLUSTER_BUS_RULES) {
      const created = new events.Rule(this, rule.id, {
        eventBus: this.bus,
        description: rule.description,
        eventPattern: toCdkPattern(rule.pattern),
        targets: [new targets.LambdaFunction(functions[rule.target], { retryAttempts: 2 })],
      });
      rules.set(rule.id, created);
    }
    for (const rule of INTERRUPTION_RULES) {
      if (rule.target !== 'interruption') {
        throw new Error(
          `Routing: default-bus rule ${rule.id} targets ${rule.target}; only the queue is supported`,
        );
      }
      const created = new events.Rule(this, rule.id, {
        description: rule.description,
        eventPattern: toCdkPattern(rule.pattern),
        targets: [new targets.SqsQueue(this.queue)],
      });
      rules.set(rule.id, created);
    }
    for (const schedule of SCHEDULES) {
      const created = new events.Rule(this, schedule.id, {
        description: schedule.description,
        schedule: events.Schedule.rate(Duration.seconds(schedule.everySeconds)),
        // A missed tick is replaced by the next one a minute later: no retries that pile up.
        targets: [new targets.LambdaFunction(functions[schedule.target], { retryAttempts: 0 })],
      });
      rules.set(schedule.id, created);
    }
    return rules;
  }
}

/**
 * The routing data's pattern as CDK's `EventPattern`: `source` and `detail-type` map to its
 * `source` and `detailType`, everything else is passed as-is (CDK renders the keys unchanged).
 */
export function toCdkPattern(pattern: EventPattern): events.EventPattern {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(pattern)) {
    const key = field === 'detail-type' ? 'detailType' : field;
    out[key] = value;
  }
  return out as events.EventPattern;
}
