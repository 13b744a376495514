import type { CapacityChangeReason } from '../shared/core/contracts/capacity-changed';
import { VALIDATION_DELAY_MS } from '../shared/core/disruption/methods';
import { durationMs } from '../shared/core/model/duration';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../shared/core/model/labels';
import type { Hint } from './hint';
import type { ObjectChange } from './reflector';
import { metadataOf } from './watch-objects';

/** What the watcher keeps of a NodePool or EC2NodeClass: its spec's generation. */
export interface GenerationDigest {
  readonly name: string;
  readonly generation: number;
}

/** The digest of a NodePool or EC2NodeClass. */
export function generationDigest(object: unknown): GenerationDigest {
  const meta = metadataOf(object);
  return { name: meta.name ?? '', generation: meta.generation ?? 0 };
}

/** What the watcher keeps of a NodePool: its spec's generation and its consolidateAfter. */
export interface NodePoolDigest extends GenerationDigest {
  /**
   * `spec.disruption.consolidateAfter` in ms (the CRD's default `0s` when absent); absent for
   * `Never` and for a value that does not read (the functions report it).
   */
  readonly consolidateAfterMs?: number;
}

/** The digest of a NodePool. */
export function nodePoolDigest(object: unknown): NodePoolDigest {
  const spec = (object as { spec?: { disruption?: { consolidateAfter?: unknown } } } | null)?.spec;
  const after = spec?.disruption?.consolidateAfter ?? '0s';
  let consolidateAfterMs: number | undefined;
  try {
    consolidateAfterMs = typeof after === 'string' ? durationMs(after) : undefined;
  } catch {
    consolidateAfterMs = undefined;
  }
  return {
    ...generationDigest(object),
    ...(consolidateAfterMs !== undefined ? { consolidateAfterMs } : {}),
  };
}

/**
 * CapacityChanged with `reason` when a NodePool or EC2NodeClass is created, deleted or its
 * spec changes (metadata.generation); status and label updates are not hints.
 */
export function generationHints(
  reason: 'nodePoolChanged' | 'nodeClassChanged',
): (change: ObjectChange<GenerationDigest>) => Hint[] {
  return (change) => {
    if (change.initial) return [];
    const { previous, current } = change;
    const changed =
      change.type !== 'modified' || (previous !== undefined && current?.generation !== previous.generation);
    const name = (current ?? previous)?.name ?? '';
    return changed ? [capacityChange(reason, name)] : [];
  };
}

/** What the watcher keeps of a NodeClaim. */
export interface NodeClaimDigest {
  readonly name: string;
  readonly generation: number;
  /** Has a deletionTimestamp. */
  readonly deleting: boolean;
  /** `Type=Status` of each condition, sorted: Launched, Registered, Initialized, Drifted, ... */
  readonly conditions: string;
  /**
   * When the disruption command recorded on it is due for validation (epoch ms): its `decidedAt`
   * plus {@link VALIDATION_DELAY_MS}; absent without a readable command.
   */
  readonly validationDueAt?: number;
  /** Its `karpenter.sh/nodepool` label. */
  readonly nodePool?: string;
  /**
   * Since when its NodePool's consolidateAfter runs (epoch ms): `status.lastPodEventTime`, or
   * without one the Initialized condition's transition; absent until Initialized is True.
   */
  readonly quietSince?: number;
}

interface NodeClaimFields {
  readonly metadata?: {
    readonly annotations?: Readonly<Record<string, string>>;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly status?: {
    readonly lastPodEventTime?: string;
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly lastTransitionTime?: string;
    }[];
  };
}

/** The digest of a NodeClaim. */
export function nodeClaimDigest(object: unknown): NodeClaimDigest {
  const meta = metadataOf(object);
  const { metadata, status } = (object ?? {}) as NodeClaimFields;
  const validationDueAt = commandValidationDueAt(metadata?.annotations?.[ANNOTATIONS.disruptionCommand]);
  const nodePool = metadata?.labels?.[LABEL_NODEPOOL];
  // As shared/core/disruption/consolidatable.ts `underConsolidateAfter` reads it.
  const initialized = status?.conditions?.find((c) => c.type === 'Initialized' && c.status === 'True');
  const since = initialized
    ? Date.parse(status?.lastPodEventTime ?? initialized.lastTransitionTime ?? '')
    : Number.NaN;
  return {
    name: meta.name ?? '',
    generation: meta.generation ?? 0,
    deleting: Boolean(meta.deletionTimestamp),
    conditions: (status?.conditions ?? [])
      .map((c) => `${c.type}=${c.status}`)
      .sort()
      .join(','),
    ...(validationDueAt !== undefined ? { validationDueAt } : {}),
    ...(nodePool !== undefined ? { nodePool } : {}),
    ...(Number.isFinite(since) ? { quietSince: since } : {}),
  };
}

/**
 * When a recorded command (the `podlift.dev/disruption-command` annotation's JSON) is due for
 * validation: its `decidedAt` + {@link VALIDATION_DELAY_MS}. Undefined when there is no command
 * or it does not read (the disruption function clears such annotations).
 */
export function commandValidationDueAt(annotation: string | undefined): number | undefined {
  if (!annotation) return undefined;
  let decidedAt: unknown;
  try {
    decidedAt = (JSON.parse(annotation) as { decidedAt?: unknown } | null)?.decidedAt;
  } catch {
    return undefined;
  }
  const at = typeof decidedAt === 'string' ? Date.parse(decidedAt) : Number.NaN;
  return Number.isFinite(at) ? at + VALIDATION_DELAY_MS : undefined;
}

/**
 * CapacityChanged (nodeClaimChanged) when a NodeClaim is created or deleted, or its spec,
 * deletion or condition statuses change; heartbeats and message updates are not hints.
 */
export function nodeClaimHints(change: ObjectChange<NodeClaimDigest>): Hint[] {
  if (change.initial) return [];
  const { previous, current } = change;
  const changed =
    change.type !== 'modified' ||
    current?.generation !== previous?.generation ||
    current?.deleting !== previous?.deleting ||
    current?.conditions !== previous?.conditions;
  const name = (current ?? previous)?.name ?? '';
  return changed ? [capacityChange('nodeClaimChanged', name)] : [];
}

function capacityChange(reason: CapacityChangeReason, name: string): Hint {
  return { type: 'CapacityChanged', change: { reason, name } };
}
