import type { LambdaContextLike } from '../invocation';
import { METRICS } from '../observability';
import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { parseTrigger } from '../trigger';
import { runTermination, type TerminationSummary } from './loop';

/**
 * The termination and garbage-collection function's handler. Triggers: a one-minute schedule
 * and the watcher's CapacityChanged events (a Node or NodeClaim deleted, a node gone NotReady);
 * either way it re-reads everything. An event it does not know is logged and acknowledged.
 */
export function makeTerminationHandler(runtime: () => LoopRuntime) {
  return async (event: unknown, context: LambdaContextLike): Promise<TerminationSummary | undefined> => {
    const rt = runtime();
    const trigger = parseTrigger(event);
    const invocation = rt.begin(context, trigger.id);
    if (trigger.kind === 'unknown') {
      invocation.log.warn('ignoring an event termination does not handle', { why: trigger.why });
      return undefined;
    }
    const started = rt.time.now();
    try {
      const summary = await runTermination(rt, invocation);
      invocation.log.info('termination run finished', { trigger: trigger.kind, ...summary });
      return summary;
    } finally {
      invocation.metrics.add(METRICS.invocationTime, 'Milliseconds', rt.time.now() - started);
      await rt.metrics.flush();
    }
  };
}

/** The Lambda entry point. */
export const handler = makeTerminationHandler(() => lambdaRuntime('termination'));
