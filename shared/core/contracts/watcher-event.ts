import { ValidationError } from '../model/errors';
import { type CapacityChangedDetail, parseCapacityChangedDetail } from './capacity-changed';
import { type PodsPendingDetail, parsePodsPendingDetail } from './pods-pending';
import { WATCHER_EVENT_SOURCE } from './watcher-source';

/** A watcher event, told apart by its detail-type. */
export type WatcherEvent =
  | { readonly detailType: 'PodsPending'; readonly detail: PodsPendingDetail }
  | { readonly detailType: 'CapacityChanged'; readonly detail: CapacityChangedDetail };

/** The fields of an EventBridge event (as a Lambda target receives it) this module reads. */
export interface EventBridgeEnvelope {
  readonly source?: unknown;
  readonly 'detail-type'?: unknown;
  readonly detail?: unknown;
}

/**
 * Parses an EventBridge event from the watcher at a function's boundary: checks the source
 * and detail-type, then the detail against its versioned schema.
 * @throws ValidationError naming the bad field and value.
 */
export function parseWatcherEvent(event: EventBridgeEnvelope): WatcherEvent {
  const location = { source: 'EventBridge event' };
  if (event.source !== WATCHER_EVENT_SOURCE) {
    throw new ValidationError(
      [{ field: 'source', value: event.source, message: `not an event of ${WATCHER_EVENT_SOURCE}` }],
      location,
    );
  }
  const detailType = event['detail-type'];
  if (detailType === 'PodsPending') return { detailType, detail: parsePodsPendingDetail(event.detail) };
  if (detailType === 'CapacityChanged')
    return { detailType, detail: parseCapacityChangedDetail(event.detail) };
  throw new ValidationError(
    [{ field: 'detail-type', value: detailType, message: 'expected PodsPending or CapacityChanged' }],
    location,
  );
}
