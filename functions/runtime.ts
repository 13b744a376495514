import { UnavailableOfferings } from '../shared/core/catalog/unavailable-offerings';
import type { Time } from '../shared/core/ports/time';
import { systemTime } from '../shared/runtime/system-time';
import { awsClients } from './aws-clients';
import { composePorts, type Ports } from './compose';
import { parseFunctionConfig } from './config';
import { type Invocation, invocationFor, type LambdaContextLike } from './invocation';
import {
  type LoopLog,
  type LoopMetrics,
  powertoolsLog,
  powertoolsMetrics,
  powertoolsObservability,
} from './observability';

/**
 * What a loop runs with across invocations of one container: the composed ports (their caches
 * warm), the time, the unavailable offerings this container has learnt, and the log and
 * metrics. Lambda builds it once per container from the environment ({@link lambdaRuntime});
 * tests and the simulator build it from a cluster world ({@link runtimeOf}).
 */
export interface LoopRuntime {
  readonly loop: string;
  readonly ports: Ports;
  readonly time: Time;
  readonly unavailable: UnavailableOfferings;
  readonly log: LoopLog;
  readonly metrics: LoopMetrics;
  /** Starts one invocation: sets the deadline the adapters' retries honour. */
  begin(context: LambdaContextLike, correlationId?: string): Invocation;
}

/** A runtime from ports the caller composed (tests, the simulator). */
export function runtimeOf(
  loop: string,
  ports: Ports,
  time: Time,
  log: LoopLog,
  metrics: LoopMetrics,
): LoopRuntime {
  const unavailable = new UnavailableOfferings(time);
  return {
    loop,
    ports,
    time,
    unavailable,
    log,
    metrics,
    begin(context, correlationId) {
      const invocation = invocationFor(context, {
        loop,
        time,
        log,
        metrics,
        ...(correlationId ? { correlationId } : {}),
      });
      ports.beginInvocation(invocation.deadline);
      return invocation;
    },
  };
}

const runtimes = new Map<string, LoopRuntime>();

/**
 * The container's runtime for `loop`, built on first use from `process.env` (the only place the
 * functions read it): configuration, SDK clients with retries off, the ports, Powertools. A bad
 * environment throws a ConfigurationError naming each variable, so the first invocation fails
 * loudly and every later one the same way.
 */
export function lambdaRuntime(loop: string): LoopRuntime {
  const existing = runtimes.get(loop);
  if (existing) return existing;
  const config = parseFunctionConfig(process.env, loop);
  const time = systemTime();
  const { logger, metrics } = powertoolsObservability(`podlift-${loop}`, config.clusterName);
  const log = powertoolsLog(logger);
  const ports = composePorts({
    config,
    clients: awsClients(config.region),
    time,
    ...(process.env.AWS_LAMBDA_FUNCTION_NAME ? { instance: process.env.AWS_LAMBDA_FUNCTION_NAME } : {}),
    warn: (message, fields) => log.warn(message, fields),
  });
  const runtime = runtimeOf(loop, ports, time, log, powertoolsMetrics(metrics));
  runtimes.set(loop, runtime);
  return runtime;
}
