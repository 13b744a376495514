import type { PendingPodRef } from '../shared/core/contracts/pods-pending';
import type { CapacityChange } from './capacity-changes-accumulator';

/** What the watcher tells the functions about one change. */
export type Hint =
  | { readonly type: 'PodsPending'; readonly pod: PendingPodRef }
  | { readonly type: 'CapacityChanged'; readonly change: CapacityChange };
