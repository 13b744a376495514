import { goDurationNanoseconds } from './go-duration';
import { ANNOTATIONS } from './labels';
import type { Pod } from './pod';

/**
 * `karpenter.sh/do-not-disrupt` on a pod, as kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go
 * reads it (`IsDoNotDisruptActive`, `parseDoNotDisrupt`): `"true"` protects the pod for as long
 * as it runs; a positive Go duration (`"1h"`, `"90m"`) protects it that long from its
 * `status.startTime` (and for good while the start time is unknown: fail safe); anything else
 * (`"false"`, `"0s"`, `"soon"`) is as if the annotation were absent.
 */
export function doNotDisruptActive(pod: Pick<Pod, 'annotations' | 'startTime'>, now: number): boolean {
  const value = pod.annotations?.[ANNOTATIONS.doNotDisrupt];
  if (value === undefined) return false;
  if (value === 'true') return true;
  const duration = goDurationNanoseconds(value);
  if (duration === undefined || duration <= 0n) return false;
  if (pod.startTime === undefined) return true;
  const age = BigInt(now - Date.parse(pod.startTime)) * 1_000_000n;
  return age < duration;
}

/**
 * Whether voluntary disruption may move `pod` (pkg/utils/pod/scheduling.go `IsDisruptable`): a
 * pod already terminating always may; an active one unless its do-not-disrupt is in force.
 * Pods that finished are not read at all (the pod reads skip Succeeded and Failed).
 */
export function podDisruptable(
  pod: Pick<Pod, 'annotations' | 'startTime' | 'deleting'>,
  now: number,
): boolean {
  return pod.deleting === true || !doNotDisruptActive(pod, now);
}
