import {
  CAPACITY_CHANGE_REASONS,
  CAPACITY_CHANGED_DETAIL_TYPE,
  DISRUPTION_WAKE_UP_REASONS,
} from './capacity-changed';
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

/**
 * An EventBridge event pattern: field → allowed values (or a nested pattern), and under the key
 * `$or` a list of patterns of which at least one must match at that level.
 */
export type EventPattern = {
  readonly [field: string]: readonly PatternValue[] | EventPattern | readonly EventPattern[];
};

/**
 * One allowed value of a pattern field: an exact string or number, `{ prefix }`, or
 * `{ numeric }` — operator/number pairs (`>`, `>=`, `=`, `<`, `<=`) that a JSON number must all
 * satisfy.
 */
export type PatternValue =
  | string
  | number
  | { readonly prefix: string }
  | { readonly numeric: readonly (NumericOperator | number)[] };

/** A comparison of EventBridge's numeric matching. */
export type NumericOperator = '<' | '<=' | '=' | '>' | '>=';

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

/**
 * A `CapacityChanged` detail that counts some reason other than the disruption function's own
 * wake-ups (`validationDue`, `consolidatableDue`): those are due timers of disruption decisions,
 * and waking the provisioner and the termination function for them only made those runs
 * contend for the cluster Lease with the disruption run the same hint started. EventBridge's
 * `$or` over numeric matches (eb-create-pattern-operators, "Numeric matching" and "$or
 * matching"); a detail whose reasons are all zero matches none.
 */
const CHANGED_BEYOND_DISRUPTION_WAKE_UPS: EventPattern = {
  reasons: {
    $or: CAPACITY_CHANGE_REASONS.filter(
      (reason) => !(DISRUPTION_WAKE_UP_REASONS as readonly string[]).includes(reason),
    ).map((reason) => ({ [reason]: { count: [{ numeric: ['>', 0] }] } })),
  },
};

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
    pattern: {
      source: [WATCHER_EVENT_SOURCE],
      'detail-type': [CAPACITY_CHANGED_DETAIL_TYPE],
      detail: CHANGED_BEYOND_DISRUPTION_WAKE_UPS,
    },
    target: 'termination',
    description: 'A NodeClaim or Node may be deleting: advance its drain.',
  },
  {
    // Registration and initialization are provisioner steps (Karpenter's nodeclaim lifecycle
    // controller reacts to the Node's own events); without this rule a joined or Ready Node
    // waited for the provisioner's one-minute schedule, twice, before its pods could bind.
    id: 'CapacityChangedProvisioner',
    bus: 'cluster',
    pattern: {
      source: [WATCHER_EVENT_SOURCE],
      'detail-type': [CAPACITY_CHANGED_DETAIL_TYPE],
      detail: CHANGED_BEYOND_DISRUPTION_WAKE_UPS,
    },
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
 * equals one of the listed strings/numbers, starts with a listed `prefix`, or is a number within
 * a listed `numeric` range; a nested pattern matches a nested object; `$or` matches when one of
 * its patterns matches the same object.
 */
export function matchesEventPattern(pattern: EventPattern, event: unknown): boolean {
  if (event === null || typeof event !== 'object') return false;
  const record = event as Record<string, unknown>;
  return Object.entries(pattern).every(([field, expected]) => {
    if (field === OR_KEY) {
      return (expected as readonly EventPattern[]).some((alternative) =>
        matchesEventPattern(alternative, record),
      );
    }
    // A field the event lacks reads undefined, which no listed value and no nested pattern matches.
    const actual = record[field];
    if (!Array.isArray(expected)) return matchesEventPattern(expected as EventPattern, actual);
    const values = Array.isArray(actual) ? actual : [actual];
    return values.some((value) =>
      (expected as readonly PatternValue[]).some((allowed) => valueMatches(allowed, value)),
    );
  });
}

/** The functions an event on `bus` is routed to, in rule order (one per matching rule). */
export function routeEvent(bus: RuleBus, event: unknown): FunctionName[] {
  return EVENT_RULES.filter((rule) => rule.bus === bus && matchesEventPattern(rule.pattern, event)).map(
    (rule) => rule.target,
  );
}

const OR_KEY = '$or';

function valueMatches(allowed: PatternValue, value: unknown): boolean {
  if (typeof allowed !== 'object') return value === allowed;
  if ('prefix' in allowed) return typeof value === 'string' && value.startsWith(allowed.prefix);
  return typeof value === 'number' && withinNumeric(allowed.numeric, value);
}

/** Whether `value` satisfies every operator/number pair of a `numeric` match. */
function withinNumeric(range: readonly (NumericOperator | number)[], value: number): boolean {
  for (let i = 0; i < range.length; i += 2) {
    const bound = range[i + 1] as number;
    const holds: Record<NumericOperator, boolean> = {
      '<': value < bound,
      '<=': value <= bound,
      '=': value === bound,
      '>': value > bound,
      '>=': value >= bound,
    };
    if (!holds[range[i] as NumericOperator]) return false;
  }
  return true;
}
