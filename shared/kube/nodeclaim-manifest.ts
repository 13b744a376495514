import * as z from 'zod';
import { validationErrorFromZod } from '../core/manifests/schema-issues';
import { LABEL_NODEPOOL } from '../core/model/labels';
import type { Condition, NodeClaim, NodeClaimStatus } from '../core/model/nodeclaim';
import { TERMINATION_FINALIZER } from '../core/model/nodeclaim';
import { formatQuantity, isQuantity, resourceValue } from '../core/model/quantity';
import type { NodeSelectorRequirement } from '../core/model/requirements';
import type { Resources } from '../core/model/resources';
import type { Taint } from '../core/model/taints';
import type { NewNodeClaim } from '../core/ports/cluster';

/**
 * karpenter.sh/v1 NodeClaim objects ↔ the core NodeClaim: reading what the API server stores
 * (tolerant of fields podlift does not use: another controller may have written them) and
 * building the object to create and the status to write.
 */

const quantities = z.record(z.string(), z.union([z.string(), z.number()])).superRefine((map, ctx) => {
  for (const [name, q] of Object.entries(map)) {
    if (!isQuantity(String(q)))
      ctx.addIssue({ code: 'custom', path: [name], message: 'not a Kubernetes quantity' });
  }
});

const taint = z.looseObject({
  key: z.string().min(1),
  value: z.string().nullish(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

const condition = z.looseObject({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  lastTransitionTime: z.string().nullish(),
  observedGeneration: z.number().nullish(),
});

const nodeClaimObject = z.looseObject({
  metadata: z.looseObject({
    name: z.string().min(1),
    uid: z.string().nullish(),
    resourceVersion: z.string().nullish(),
    labels: z.record(z.string(), z.string()).nullish(),
    annotations: z.record(z.string(), z.string()).nullish(),
    finalizers: z.array(z.string()).nullish(),
    deletionTimestamp: z.string().nullish(),
    creationTimestamp: z.string().nullish(),
  }),
  spec: z.looseObject({
    nodeClassRef: z.looseObject({ group: z.string(), kind: z.string(), name: z.string() }),
    requirements: z
      .array(
        z.looseObject({
          key: z.string().min(1),
          operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']),
          values: z.array(z.string()).nullish(),
          minValues: z.int().nullish(),
        }),
      )
      .nullish(),
    resources: z.looseObject({ requests: quantities.nullish() }).nullish(),
    taints: z.array(taint).nullish(),
    startupTaints: z.array(taint).nullish(),
    expireAfter: z.string().nullish(),
    terminationGracePeriod: z.string().nullish(),
  }),
  status: z
    .looseObject({
      providerID: z.string().nullish(),
      imageID: z.string().nullish(),
      nodeName: z.string().nullish(),
      capacity: quantities.nullish(),
      allocatable: quantities.nullish(),
      conditions: z.array(condition).nullish(),
      lastPodEventTime: z.string().nullish(),
    })
    .nullish(),
});

/**
 * The core NodeClaim of a stored NodeClaim object (the API's JSON).
 * @throws ValidationError naming `NodeClaim/<name>` and the bad field.
 */
export function nodeClaimFromObject(obj: unknown): NodeClaim {
  const result = nodeClaimObject.safeParse(obj);
  if (!result.success) {
    const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
    throw validationErrorFromZod(
      result.error,
      obj,
      { source: 'cluster', object: `NodeClaim/${typeof name === 'string' ? name : '<unnamed>'}` },
      'ignored',
    );
  }
  const { metadata: m, spec: s, status } = result.data;
  return {
    name: m.name,
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
    labels: m.labels ?? {},
    annotations: m.annotations ?? {},
    finalizers: m.finalizers ?? [],
    ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
    ...(m.creationTimestamp ? { creationTimestamp: m.creationTimestamp } : {}),
    spec: {
      nodeClassRef: { group: s.nodeClassRef.group, kind: s.nodeClassRef.kind, name: s.nodeClassRef.name },
      requirements: (s.requirements ?? []).map(
        (r): NodeSelectorRequirement => ({
          key: r.key,
          operator: r.operator,
          ...(r.values ? { values: r.values } : {}),
          ...(r.minValues != null ? { minValues: r.minValues } : {}),
        }),
      ),
      resources: { requests: toResources(s.resources?.requests ?? {}) },
      taints: (s.taints ?? []).map(toTaint),
      startupTaints: (s.startupTaints ?? []).map(toTaint),
      ...(s.expireAfter ? { expireAfter: s.expireAfter } : {}),
      ...(s.terminationGracePeriod ? { terminationGracePeriod: s.terminationGracePeriod } : {}),
    },
    status: status
      ? {
          ...(status.providerID ? { providerID: status.providerID } : {}),
          ...(status.imageID ? { imageID: status.imageID } : {}),
          ...(status.nodeName ? { nodeName: status.nodeName } : {}),
          ...(status.capacity ? { capacity: toResources(status.capacity) } : {}),
          ...(status.allocatable ? { allocatable: toResources(status.allocatable) } : {}),
          ...(status.conditions ? { conditions: status.conditions.map(toCondition) } : {}),
          ...(status.lastPodEventTime ? { lastPodEventTime: status.lastPodEventTime } : {}),
        }
      : {},
  };
}

/**
 * The object to POST for `claim`: generateName `<nodePool>-`, the NodePool label, the
 * termination finalizer (so deleting it waits for podlift to drain and terminate), an owner
 * reference to the NodePool when its uid is known, and the spec with quantities as strings.
 */
export function newNodeClaimObject(claim: NewNodeClaim): Record<string, unknown> {
  const s = claim.spec;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      generateName: `${claim.nodePool}-`,
      labels: { ...claim.labels, [LABEL_NODEPOOL]: claim.nodePool },
      annotations: { ...claim.annotations },
      finalizers: [TERMINATION_FINALIZER],
      ...(claim.nodePoolUid
        ? {
            ownerReferences: [
              {
                apiVersion: 'karpenter.sh/v1',
                kind: 'NodePool',
                name: claim.nodePool,
                uid: claim.nodePoolUid,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      nodeClassRef: { ...s.nodeClassRef },
      requirements: s.requirements.map((r) => {
        const { values, ...rest } = r;
        return values && values.length > 0 ? { ...rest, values: [...values] } : rest;
      }),
      resources: { requests: quantityStrings(s.resources.requests) },
      ...(s.taints.length > 0 ? { taints: s.taints.map((t) => ({ ...t })) } : {}),
      ...(s.startupTaints.length > 0 ? { startupTaints: s.startupTaints.map((t) => ({ ...t })) } : {}),
      ...(s.expireAfter ? { expireAfter: s.expireAfter } : {}),
      ...(s.terminationGracePeriod ? { terminationGracePeriod: s.terminationGracePeriod } : {}),
    },
  };
}

/** `.status` of a NodeClaim object: resources as quantity strings ("2", "7Gi", "1500m"). */
export function nodeClaimStatusObject(status: NodeClaimStatus): Record<string, unknown> {
  return {
    ...(status.providerID ? { providerID: status.providerID } : {}),
    ...(status.imageID ? { imageID: status.imageID } : {}),
    ...(status.nodeName ? { nodeName: status.nodeName } : {}),
    ...(status.capacity ? { capacity: quantityStrings(status.capacity) } : {}),
    ...(status.allocatable ? { allocatable: quantityStrings(status.allocatable) } : {}),
    ...(status.conditions ? { conditions: status.conditions.map((c) => ({ ...c })) } : {}),
    ...(status.lastPodEventTime ? { lastPodEventTime: status.lastPodEventTime } : {}),
  };
}

/** Canonical values back to short exact quantity strings. */
export function quantityStrings(resources: Resources): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(resources)) out[name] = formatQuantity(name, value);
  return out;
}

function toResources(map: Readonly<Record<string, string | number>>): Resources {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(map)) out[name] = resourceValue(name, q);
  return out;
}

function toTaint(t: z.infer<typeof taint>): Taint {
  return { key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect };
}

function toCondition(c: z.infer<typeof condition>): Condition {
  return {
    type: c.type,
    status: c.status,
    reason: c.reason ?? '',
    message: c.message ?? '',
    lastTransitionTime: c.lastTransitionTime ?? '',
    ...(c.observedGeneration != null ? { observedGeneration: c.observedGeneration } : {}),
  };
}
