import * as z from 'zod';
import type { ValidationLocation } from '../model/errors';
import { LABEL_NODEPOOL } from '../model/labels';
import type { Pod } from '../model/pod';
import type { Taint } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import {
  effect,
  namedMetadata,
  optional,
  parseOrThrow,
  peekName,
  quantityMap,
  toResources,
} from './kube-manifest-schema';

/**
 * Validation of Node manifests (YAML or API JSON, see kube-objects.ts) into the cluster
 * state's `StateNode`: the existing capacity the scheduler packs onto before it asks for new
 * nodes.
 */

/** The Node fields the cluster state reads: taints, cordon, provider ID, allocatable and Ready. */
const nodeManifest = z.object({
  metadata: namedMetadata,
  spec: optional(
    z.object({
      taints: optional(
        z.array(
          z.object({
            key: z.string().min(1, { error: 'must not be empty' }),
            value: optional(z.string()),
            effect,
          }),
        ),
      ),
      unschedulable: optional(z.boolean()),
      providerID: optional(z.string()),
    }),
  ),
  status: optional(
    z.object({
      allocatable: optional(quantityMap),
      capacity: optional(quantityMap),
      conditions: optional(
        z.array(
          z.looseObject({ type: z.string(), status: z.string(), lastTransitionTime: optional(z.string()) }),
        ),
      ),
    }),
  ),
});

/**
 * Validates a Node manifest into a `StateNode` of kind `node`: allocatable from
 * status.allocatable (status.capacity when absent), taints, labels, and the NodePool from the
 * `karpenter.sh/nodepool` label. Cordoned or deleting nodes are `unschedulable`. Pods are
 * attached by the caller, who knows which pods are bound to it.
 * @throws ValidationError naming the bad field, located at `Node/<name>`.
 */
export function nodeFromManifest(
  obj: unknown,
  location: ValidationLocation = {},
  pods: readonly Pod[] = [],
): StateNode {
  const name = peekName(obj);
  const parsed = parseOrThrow(nodeManifest, obj, '', { object: `Node/${name ?? '(unnamed)'}`, ...location });
  const labels = parsed.metadata.labels ?? {};
  const status = parsed.status ?? {};
  const taints: Taint[] = (parsed.spec?.taints ?? []).map((t) => ({
    key: t.key,
    ...(t.value ? { value: t.value } : {}),
    effect: t.effect,
  }));
  const nodePool = labels[LABEL_NODEPOOL];
  const deleting = parsed.metadata.deletionTimestamp != null;
  const unschedulable = parsed.spec?.unschedulable === true || deleting;
  const meta = parsed.metadata;
  return {
    kind: 'node',
    name: meta.name,
    labels,
    taints,
    allocatable: toResources(status.allocatable ?? status.capacity ?? {}),
    ...(status.capacity ? { capacity: toResources(status.capacity) } : {}),
    pods,
    ...(nodePool !== undefined ? { nodePool } : {}),
    ...(unschedulable ? { unschedulable } : {}),
    ...(parsed.spec?.providerID ? { providerID: parsed.spec.providerID } : {}),
    ...(meta.annotations && Object.keys(meta.annotations).length > 0
      ? { annotations: meta.annotations }
      : {}),
    ready: status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    ...(status.conditions && status.conditions.length > 0
      ? {
          conditions: status.conditions.map((c) => ({
            type: c.type,
            status: c.status,
            ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}),
          })),
        }
      : {}),
    ...(meta.creationTimestamp ? { creationTimestamp: meta.creationTimestamp } : {}),
    ...(deleting ? { deleting } : {}),
    ...(meta.finalizers && meta.finalizers.length > 0 ? { finalizers: meta.finalizers } : {}),
  };
}
