import * as z from 'zod';
import { detailValidationError } from './detail-error';
import { detailByteLength, MAX_EVENT_DETAIL_BYTES } from './event-size';

/**
 * The `CapacityChanged` hint, version 1: capacity or its configuration changed since the last
 * hint. The disruption function re-reads the cluster either way; the counts say why it was
 * woken, with a few object names per reason for logs.
 */

/** EventBridge `detail-type` of the hint. */
export const CAPACITY_CHANGED_DETAIL_TYPE = 'CapacityChanged';

/** The one schema version this module writes and reads. */
export const CAPACITY_CHANGED_SCHEMA_VERSION = 1;

/** Why capacity may have changed, in the order they are reported. */
export const CAPACITY_CHANGE_REASONS = [
  'podRemoved',
  'nodeAdded',
  'nodeReady',
  'nodeRemoved',
  'nodePoolChanged',
  'nodeClassChanged',
  'nodeClaimChanged',
  // A recorded disruption command's 15 s validation is due (watcher/validation-wakeups.ts).
  'validationDue',
  // A NodeClaim's consolidateAfter is up (watcher/consolidatable-wakeups.ts).
  'consolidatableDue',
] as const;

/** One of {@link CAPACITY_CHANGE_REASONS}. */
export type CapacityChangeReason = (typeof CAPACITY_CHANGE_REASONS)[number];

/**
 * The reasons that are the disruption function's own due timers: a hint that counts only these
 * wakes the disruption function alone (shared/core/contracts/routing.ts).
 */
export const DISRUPTION_WAKE_UP_REASONS = [
  'validationDue',
  'consolidatableDue',
] as const satisfies readonly CapacityChangeReason[];

/** Names kept per reason, at most. */
export const MAX_SAMPLE_NAMES = 20;

/** How often one reason occurred in the batch, and some of the objects concerned. */
export interface CapacityChangeCount {
  /** Occurrences in the batch (≥ `sample.length`). */
  readonly count: number;
  /**
   * Names of objects concerned (`namespace/name` for pods, `name` otherwise), at most
   * {@link MAX_SAMPLE_NAMES}, each at most once.
   */
  readonly sample: readonly string[];
}

/** The detail of a `CapacityChanged` event. */
export interface CapacityChangedDetail {
  readonly schemaVersion: typeof CAPACITY_CHANGED_SCHEMA_VERSION;
  readonly cluster: string;
  /** Every reason, zero counts included. */
  readonly reasons: Readonly<Record<CapacityChangeReason, CapacityChangeCount>>;
  /** Sum of the counts. */
  readonly total: number;
  /** Whether some reason's sample names fewer objects than its count. */
  readonly truncated: boolean;
}

const countSchema = z
  .object({
    count: z.number().int().nonnegative(),
    sample: z.array(z.string()),
  })
  .refine((c) => c.count >= c.sample.length, {
    message: 'count must be at least the number of sample names',
    path: ['count'],
  });

const emptyCount = (): { count: number; sample: string[] } => ({ count: 0, sample: [] });

/**
 * zod schema of {@link CapacityChangedDetail}. A reason missing from the input counts zero and
 * unknown reasons are dropped, so a function reads hints from older and newer watchers alike.
 */
export const capacityChangedDetailSchema: z.ZodType<CapacityChangedDetail> = z.object({
  schemaVersion: z.literal(CAPACITY_CHANGED_SCHEMA_VERSION),
  cluster: z.string().min(1),
  reasons: z.object(reasonShape()),
  total: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

function reasonShape(): Record<CapacityChangeReason, z.ZodDefault<typeof countSchema>> {
  const shape = {} as Record<CapacityChangeReason, z.ZodDefault<typeof countSchema>>;
  for (const reason of CAPACITY_CHANGE_REASONS) shape[reason] = countSchema.default(emptyCount);
  return shape;
}

/** Occurrences and the names seen for one reason, before truncation. */
export interface CapacityChangeTally {
  readonly count: number;
  readonly names: readonly string[];
}

/** What {@link capacityChangedDetail} builds a detail from. */
export interface CapacityChangedInput {
  readonly cluster: string;
  /** Reasons that did not occur may be left out. */
  readonly reasons: Readonly<Partial<Record<CapacityChangeReason, CapacityChangeTally>>>;
  /**
   * Byte budget of the detail's JSON.
   * @default MAX_EVENT_DETAIL_BYTES
   */
  readonly maxBytes?: number;
}

/**
 * Builds a `CapacityChanged` detail: every reason with its count and up to
 * {@link MAX_SAMPLE_NAMES} distinct names, fewer when needed to stay within `maxBytes`.
 */
export function capacityChangedDetail(input: CapacityChangedInput): CapacityChangedDetail {
  const maxBytes = input.maxBytes ?? MAX_EVENT_DETAIL_BYTES;
  const tallies = CAPACITY_CHANGE_REASONS.map((reason) => {
    const tally = input.reasons[reason];
    const names = [...new Set(tally?.names ?? [])];
    return { reason, count: Math.max(tally?.count ?? 0, names.length), names };
  });
  const total = tallies.reduce((sum, t) => sum + t.count, 0);
  // Names are short in practice; halving the sample size only matters for absurd names.
  for (let limit = MAX_SAMPLE_NAMES; ; limit = Math.floor(limit / 2)) {
    const reasons = {} as Record<CapacityChangeReason, CapacityChangeCount>;
    for (const t of tallies) reasons[t.reason] = { count: t.count, sample: t.names.slice(0, limit) };
    const detail: CapacityChangedDetail = {
      schemaVersion: CAPACITY_CHANGED_SCHEMA_VERSION,
      cluster: input.cluster,
      reasons,
      total,
      truncated: tallies.some((t) => Math.min(limit, t.names.length) < t.count),
    };
    if (limit === 0 || detailByteLength(detail) <= maxBytes) return detail;
  }
}

/**
 * Parses a `CapacityChanged` event's detail at a function's boundary.
 * @throws ValidationError naming each bad field.
 */
export function parseCapacityChangedDetail(detail: unknown): CapacityChangedDetail {
  const result = capacityChangedDetailSchema.safeParse(detail);
  if (!result.success) throw detailValidationError(result.error, detail, CAPACITY_CHANGED_DETAIL_TYPE);
  return result.data;
}
