import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { makeScheduledHandler } from '../scheduled-handler';
import { runProvisioner } from './loop';

/**
 * The provisioner's handler. Triggers: the watcher's PodsPending events and a one-minute
 * EventBridge schedule; either way the run re-reads every pending pod. `runtime` is the
 * container's (Lambda) or a cluster world's (tests, the simulator).
 */
export function makeProvisionerHandler(runtime: () => LoopRuntime) {
  return makeScheduledHandler('provisioner', runtime, runProvisioner);
}

/** The Lambda entry point. */
export const handler = makeProvisionerHandler(() => lambdaRuntime('provisioner'));
