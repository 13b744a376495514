import type { LambdaContextLike } from '../invocation';
import { METRICS } from '../observability';
import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { parseTrigger } from '../trigger';
import { type ProvisionerSummary, runProvisioner } from './loop';

/**
 * The provisioner's Lambda handler. Triggers: the watcher's PodsPending events and a
 * one-minute EventBridge schedule; either way the run re-reads every pending pod, so an event
 * is only a hint that now is a good time. An event it does not know is logged and
 * acknowledged. `runtime` is the container's (Lambda) or a cluster world's (tests, simulator).
 */
export function makeProvisionerHandler(runtime: () => LoopRuntime) {
  return async (event: unknown, context: LambdaContextLike): Promise<ProvisionerSummary | undefined> => {
    const rt = runtime();
    const trigger = parseTrigger(event);
    const invocation = rt.begin(context, trigger.id);
    if (trigger.kind === 'unknown') {
      invocation.log.warn('ignoring an event the provisioner does not handle', { why: trigger.why });
      return undefined;
    }
    const started = rt.time.now();
    try {
      const summary = await runProvisioner(rt, invocation);
      invocation.log.info('provisioner run finished', { trigger: trigger.kind, ...summary });
      return summary;
    } finally {
      invocation.metrics.add(METRICS.invocationTime, 'Milliseconds', rt.time.now() - started);
      await rt.metrics.flush();
    }
  };
}

/** The Lambda entry point. */
export const handler = makeProvisionerHandler(() => lambdaRuntime('provisioner'));
