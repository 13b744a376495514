import type { LambdaContextLike } from '../invocation';
import { METRICS } from '../observability';
import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { parseTrigger } from '../trigger';
import { type DisruptionSummary, runDisruption } from './loop';

/**
 * The disruption function's handler. Triggers: a one-minute EventBridge schedule and the
 * watcher's CapacityChanged events (pods or nodes went away: a consolidation may now be
 * possible); either way it re-reads the cluster. An event it does not know is logged and
 * acknowledged.
 */
export function makeDisruptionHandler(runtime: () => LoopRuntime) {
  return async (event: unknown, context: LambdaContextLike): Promise<DisruptionSummary | undefined> => {
    const rt = runtime();
    const trigger = parseTrigger(event);
    const invocation = rt.begin(context, trigger.id);
    if (trigger.kind === 'unknown') {
      invocation.log.warn('ignoring an event disruption does not handle', { why: trigger.why });
      return undefined;
    }
    const started = rt.time.now();
    try {
      const summary = await runDisruption(rt, invocation);
      invocation.log.info('disruption run finished', { trigger: trigger.kind, ...summary });
      return summary;
    } finally {
      invocation.metrics.add(METRICS.invocationTime, 'Milliseconds', rt.time.now() - started);
      await rt.metrics.flush();
    }
  };
}

/** The Lambda entry point. */
export const handler = makeDisruptionHandler(() => lambdaRuntime('disruption'));
