import {
  aws_cloudwatch_actions as actions,
  aws_cloudwatch as cloudwatch,
  Duration,
  type aws_lambda as lambda,
  aws_sns as sns,
  type aws_sqs as sqs,
  aws_sns_subscriptions as subscriptions,
  Validations,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { FunctionName } from '../../shared/core/contracts/routing';

/** Where podlift's alarms notify: an SNS topic of yours, an e-mail address, or nobody. */
export interface AlarmNotificationProps {
  /**
   * The topic every alarm (and its return to OK) is sent to.
   * @default a new topic when `email` is given, else no notification (the alarms still show)
   */
  readonly topic?: sns.ITopic;
  /**
   * An address subscribed to the topic (AWS sends it a confirmation mail first).
   * @default no subscription
   */
  readonly email?: string;
}

/** Props of {@link PodliftAlarms}. */
export interface PodliftAlarmsProps extends AlarmNotificationProps {
  readonly clusterName: string;
  readonly functions: Readonly<Record<FunctionName, lambda.IFunction>>;
  readonly interruptionQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * How long the oldest interruption message may wait: EC2 warns two minutes before reclaiming a
 * spot instance, and the replacement must be launched and the node drained inside them.
 */
export const INTERRUPTION_AGE_LIMIT = Duration.seconds(60);

/** Consecutive minutes of provisioner runs that all failed before {@link PodliftAlarms} fires. */
export const PROVISIONER_FAILING_MINUTES = 5;

/**
 * The alarms an operator of podlift needs, each named `podlift-<cluster>-<what>` and described
 * with what to do (docs/operations.md, "Alarms and dashboard"):
 * - dead letters: an interruption message failed three receives (DLQ visible messages > 0);
 * - per function, errors in two of the last three 5-minute periods, and throttles in three
 *   5-minute periods in a row (a single overlap of the one-concurrency loops is by design);
 * - the interruption queue's oldest message older than {@link INTERRUPTION_AGE_LIMIT} twice in a row;
 * - every provisioner run failing for {@link PROVISIONER_FAILING_MINUTES} minutes in a row: no
 *   capacity is being added at all.
 * Missing data (no invocations) is never a breach.
 */
export class PodliftAlarms extends Construct {
  /** Every alarm, for dashboards and tests. */
  readonly alarms: cloudwatch.Alarm[] = [];
  /** Where the alarms notify, if anywhere. */
  readonly topic?: sns.ITopic;

  constructor(scope: Construct, id: string, props: PodliftAlarmsProps) {
    super(scope, id);
    const name = (what: string) => `podlift-${props.clusterName}-${what}`;
    if (props.topic) this.topic = props.topic;
    else if (props.email) {
      const topic = new sns.Topic(this, 'Topic', {
        displayName: `podlift ${props.clusterName} alarms`,
        enforceSSL: true,
      });
      Validations.of(topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed aws/sns key, and the messages carry only alarm names and states; bring an encrypted topic of yours with props.alarms.topic',
      });
      this.topic = topic;
    }
    if (props.email) this.topic?.addSubscription(new subscriptions.EmailSubscription(props.email));

    this.add('DeadLetters', {
      alarmName: name('dead-letters'),
      alarmDescription:
        'Interruption messages failed three times and sit in the dead-letter queue: read them (aws sqs receive-message), check the interruption function log for why, then redrive or delete them.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add('InterruptionQueueAge', {
      alarmName: name('interruption-queue-age'),
      alarmDescription: `Interruption messages wait more than ${INTERRUPTION_AGE_LIMIT.toSeconds()} s: spot instances may be reclaimed before their pods move. Check the interruption function's errors and throttles.`,
      metric: props.interruptionQueue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: INTERRUPTION_AGE_LIMIT.toSeconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
    });
    for (const [fn, handler] of Object.entries(props.functions) as [FunctionName, lambda.IFunction][]) {
      this.add(`${capitalise(fn)}Errors`, {
        alarmName: name(`${fn}-errors`),
        alarmDescription: `The ${fn} function failed in two of the last three 5-minute periods: read its log group for the error lines.`,
        metric: handler.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      });
      this.add(`${capitalise(fn)}Throttles`, {
        alarmName: name(`${fn}-throttles`),
        alarmDescription: `The ${fn} function was throttled for 15 minutes in a row: its runs take longer than its triggers come, or the account's concurrency is exhausted.`,
        metric: handler.metricThrottles({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
      });
    }
    const provisioner = props.functions.provisioner;
    this.add('ProvisionerFailing', {
      alarmName: name('provisioner-failing'),
      alarmDescription: `Every provisioner run failed for ${PROVISIONER_FAILING_MINUTES} minutes in a row: pending pods get no capacity. Read the provisioner log group; common causes are the cluster access (RBAC, access entry) and EC2 permissions.`,
      metric: new cloudwatch.MathExpression({
        expression: 'IF(invocations > 0, errors / invocations, 0)',
        usingMetrics: {
          errors: provisioner.metricErrors({ period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM }),
          invocations: provisioner.metricInvocations({
            period: Duration.minutes(1),
            statistic: cloudwatch.Stats.SUM,
          }),
        },
        label: 'failed share of provisioner runs',
        period: Duration.minutes(1),
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: PROVISIONER_FAILING_MINUTES,
    });
  }

  private add(id: string, props: cloudwatch.AlarmProps): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...props,
    });
    if (this.topic) {
      alarm.addAlarmAction(new actions.SnsAction(this.topic));
      alarm.addOkAction(new actions.SnsAction(this.topic));
    }
    this.alarms.push(alarm);
  }
}

function capitalise(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
