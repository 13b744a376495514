import { afterAll, describe, expect, it } from 'vitest';
import { METRICS as PUBLISHED } from '../../functions/observability';
import { METRICS, METRICS_NAMESPACE } from '../../infra/parts/dashboard';
import { removeTestApps, synthStack } from './test-app';

afterAll(removeTestApps);

const { template } = synthStack();

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title: string;
    readonly metrics?: unknown[][];
    readonly alarms?: unknown[];
  };
}

/** The dashboard body with its tokens (function names, alarm ARNs) left as `${…}` placeholders. */
function widgets(): Widget[] {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0].Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '"TOKEN"')).join('');
  return (JSON.parse(text.replaceAll('""TOKEN""', '"TOKEN"')) as { widgets: Widget[] }).widgets;
}

const byTitle = (title: string) => {
  const found = widgets().find((w) => w.properties.title === title);
  if (!found) throw new Error(`no widget ${title}; have ${widgets().map((w) => w.properties.title)}`);
  return found;
};

/** The expressions and metric names of a graph widget, flattened to text. */
const series = (title: string) => JSON.stringify(byTitle(title).properties.metrics);

describe('the dashboard', () => {
  it('is named after the cluster', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'podlift-demo' });
  });

  it("uses the metric names the functions publish (functions/observability.ts), in podlift's namespace", () => {
    for (const [key, name] of Object.entries(METRICS))
      expect(name, key).toBe(PUBLISHED[key as keyof typeof PUBLISHED]);
    expect(METRICS_NAMESPACE).toBe('podlift');
  });

  it('shows the cost of every NodePool by a SEARCH over the dimensions Powertools gives it', () => {
    expect(series('Cost per NodePool ($/h)')).toContain(
      `SEARCH('{podlift,cluster,service,nodePool} MetricName=\\"NodePoolDollarsPerHour\\" cluster=\\"demo\\" service=\\"podlift-provisioner\\"', 'Maximum', 60)`,
    );
  });

  it("shows pending pods from the provisioner's metrics with its service and cluster dimensions", () => {
    const pending = byTitle('Pending pods').properties.metrics ?? [];
    expect(pending[0]).toEqual([
      'podlift',
      'PodsUnschedulable',
      'cluster',
      'demo',
      'service',
      'podlift-provisioner',
      { label: 'unschedulable after a run', period: 60, stat: 'Maximum' },
    ]);
    expect(pending[1]).toEqual(expect.arrayContaining(['PodsScheduled', 'podlift-provisioner']));
  });

  it('shows launches by NodePool, interruptions by kind and disruption decisions by method', () => {
    expect(series('Launches')).toContain('MetricName=\\"NodeClaimsLaunched\\"');
    expect(series('Launches')).toContain('{podlift,cluster,service,nodePool}');
    expect(series('Launches')).toContain('InsufficientCapacityErrors');
    expect(series('Interruption messages by kind')).toContain(
      `{podlift,cluster,service,kind} MetricName=\\"InterruptionMessages\\" cluster=\\"demo\\" service=\\"podlift-interruption\\"`,
    );
    const decisions = series('Disruption decisions by method');
    expect(decisions).toContain('{podlift,cluster,service,method} MetricName=\\"DisruptionCommands\\"');
    expect(decisions).toContain(
      '{podlift,cluster,service,method,outcome} MetricName=\\"DisruptionCommands\\"',
    );
    expect(series('Disruption savings ($/h)')).toContain('DisruptionSavingsDollarsPerHour');
  });

  it("shows the provisioner's decision and run times, the functions' errors and throttles, and every alarm", () => {
    const capacity = series('Time to capacity: NodeClaim created → Initialized (s)');
    expect(capacity).toContain('NodeClaimTimeToInitialized');
    expect(capacity).toContain('"stat":"p99"');
    const times = series('Provisioner decision and run time (ms)');
    expect(times).toContain('DecisionTime');
    expect(times).toContain('"stat":"p99"');
    const errors = series('Function errors and throttles');
    for (const fn of ['provisioner', 'interruption', 'disruption', 'termination']) {
      expect(errors).toContain(`${fn} errors`);
      expect(errors).toContain(`${fn} throttles`);
    }
    expect(byTitle('Alarms').properties.alarms).toHaveLength(11);
  });
});
