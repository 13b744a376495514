import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { makeScheduledHandler } from '../scheduled-handler';
import { runDisruption } from './loop';

/**
 * The disruption function's handler. Triggers: a one-minute EventBridge schedule and the
 * watcher's CapacityChanged events (pods or nodes went away: a consolidation may now be
 * possible); either way it re-reads the cluster.
 */
export function makeDisruptionHandler(runtime: () => LoopRuntime) {
  return makeScheduledHandler('disruption', runtime, runDisruption);
}

/** The Lambda entry point. */
export const handler = makeDisruptionHandler(() => lambdaRuntime('disruption'));
