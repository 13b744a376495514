import * as z from 'zod';
import { parseWatcherEvent, type WatcherEvent } from '../shared/core/contracts/watcher-event';

/**
 * What started a scheduled or event-driven loop: an event of the watcher (a hint: the loop
 * re-reads everything), the one-minute EventBridge schedule, or something it does not know
 * (logged and acknowledged: a bad event must never crash a handler, and never make
 * EventBridge retry it).
 */
export type Trigger =
  | { readonly kind: 'watcher'; readonly event: WatcherEvent; readonly id?: string }
  | { readonly kind: 'schedule'; readonly id?: string }
  | { readonly kind: 'unknown'; readonly why: string; readonly id?: string };

/** The envelope fields of an EventBridge event, as a Lambda target receives it. */
const envelope = z.object({
  id: z.string().optional(),
  source: z.unknown(),
  'detail-type': z.unknown(),
  detail: z.unknown(),
});

/** Scheduled Events: `source: aws.events`, `detail-type: Scheduled Event`. */
const SCHEDULE = { source: 'aws.events', detailType: 'Scheduled Event' } as const;

/** Classifies a Lambda event; never throws. */
export function parseTrigger(event: unknown): Trigger {
  const parsed = envelope.safeParse(event);
  if (!parsed.success) return { kind: 'unknown', why: 'not an EventBridge event' };
  const e = parsed.data;
  const id = e.id;
  if (e.source === SCHEDULE.source && e['detail-type'] === SCHEDULE.detailType)
    return { kind: 'schedule', id };
  try {
    return { kind: 'watcher', event: parseWatcherEvent(e), id };
  } catch (error) {
    return { kind: 'unknown', why: error instanceof Error ? error.message : String(error), id };
  }
}
