import type { Hint } from './hint';
import type { ObjectChange } from './reflector';
import { metadataOf } from './watch-objects';

/** What the watcher keeps of a node. */
export interface NodeDigest {
  readonly name: string;
  /** Condition Ready is True. */
  readonly ready: boolean;
}

interface NodeFields {
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
}

/** The digest of a node from a list or watch. */
export function nodeDigest(object: unknown): NodeDigest {
  const { status } = (object ?? {}) as NodeFields;
  return {
    name: metadataOf(object).name ?? '',
    ready: (status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
  };
}

/** CapacityChanged when a node is added, becomes Ready or is removed (not for nodes found at start). */
export function nodeHints(change: ObjectChange<NodeDigest>): Hint[] {
  if (change.initial) return [];
  const { previous, current } = change;
  if (change.type === 'added' && current) return [capacity('nodeAdded', current.name)];
  if (change.type === 'deleted' && previous) return [capacity('nodeRemoved', previous.name)];
  if (change.type === 'modified' && current?.ready && !previous?.ready)
    return [capacity('nodeReady', current.name)];
  return [];
}

function capacity(reason: 'nodeAdded' | 'nodeReady' | 'nodeRemoved', name: string): Hint {
  return { type: 'CapacityChanged', change: { reason, name } };
}
