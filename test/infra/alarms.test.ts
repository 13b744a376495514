import { Stack, aws_sns as sns } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { podliftPropsFromContext } from '../../infra/context';
import { removeTestApps, synthStack, testApp } from './test-app';

afterAll(removeTestApps);

const { template } = synthStack();

type Json = Record<string, unknown>;
const alarms = () =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Json);
const alarm = (name: string) => {
  const found = alarms().find((a) => a.AlarmName === `podlift-demo-${name}`);
  if (!found) throw new Error(`no alarm podlift-demo-${name}`);
  return found;
};
const logicalId = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}[0-9A-F]{8}$`));
const ref = (prefix: string) => ({ Ref: logicalId(prefix) });
const getAtt = (prefix: string, attr: string) => ({ 'Fn::GetAtt': [logicalId(prefix), attr] });

describe('the alarms', () => {
  it('are the dead letters, the interruption queue age, the failing provisioner, and errors and throttles per function', () => {
    expect(
      alarms()
        .map((a) => a.AlarmName)
        .sort(),
    ).toEqual(
      [
        'dead-letters',
        'interruption-queue-age',
        'provisioner-failing',
        ...['provisioner', 'interruption', 'disruption', 'termination'].flatMap((f) => [
          `${f}-errors`,
          `${f}-throttles`,
        ]),
      ]
        .map((n) => `podlift-demo-${n}`)
        .sort(),
    );
    for (const a of alarms()) {
      expect(a.TreatMissingData).toBe('notBreaching');
      expect(a.AlarmDescription).toEqual(expect.any(String));
    }
  });

  it('fire on any visible message in the dead-letter queue', () => {
    expect(alarm('dead-letters')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: getAtt('PodliftRoutingInterruptionDeadLetterQueue', 'QueueName') },
      ],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('fire when the oldest interruption message waited over 60 s two minutes running', () => {
    expect(alarm('interruption-queue-age')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: getAtt('PodliftRoutingInterruptionQueue', 'QueueName') }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 60,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 2,
    });
  });

  it.each(['Provisioner', 'Interruption', 'Disruption', 'Termination'])(
    "watch the %s function's errors (2 of 3 five-minute periods) and throttles (3 in a row)",
    (fn) => {
      const dimensions = [{ Name: 'FunctionName', Value: ref(`PodliftFunctions${fn}`) }];
      expect(alarm(`${fn.toLowerCase()}-errors`)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: dimensions,
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      expect(alarm(`${fn.toLowerCase()}-throttles`)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: dimensions,
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 3,
      });
      expect(alarm(`${fn.toLowerCase()}-throttles`).DatapointsToAlarm).toBeUndefined();
    },
  );

  it('fire when every provisioner run failed five minutes in a row', () => {
    const failing = alarm('provisioner-failing');
    expect(failing).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 5,
    });
    const metrics = failing.Metrics as Json[];
    expect(metrics.find((m) => m.ReturnData !== false)).toMatchObject({
      Expression: 'IF(invocations > 0, errors / invocations, 0)',
    });
    const provisioner = [{ Name: 'FunctionName', Value: ref('PodliftFunctionsProvisioner') }];
    for (const [id, name] of [
      ['errors', 'Errors'],
      ['invocations', 'Invocations'],
    ]) {
      expect(metrics.find((m) => m.Id === id)).toMatchObject({
        MetricStat: {
          Metric: { Namespace: 'AWS/Lambda', MetricName: name, Dimensions: provisioner },
          Period: 60,
          Stat: 'Sum',
        },
        ReturnData: false,
      });
    }
  });

  it('notify nobody without a topic or an e-mail', () => {
    template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const a of alarms()) expect(a.AlarmActions).toBeUndefined();
  });
});

describe('alarm notifications', () => {
  it('subscribe an e-mail to a new TLS-only topic that every alarm and its recovery notify', () => {
    const { template: t } = synthStack({ alarms: { email: 'ops@example.com' } }, { nag: true });
    t.resourceCountIs('AWS::SNS::Topic', 1);
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    const all = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
    expect(all).toHaveLength(11);
    for (const a of all) {
      expect(a.Properties.AlarmActions).toEqual([ref('PodliftAlarmsTopic')]);
      expect(a.Properties.OKActions).toEqual([ref('PodliftAlarmsTopic')]);
    }
  });

  it("notify a topic of the caller's and create none", () => {
    const arn = 'arn:aws:sns:us-east-1:123456789012:oncall';
    const app = testApp();
    const { template: t } = synthStack(
      { alarms: { topic: sns.Topic.fromTopicArn(new Stack(app, 'Shared'), 'OnCall', arn) } },
      { app },
    );
    t.resourceCountIs('AWS::SNS::Topic', 0);
    for (const a of Object.values(t.findResources('AWS::CloudWatch::Alarm')))
      expect(a.Properties.AlarmActions).toEqual([arn]);
  });

  it('come from the alarmTopicArn and alarmEmail context keys, which must be well-formed', () => {
    const context = (values: Record<string, string>) => (key: string) =>
      ({ cluster: 'demo', ...values })[key];
    const stack = new Stack(testApp(), 'S');
    const props = podliftPropsFromContext(
      context({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall', alarmEmail: 'ops@example.com' }),
      stack,
    );
    expect(props.alarms?.email).toBe('ops@example.com');
    expect(props.alarms?.topic?.topicArn).toBe('arn:aws:sns:eu-west-1:123456789012:oncall');
    expect(() => podliftPropsFromContext(context({ alarmTopicArn: 'oncall' }))).toThrow(
      'context alarmTopicArn "oncall" is not an SNS topic ARN',
    );
    expect(() => podliftPropsFromContext(context({ alarmEmail: 'ops' }))).toThrow(
      'context alarmEmail "ops" is not an e-mail address',
    );
  });
});
