import { aws_cloudwatch as cloudwatch, Duration, type aws_lambda as lambda } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { FunctionName } from '../../shared/core/contracts/routing';

/** The CloudWatch namespace functions/observability.ts publishes EMF to. */
export const METRICS_NAMESPACE = 'podlift';

/**
 * The metric names the dashboard shows, as functions/observability.ts `METRICS` spells them
 * (copied, not imported, so synth does not load the functions' Powertools;
 * test/infra/dashboard.test.ts holds the two equal).
 */
export const METRICS = {
  costPerHour: 'NodePoolDollarsPerHour',
  podsUnschedulable: 'PodsUnschedulable',
  podsScheduled: 'PodsScheduled',
  nodeClaimsLaunched: 'NodeClaimsLaunched',
  nodeClaimsLaunchFailed: 'NodeClaimsLaunchFailed',
  insufficientCapacity: 'InsufficientCapacityErrors',
  nodeClaimsInitialized: 'NodeClaimsInitialized',
  timeToInitialized: 'NodeClaimTimeToInitialized',
  interruptionMessages: 'InterruptionMessages',
  disruptionCommands: 'DisruptionCommands',
  savingsPerHour: 'DisruptionSavingsDollarsPerHour',
  decisionTime: 'DecisionTime',
  invocationTime: 'InvocationTime',
} as const;

type MetricName = (typeof METRICS)[keyof typeof METRICS];

/** Props of {@link PodliftDashboard}. */
export interface PodliftDashboardProps {
  readonly clusterName: string;
  readonly functions: Readonly<Record<FunctionName, lambda.IFunction>>;
  /** Shown in an alarm status widget. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

const PERIOD = Duration.minutes(1);

/**
 * One podlift metric of `fn` with exactly the dimensions Powertools gives it
 * (functions/observability.ts: `service` = `podlift-<loop>` and the default `cluster`).
 */
function loopMetric(
  clusterName: string,
  fn: FunctionName,
  name: MetricName,
  statistic: string,
  label: string,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: `podlift-${fn}`, cluster: clusterName },
    statistic,
    period: PERIOD,
    label,
  });
}

/**
 * Every series of `name` that `fn` publishes with one more dimension (`nodePool`, `kind`,
 * `method`…), whatever its values, by a CloudWatch SEARCH over that exact dimension set.
 */
function searchByDimension(
  clusterName: string,
  fn: FunctionName,
  name: MetricName,
  dimensions: readonly string[],
  statistic: string,
  label: string,
): cloudwatch.MathExpression {
  const schema = [METRICS_NAMESPACE, 'cluster', 'service', ...dimensions].join(',');
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${name}" cluster="${clusterName}" service="podlift-${fn}"', '${statistic}', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    label,
    period: PERIOD,
  });
}

/**
 * podlift at a glance, from the EMF metrics the functions publish (names from
 * functions/observability.ts `METRICS`): cost per NodePool, pending pods, launches and their
 * failures, interruption messages, disruption decisions and savings, the provisioner's decision
 * and run times (the share of a pod's time to capacity podlift controls), the functions' errors
 * and throttles, and the alarms' state.
 */
export class PodliftDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: PodliftDashboardProps) {
    super(scope, id);
    const c = props.clusterName;
    const graph = (title: string, left: cloudwatch.IMetric[], unit?: string) =>
      new cloudwatch.GraphWidget({
        title,
        left,
        width: 12,
        height: 6,
        ...(unit ? { leftYAxis: { label: unit, showUnits: false, min: 0 } } : {}),
      });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `podlift-${c}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 3 }),
    );
    this.dashboard.addWidgets(
      graph(
        'Cost per NodePool ($/h)',
        [searchByDimension(c, 'provisioner', METRICS.costPerHour, ['nodePool'], 'Maximum', '')],
        '$/h',
      ),
      graph('Pending pods', [
        loopMetric(c, 'provisioner', METRICS.podsUnschedulable, 'Maximum', 'unschedulable after a run'),
        loopMetric(c, 'provisioner', METRICS.podsScheduled, 'Sum', 'scheduled onto new capacity'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Launches', [
        searchByDimension(c, 'provisioner', METRICS.nodeClaimsLaunched, ['nodePool'], 'Sum', ''),
        loopMetric(c, 'provisioner', METRICS.nodeClaimsLaunchFailed, 'Sum', 'launch failed'),
        loopMetric(c, 'provisioner', METRICS.insufficientCapacity, 'Sum', 'insufficient capacity'),
        loopMetric(c, 'provisioner', METRICS.nodeClaimsInitialized, 'Sum', 'initialized'),
      ]),
      graph('Interruption messages by kind', [
        searchByDimension(c, 'interruption', METRICS.interruptionMessages, ['kind'], 'Sum', ''),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Disruption decisions by method', [
        searchByDimension(c, 'disruption', METRICS.disruptionCommands, ['method'], 'Sum', ''),
        searchByDimension(c, 'disruption', METRICS.disruptionCommands, ['method', 'outcome'], 'Sum', ''),
      ]),
      graph(
        'Disruption savings ($/h)',
        [loopMetric(c, 'disruption', METRICS.savingsPerHour, 'Sum', 'saved by executed commands')],
        '$/h',
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Time to capacity: NodeClaim created → Initialized (s)',
        [
          loopMetric(c, 'provisioner', METRICS.timeToInitialized, 'p50', 'p50'),
          loopMetric(c, 'provisioner', METRICS.timeToInitialized, 'p99', 'p99'),
        ],
        's',
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Provisioner decision and run time (ms)',
        [
          loopMetric(c, 'provisioner', METRICS.decisionTime, 'p99', 'decision p99'),
          loopMetric(c, 'provisioner', METRICS.invocationTime, 'p50', 'run p50'),
          loopMetric(c, 'provisioner', METRICS.invocationTime, 'p99', 'run p99'),
        ],
        'ms',
      ),
      graph(
        'Function errors and throttles',
        (Object.entries(props.functions) as [FunctionName, lambda.IFunction][]).flatMap(([fn, f]) => [
          f.metricErrors({ period: PERIOD, statistic: 'Sum', label: `${fn} errors` }),
          f.metricThrottles({ period: PERIOD, statistic: 'Sum', label: `${fn} throttles` }),
        ]),
      ),
    );
  }
}
