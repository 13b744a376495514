import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';

/** At most this many entries per PutEvents call. */
export const MAX_PUT_EVENTS_ENTRIES = 10;
/** The limit on the entries of one PutEvents call, and so on any single entry: 256 KB. */
export const MAX_PUT_EVENTS_BYTES = 256 * 1024;

/**
 * A PutEvents entry's size as EventBridge counts it ("Calculating PutEvents event entry size"
 * in the EventBridge user guide): 14 bytes for Time if set, plus the UTF-8 bytes of Source,
 * DetailType, Detail and each of Resources. EventBusName does not count.
 */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  const bytes = (value: string | undefined) => (value === undefined ? 0 : Buffer.byteLength(value, 'utf8'));
  return (
    (entry.Time === undefined ? 0 : 14) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + bytes(resource), 0)
  );
}
