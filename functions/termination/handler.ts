import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { makeScheduledHandler } from '../scheduled-handler';
import { runTermination } from './loop';

/**
 * The termination, health and garbage-collection function's handler. Triggers: a one-minute schedule
 * and the watcher's CapacityChanged events (a Node or NodeClaim deleted, a node gone NotReady);
 * either way it re-reads everything.
 */
export function makeTerminationHandler(runtime: () => LoopRuntime) {
  return makeScheduledHandler('termination', runtime, runTermination);
}

/** The Lambda entry point. */
export const handler = makeTerminationHandler(() => lambdaRuntime('termination'));
