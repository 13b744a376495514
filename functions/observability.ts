import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * What the control loops say about themselves: one structured line per decision and CloudWatch
 * metrics. Loops write to these two small ports, so Lambda (Powertools: JSON log lines and EMF),
 * the simulator (a Karpenter-style log) and tests (records to assert on) each plug in their own.
 */

/** Fields of a log line: plain JSON values. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Runs a loop's pure, synchronous decision and records its {@link METRICS.decisionTime} and
 * {@link METRICS.decisionCpuTime}. The decision being synchronous, the process's CPU over it is
 * the decision's own, but for what the garbage collector's threads spend meanwhile.
 */
export function timeDecision<T>(metrics: LoopMetrics, decide: () => T): T {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const decided = decide();
  const spent = process.cpuUsage(cpu);
  metrics.add(METRICS.decisionTime, 'Milliseconds', performance.now() - started);
  metrics.add(METRICS.decisionCpuTime, 'Milliseconds', (spent.user + spent.system) / 1000);
  return decided;
}

/** One structured line per decision; every line carries the invocation's correlation id. */
export interface LoopLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A log that adds `fields` (e.g. the correlation id) to every line of `log`. */
export function withFields(log: LoopLog, fields: LogFields): LoopLog {
  return {
    info: (message, more) => log.info(message, { ...fields, ...more }),
    warn: (message, more) => log.warn(message, { ...fields, ...more }),
    error: (message, more) => log.error(message, { ...fields, ...more }),
  };
}

/** Dimensions of one metric value (e.g. `{ nodePool: 'default' }`). */
export type MetricDimensions = Readonly<Record<string, string>>;

/** Units the loops emit in. */
export type LoopMetricUnit = 'Count' | 'Seconds' | 'Milliseconds' | 'None';

/** Metric values, flushed once per invocation. */
export interface LoopMetrics {
  /** Adds `value` of `name` (CloudWatch sums values of one name within an invocation). */
  add(name: MetricName, unit: LoopMetricUnit, value: number, dimensions?: MetricDimensions): void;
  /** Publishes what was added (EMF to stdout in Lambda). */
  flush(): void;
}

/** The metric names podlift publishes; dollars per hour are `None` (CloudWatch has no currency unit). */
export const METRICS = {
  podsScheduled: 'PodsScheduled',
  podsUnschedulable: 'PodsUnschedulable',
  nodeClaimsCreated: 'NodeClaimsCreated',
  nodeClaimsLaunched: 'NodeClaimsLaunched',
  nodeClaimsLaunchFailed: 'NodeClaimsLaunchFailed',
  nodeClaimsRegistered: 'NodeClaimsRegistered',
  nodeClaimsInitialized: 'NodeClaimsInitialized',
  /**
   * Seconds from a NodeClaim's creation to its Initialized condition, once per NodeClaim: the
   * capacity side of time to capacity (launch, boot, registration, startup taints gone).
   */
  timeToInitialized: 'NodeClaimTimeToInitialized',
  nodeClaimsTerminated: 'NodeClaimsTerminated',
  /** NodeClaims that became Drifted, by drift reason (Karpenter's karpenter_nodeclaims_drifted_total). */
  nodeClaimsDrifted: 'NodeClaimsDrifted',
  insufficientCapacity: 'InsufficientCapacityErrors',
  interruptionMessages: 'InterruptionMessages',
  disruptionCommands: 'DisruptionCommands',
  savingsPerHour: 'DisruptionSavingsDollarsPerHour',
  costPerHour: 'NodePoolDollarsPerHour',
  podsEvicted: 'PodsEvicted',
  /** Pods whose pod-deletion-cost the disruption loop wrote or removed (scale-down steering). */
  podDeletionCostsWritten: 'PodDeletionCostsWritten',
  /** Nodes the disruption loop put the disruption-candidate taint on or took it off (scale-up steering). */
  candidateTaintsChanged: 'CandidateTaintsChanged',
  evictionsBlocked: 'EvictionsBlocked',
  instancesGarbageCollected: 'InstancesGarbageCollected',
  /** NodeClaims deleted for an unhealthy instance, by category (Karpenter's karpenter_interruption_instance_status_unhealthy_total). */
  instancesUnhealthy: 'InstancesUnhealthy',
  /** NodeClaims node repair deleted, by condition (Karpenter's karpenter_nodeclaims_unhealthy_disrupted_total). */
  nodeClaimsRepaired: 'NodeClaimsUnhealthyDisrupted',
  resourcesGarbageCollected: 'ResourcesGarbageCollected',
  leaseHeldElsewhere: 'LeaseHeldElsewhere',
  /** A run lost the cluster Lease while it ran (taken over, or not renewed in time) and stopped. */
  leaseLost: 'LeaseLost',
  /** Releasing the cluster Lease was refused after retries; it lapses after its short duration. */
  leaseReleaseFailed: 'LeaseReleaseFailed',
  /** Objects and SSM parameters skipped because they do not validate, by kind (each is logged by name). */
  invalidObjects: 'InvalidObjects',
  /** Wall time of a loop's pure decision (planning, or choosing a disruption command). */
  decisionTime: 'DecisionTime',
  /**
   * CPU time of the same decision. Far below DecisionTime, the function waited for a core: Lambda
   * gives CPU in proportion to memory (a whole vCPU at 1,769 MB), so raise its memory.
   */
  decisionCpuTime: 'DecisionCpuTime',
  invocationTime: 'InvocationTime',
} as const;

/** One of {@link METRICS}. */
export type MetricName = (typeof METRICS)[keyof typeof METRICS];

/** The Powertools logger and metrics of one function, built once per Lambda container. */
export interface PowertoolsObservability {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** Powertools' Logger and Metrics for a function (`service` names it in every line and metric). */
export function powertoolsObservability(service: string, cluster: string): PowertoolsObservability {
  return {
    logger: new Logger({ serviceName: service, persistentKeys: { cluster } }),
    metrics: new Metrics({ namespace: 'podlift', serviceName: service, defaultDimensions: { cluster } }),
  };
}

/** A {@link LoopLog} writing through Powertools Logger (JSON lines on stdout, CloudWatch Logs). */
export function powertoolsLog(logger: Logger): LoopLog {
  return {
    info: (message, fields) => logger.info(message, { ...fields }),
    warn: (message, fields) => logger.warn(message, { ...fields }),
    error: (message, fields) => logger.error(message, { ...fields }),
  };
}

const UNITS: Readonly<Record<LoopMetricUnit, (typeof MetricUnit)[keyof typeof MetricUnit]>> = {
  Count: MetricUnit.Count,
  Seconds: MetricUnit.Seconds,
  Milliseconds: MetricUnit.Milliseconds,
  None: MetricUnit.NoUnit,
};

/**
 * A {@link LoopMetrics} writing CloudWatch EMF through Powertools Metrics. A value with its own
 * dimensions goes out as a single metric (Powertools keeps one dimension set per batch), the
 * rest are batched and published by `flush`.
 */
export function powertoolsMetrics(metrics: Metrics): LoopMetrics {
  return {
    add(name, unit, value, dimensions) {
      if (dimensions && Object.keys(dimensions).length > 0) {
        const single = metrics.singleMetric();
        single.addDimensions({ ...dimensions });
        single.addMetric(name, UNITS[unit], value);
        return;
      }
      metrics.addMetric(name, UNITS[unit], value);
    },
    flush: () => metrics.publishStoredMetrics(),
  };
}
