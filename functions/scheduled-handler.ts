import type { Invocation, LambdaContextLike } from './invocation';
import { METRICS } from './observability';
import type { LoopRuntime } from './runtime';
import { parseTrigger } from './trigger';

/**
 * A handler for a loop that EventBridge starts — on its one-minute schedule or on a watcher
 * event, which is only a hint: the loop re-reads the cluster either way. An event it does not
 * know is logged and acknowledged (undefined), never thrown back for EventBridge to retry. Every
 * invocation logs what the loop returned and its time, and flushes the metrics.
 */
export function makeScheduledHandler<T extends object>(
  loop: string,
  runtime: () => LoopRuntime,
  run: (runtime: LoopRuntime, invocation: Invocation) => Promise<T>,
) {
  return async (event: unknown, context: LambdaContextLike): Promise<T | undefined> => {
    const rt = runtime();
    const trigger = parseTrigger(event);
    const invocation = rt.begin(context, trigger.id);
    if (trigger.kind === 'unknown') {
      invocation.log.warn(`ignoring an event the ${loop} does not handle`, { why: trigger.why });
      return undefined;
    }
    const started = rt.time.now();
    try {
      const summary = await run(rt, invocation);
      invocation.log.info(`${loop} run finished`, { trigger: trigger.kind, ...summary });
      return summary;
    } finally {
      invocation.metrics.add(METRICS.invocationTime, 'Milliseconds', rt.time.now() - started);
      await rt.metrics.flush();
    }
  };
}
