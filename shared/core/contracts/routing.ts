import { CAPACITY_CHANGED_DETAIL_TYPE } from './capacity-changed';
import { PODS_PENDING_DETAIL_TYPE } from './pods-pending';
import { WATCHER_EVENT_SOURCE } from './watcher-source';

/**
 * How events reach podlift's functions, as data: the CDK stack creates exactly these EventBridge
 * rules and schedules, and the simulator routes its events by the same list, so the two cannot
 * drift apart. Patterns follow EventBridge's pattern syntax; {@link matchesEventPattern} evaluates
 * the subset used here.
 */

/** The functions an event can be routed to. */
export type FunctionName = 'provisioner' | 'interruption' | 'disruption' | 'termination';

/**
 * Each function's Lambda timeout, seconds: the CDK stack deploys these (infra/parts/functions.ts
 * `FUNCTION_SIZING`) and the simulator gives each invocation this long, so a loop that waits
 * while it has time waits no longer there than in Lambda. The interruption function waits for
 * the cluster Lease to launch replacements, and must outwait a crashed run's hold, which lapses
 * within the Lease's 15 s: waiting ends 12 s before its deadline (a 2 s retry period and 10 s
 * for the provisioner run, functions/interruption/loop.ts) and the deadline is 5 s before the
 * timeout (functions/invocation.ts `DEADLINE_MARGIN_MS`), so 30 s waited 13 s — too little; 45 s
 * waits 28 s.
 */
export const FUNCTION_TIMEOUT_SECONDS: Readonly<Record<FunctionName, number>> = {
  provisioner: 60,
  disruption: 60,
  interruption: 45,
  termination: 60,
};

/**
 * The interruption queue's visibility timeout, seconds: the interruption function's timeout, the
 * least Lambda's SQS event source accepts. A record the function failed comes back after it, and
 * a spot warning gives 120 s: at 45 s a failed record is tried three times within the notice, at
 * AWS's advised six times the timeout not once (Karpenter's controller receives with 20 s,
 * aws/karpenter-provider-aws pkg/providers/sqs/sqs.go `GetSQSMessages`). Every step of the
 * function is idempotent, so a record delivered twice does no harm.
 */
export const INTERRUPTION_VISIBILITY_TIMEOUT_SECONDS = FUNCTION_TIMEOUT_SECONDS.interruption;

/** An EventBridge event pattern: field → allowed values (or a nested pattern). */
export type EventPattern = { readonly [field: string]: readonly PatternValue[] | EventPattern };

/** One allowed value of a pattern field: an exact string or number, or `{ prefix }`. */
export type PatternValue = string | number | { readonly prefix: string };

/** Which bus a rule listens on: the cluster's own bus (watcher events) or the account's default bus (AWS events). */
export type RuleBus = 'cluster' | 'default';

/** A rule that forwards matching events to a function (`cluster` bus) or to the interruption queue (`default` bus). */
export interface EventRule {
  /** Stable id, used as the construct id and in logs. */
  readonly id: string;
  readonly bus: RuleBus;
  readonly pattern: EventPattern;
  /** Where matching events go; the interruption function reads them from its SQS queue. */
  readonly target: FunctionName;
  readonly description: string;
}

/** A fixed-rate schedule that starts a function with a `Scheduled Event`. */
export interface ScheduleRule {
  readonly id: string;
  readonly everySeconds: number;
  readonly target: FunctionName;
  readonly description: string;
}

/** The watcher's hints, on the cluster's bus. */
export const CLUSTER_BUS_RULES: readonly EventRule[] = [
  {
    id: 'PodsPending',
    bus: 'cluster',
    pattern: { source: [WATCHER_EVENT_SOURCE], 'detail-type': [PODS_PENDING_DETAIL_TYPE] },
    target: 'provisioner',
    description: 'Pods the scheduler marked unschedulable: provision capacity for them.',
  },
  {
    id: 'CapacityChangedDisruption',
    bus: 'cluster',
    pattern: { source: [WATCHER_EVENT_SOURCE], 'detail-type': [CAPACITY_CHANGED_DETAIL_TYPE] },
    target: 'disruption',
    description: 'Nodes, NodeClaims or NodePools changed: look for consolidation and drift.',
  },
  {
    id: 'CapacityChangedTermination',
    bus: 'cluster',
    pattern: { source: [WATCHER_EVENT_SOURCE], 'detail-type': [CAPACITY_CHANGED_DETAIL_TYPE] },
    target: 'termination',
    description: 'A NodeClaim or Node may be deleting: advance its drain.',
  },
  {
    // Registration and initialization are provisioner steps (Karpenter's nodeclaim lifecycle
    // controller reacts to the Node's own events); without this rule a joined or Ready Node
    // waited for the provisioner's one-minute schedule, twice, before its pods could bind.
    id: 'CapacityChangedProvisioner',
    bus: 'cluster',
    pattern: { source: [WATCHER_EVENT_SOURCE], 'detail-type': [CAPACITY_CHANGED_DETAIL_TYPE] },
    target: 'provisioner',
    description: 'A Node joined or became Ready: register and initialize its NodeClaim.',
  },
];

