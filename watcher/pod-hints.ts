import type { Hint } from './hint';
import type { ObjectChange } from './reflector';
import { metadataOf } from './watch-objects';

/** What the watcher keeps of a pod. */
export interface PodDigest {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The node it is bound to. */
  readonly nodeName?: string;
  /** Not bound, not terminating, and the scheduler said PodScheduled=False, reason Unschedulable. */
  readonly unschedulable: boolean;
  /** Phase Succeeded or Failed: it no longer uses its node's capacity. */
  readonly finished: boolean;
}

interface PodFields {
  readonly spec?: { readonly nodeName?: string };
  readonly status?: {
    readonly phase?: string;
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly reason?: string;
    }[];
  };
}

/** The digest of a pod from a list or watch. */
export function podDigest(object: unknown): PodDigest {
  const meta = metadataOf(object);
  const { spec, status } = (object ?? {}) as PodFields;
  const nodeName = spec?.nodeName || undefined;
  const finished = status?.phase === 'Succeeded' || status?.phase === 'Failed';
  const unschedulable =
    nodeName === undefined &&
    !finished &&
    !meta.deletionTimestamp &&
    (status?.conditions ?? []).some(
      (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
    );
  return {
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    uid: meta.uid || `${meta.namespace}/${meta.name}`,
    ...(nodeName !== undefined ? { nodeName } : {}),
    unschedulable,
    finished,
  };
}

/**
 * Hints from a pod change: PodsPending when it becomes unschedulable (also for pods found
 * pending at start, which may have waited while no watcher ran; not again for a pod already
 * known to be pending); CapacityChanged when a pod leaves a node (deleted, or finished).
 */
export function podHints(change: ObjectChange<PodDigest>): Hint[] {
  const { previous, current } = change;
  const hints: Hint[] = [];
  if (current?.unschedulable && !previous?.unschedulable) {
    hints.push({
      type: 'PodsPending',
      pod: { namespace: current.namespace, name: current.name, uid: current.uid },
    });
  }
  if (change.initial) return hints;
  const left =
    (change.type === 'deleted' && previous?.nodeName !== undefined && !previous.finished) ||
    (change.type === 'modified' &&
      current?.nodeName !== undefined &&
      current.finished &&
      !previous?.finished);
  if (left) {
    const pod = (current ?? previous) as PodDigest;
    hints.push({
      type: 'CapacityChanged',
      change: { reason: 'podRemoved', name: `${pod.namespace}/${pod.name}` },
    });
  }
  return hints;
}
