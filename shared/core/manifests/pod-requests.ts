import type { Resources } from '../model/resources';
import { PODS } from '../model/resources';

/**
 * How much a pod asks the scheduler for, from its containers' requests: the one place the
 * sidecar and init-container rules of kube-scheduler live.
 */

/** The container-level facts the effective request depends on. */
export interface ContainerRequests {
  /** Requests after defaulting from limits, in canonical units. */
  readonly requests: Resources;
  /** Init containers only: `restartPolicy: Always` makes it a sidecar. */
  readonly sidecar?: boolean;
}

/**
 * A pod's effective requests, as kube-scheduler computes them (k8s.io/component-helpers
 * resource.PodRequests): for each resource, the larger of
 *  - the sum over regular containers plus every sidecar (they run alongside for the pod's
 *    whole life), and
 *  - for each init container in order, its request plus the sidecars started before it (they
 *    are still running while it runs);
 * then the RuntimeClass overhead is added and `pods` is 1.
 */
export function effectivePodRequests(
  containers: readonly ContainerRequests[],
  initContainers: readonly ContainerRequests[],
  overhead: Resources = {},
): Resources {
  let total = sum({}, ...containers.map((c) => c.requests));
  let sidecars: Resources = {};
  let initPeak: Resources = {};
  for (const init of initContainers) {
    if (init.sidecar) {
      sidecars = sum(sidecars, init.requests);
      total = sum(total, init.requests);
      // While a sidecar starts, the sidecars before it and itself are running.
      initPeak = max(initPeak, sidecars);
    } else {
      initPeak = max(initPeak, sum(init.requests, sidecars));
    }
  }
  return { ...sum(max(total, initPeak), overhead), [PODS]: 1 };
}

function sum(...vectors: readonly Resources[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of vectors) for (const [k, n] of Object.entries(v)) out[k] = (out[k] ?? 0) + n;
  return out;
}

function max(a: Resources, b: Resources): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = Math.max(out[k] ?? 0, n);
  return out;
}