/**
 * AWS events on the default bus, forwarded to the interruption queue — the same five rules
 * Karpenter's CloudFormation template creates (aws/karpenter-provider-aws
 * website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml:
 * ScheduledChangeRule, SpotInterruptionRule, RebalanceRule, InstanceStateChangeRule, and the
 * capacity-reservation interruption rule).
 */
export const INTERRUPTION_RULES: readonly EventRule[] = [
  {
    id: 'ScheduledChange',
    bus: 'default',
    pattern: { source: ['aws.health'], 'detail-type': ['AWS Health Event'] },
    target: 'interruption',
    description: 'AWS Health scheduled changes (instance retirement, maintenance).',
  },
  {
    id: 'SpotInterruption',
    bus: 'default',
    pattern: { source: ['aws.ec2'], 'detail-type': ['EC2 Spot Instance Interruption Warning'] },
    target: 'interruption',
    description: 'Two-minute spot interruption warnings.',
  },
  {
    id: 'Rebalance',
    bus: 'default',
    pattern: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance Rebalance Recommendation'] },
    target: 'interruption',
    description: 'Spot rebalance recommendations.',
  },
  {
    id: 'InstanceStateChange',
    bus: 'default',
    pattern: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'] },
    target: 'interruption',
    description: 'Instances stopping, stopped, shutting down or terminated.',
  },
  {
    id: 'CapacityReservationInterruption',
    bus: 'default',
    pattern: {
      source: ['aws.ec2'],
      'detail-type': ['EC2 Capacity Reservation Instance Interruption Warning'],
    },
    target: 'interruption',
    description: 'Capacity-reservation interruption warnings.',
  },
];

/** The one-minute schedules: the provisioner's safety run, disruption, and termination with garbage collection. */
export const SCHEDULES: readonly ScheduleRule[] = [
  {
    id: 'ProvisionerSchedule',
    everySeconds: 60,
    target: 'provisioner',
    description: 'Safety run for missed hints.',
  },
  {
    id: 'DisruptionSchedule',
    everySeconds: 60,
    target: 'disruption',
    description: 'Consolidation, drift, expiry.',
  },
  {
    id: 'TerminationSchedule',
    everySeconds: 60,
    target: 'termination',
    description: 'Drains and garbage collection.',
  },
];

/** Every rule, cluster bus first. */
export const EVENT_RULES: readonly EventRule[] = [...CLUSTER_BUS_RULES, ...INTERRUPTION_RULES];

/**
 * Whether `event` matches `pattern` as EventBridge decides it: every field of the pattern must be
 * present; a list matches when the event's value (or, for an array value, any of its elements)
 * equals one of the listed strings/numbers or starts with a listed `prefix`; a nested pattern
 * matches a nested object.
 */
export function matchesEventPattern(pattern: EventPattern, event: unknown): boolean {
  if (event === null || typeof event !== 'object') return false;
  const record = event as Record<string, unknown>;
  return Object.entries(pattern).every(([field, expected]) => {
    if (!(field in record)) return false;
    const actual = record[field];
    if (isValueList(expected)) {
      const values = Array.isArray(actual) ? actual : [actual];
      return values.some((value) => expected.some((allowed) => valueMatches(allowed, value)));
    }
    return matchesEventPattern(expected, actual);
  });
}

/** The functions an event on `bus` is routed to, in rule order (one per matching rule). */
export function routeEvent(bus: RuleBus, event: unknown): FunctionName[] {
  return EVENT_RULES.filter((rule) => rule.bus === bus && matchesEventPattern(rule.pattern, event)).map(
    (rule) => rule.target,
  );
}

function isValueList(value: readonly PatternValue[] | EventPattern): value is readonly PatternValue[] {
  return Array.isArray(value);
}

function valueMatches(allowed: PatternValue, value: unknown): boolean {
  if (typeof allowed === 'object') return typeof value === 'string' && value.startsWith(allowed.prefix);
  return value === allowed;
}
