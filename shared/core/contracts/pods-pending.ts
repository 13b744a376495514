import * as z from 'zod';
import { detailValidationError } from './detail-error';
import { detailByteLength, MAX_EVENT_DETAIL_BYTES, utf8ByteLength } from './event-size';

/**
 * The `PodsPending` hint, version 1: pods the scheduler marked unschedulable since the last
 * hint. The provisioner treats it as a nudge and re-reads every pending pod; the list says
 * which pods started it, for logs, and is cut short to keep the event under EventBridge's size
 * limit.
 */

/** EventBridge `detail-type` of the hint. */
export const PODS_PENDING_DETAIL_TYPE = 'PodsPending';

/** The one schema version this module writes and reads. */
export const PODS_PENDING_SCHEMA_VERSION = 1;

/** A pod named in a hint. */
export interface PendingPodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** The detail of a `PodsPending` event. */
export interface PodsPendingDetail {
  readonly schemaVersion: typeof PODS_PENDING_SCHEMA_VERSION;
  /** The cluster's name (one bus per cluster, but a function may serve several). */
  readonly cluster: string;
  /** The pods that became unschedulable, oldest first; the first ones when `truncated`. */
  readonly pods: readonly PendingPodRef[];
  /** How many pods became unschedulable in this batch (≥ `pods.length`). */
  readonly total: number;
  /** Whether `pods` was cut short to fit the event. */
  readonly truncated: boolean;
}

const pendingPodRefSchema = z.object({
  namespace: z.string().min(1),
  name: z.string().min(1),
  uid: z.string().min(1),
});

/** zod schema of {@link PodsPendingDetail}; unknown fields are dropped, so a newer writer's additions are ignored. */
export const podsPendingDetailSchema: z.ZodType<PodsPendingDetail> = z
  .object({
    schemaVersion: z.literal(PODS_PENDING_SCHEMA_VERSION),
    cluster: z.string().min(1),
    pods: z.array(pendingPodRefSchema),
    total: z.number().int().nonnegative(),
    truncated: z.boolean(),
  })
  .refine((detail) => detail.total >= detail.pods.length, {
    message: 'total must count at least the pods listed',
    path: ['total'],
  });

/** What {@link podsPendingDetail} builds a detail from. */
export interface PodsPendingInput {
  readonly cluster: string;
  readonly pods: readonly PendingPodRef[];
  /**
   * How many pods the batch covered, when more than `pods` (the watcher keeps a bounded list).
   * @default pods.length
   */
  readonly total?: number;
  /**
   * Byte budget of the detail's JSON.
   * @default MAX_EVENT_DETAIL_BYTES
   */
  readonly maxBytes?: number;
}

/**
 * Builds a `PodsPending` detail, keeping as many pods (first ones first) as fit in `maxBytes`;
 * `total` still counts them all and `truncated` says pods were left out.
 */
export function podsPendingDetail(input: PodsPendingInput): PodsPendingDetail {
  const total = Math.max(input.total ?? input.pods.length, input.pods.length);
  const maxBytes = input.maxBytes ?? MAX_EVENT_DETAIL_BYTES;
  // `false` is one byte longer than `true`, so the frame measured with it bounds both.
  const frame = detailByteLength({
    schemaVersion: PODS_PENDING_SCHEMA_VERSION,
    cluster: input.cluster,
    pods: [],
    total,
    truncated: false,
  });
  let used = frame;
  let kept = 0;
  for (const pod of input.pods) {
    const ref = { namespace: pod.namespace, name: pod.name, uid: pod.uid };
    const cost = utf8ByteLength(JSON.stringify(ref)) + (kept > 0 ? 1 : 0);
    if (used + cost > maxBytes) break;
    used += cost;
    kept++;
  }
  const pods = input.pods
    .slice(0, kept)
    .map((pod) => ({ namespace: pod.namespace, name: pod.name, uid: pod.uid }));
  return {
    schemaVersion: PODS_PENDING_SCHEMA_VERSION,
    cluster: input.cluster,
    pods,
    total,
    truncated: kept < total,
  };
}

/**
 * Parses a `PodsPending` event's detail at a function's boundary.
 * @throws ValidationError naming each bad field.
 */
export function parsePodsPendingDetail(detail: unknown): PodsPendingDetail {
  const result = podsPendingDetailSchema.safeParse(detail);
  if (!result.success) throw detailValidationError(result.error, detail, PODS_PENDING_DETAIL_TYPE);
  return result.data;
}
