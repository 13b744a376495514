import * as z from 'zod';
import type { ValidationLocation } from '../model/errors';
import { ANNOTATIONS } from '../model/labels';
import type { DisruptionBudget, NodePool } from '../model/nodepool';
import { resourceValue } from '../model/quantity';
import type { NodeSelectorRequirement } from '../model/requirements';
import type { Resources } from '../model/resources';
import type { Taint } from '../model/taints';
import { type ManifestKind, manifestHeader, parseManifest, stringMap } from './manifest-schema';
import { DURATION_OR_NEVER, disruption, durationMessage } from './nodepool-disruption';
import {
  labelKeyProblem,
  labelValue,
  QUALIFIED_NAME,
  restrictedLabelReason,
  templateLabels,
} from './nodepool-labels';

/**
 * Parsing and validating karpenter.sh/v1 NodePools, as Karpenter's CRD (OpenAPI schema and
 * CEL rules) does, so that a NodePool the API server would accept parses here and one it
 * would reject fails here with the same reason.
 *
 * Where we differ, and why:
 * - Unknown fields are errors. The API server silently prunes them (structural schemas); a file
 *   or SSM parameter has no server to show the pruned object, so a typo such as
 *   `consolidateafter` would otherwise be ignored without a word. Status is accepted and
 *   ignored; metadata may carry any ObjectMeta field.
 * - Cross-field rules (CEL) run on a part of the object only once that part is well-typed, so
 *   a document with type errors may reveal further issues after they are fixed.
 * - Rules that compare with the previous object (immutability, static ↔ dynamic) cannot be
 *   checked on a single document and are not.
 */

/** apiVersion of the NodePools this module parses. */
export const NODEPOOL_API_VERSION = 'karpenter.sh/v1';

// Pattern from the CRD.
const DURATION = /^([0-9]+(s|m|h))+$/;

const INTEGER_OPERATORS = new Set(['Gt', 'Lt', 'Gte', 'Lte']);

const requirement = z
  .strictObject({
    key: z.string().superRefine((key, ctx) => {
      const problem = labelKeyProblem(key) ?? restrictedLabelReason(key);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']),
    values: z.array(labelValue).optional(),
    minValues: z.int().min(1).max(50).optional(),
  })
  .superRefine((r, ctx) => {
    const values = r.values ?? [];
    if (r.operator === 'In' && values.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: "requirements with operator 'In' must have a value defined",
        path: ['values'],
      });
    }
    if (
      INTEGER_OPERATORS.has(r.operator) &&
      (values.length !== 1 || !/^[+-]?\d+$/.test(values[0]) || Number(values[0]) < 0)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `requirements operator '${r.operator}' must have a single positive integer value`,
        path: ['values'],
      });
    }
    if (r.operator === 'In' && r.minValues !== undefined && values.length < r.minValues) {
      ctx.addIssue({
        code: 'custom',
        message: `requirements with 'minValues' (${r.minValues}) must have at least that many values specified in the 'values' field`,
        path: ['minValues'],
      });
    }
  });
const taintKey = z
  .string()
  .min(1)
  .superRefine((key, ctx) => {
    const problem = labelKeyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const taint = z.strictObject({
  key: taintKey,
  // The CRD gives taint values the qualified-name pattern (core/v1's own validation).
  value: z
    .string()
    .regex(
      QUALIFIED_NAME,
      'must be a qualified name (alphanumerics, "-", "_", "." and an optional "prefix/")',
    )
    .optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  timeAdded: z.string().optional(),
});

const nodeClassRef = z.strictObject({
  group: z
    .string()
    .min(1, 'group may not be empty')
    .regex(/^[^/]*$/, 'group must not contain "/"'),
  kind: z.string().min(1, 'kind may not be empty'),
  name: z.string().min(1, 'name may not be empty'),
});

const limits = z
  .record(
    z.string(),
    z.union([z.number(), z.string()], { error: 'must be a quantity ("100", "1000Gi") or a number' }),
  )
  .superRefine((entries, ctx) => {
    for (const [name, quantity] of Object.entries(entries)) {
      const keyProblem = labelKeyProblem(name);
      if (keyProblem) {
        ctx.addIssue({ code: 'custom', message: `resource name ${keyProblem}`, path: [name] });
        continue;
      }
      try {
        if (typeof quantity === 'number' && !Number.isFinite(quantity)) throw new RangeError('not finite');
        if (resourceValue(name, quantity) < 0) {
          ctx.addIssue({ code: 'custom', message: 'limit must not be negative', path: [name] });
        }
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a Kubernetes quantity ("100", "500m", "1000Gi")',
          path: [name],
        });
      }
    }
  });

const spec = z
  .strictObject({
    template: z.strictObject({
      metadata: z
        .strictObject({
          labels: templateLabels.optional(),
          annotations: stringMap.optional(),
        })
        .optional(),
      spec: z.strictObject({
        nodeClassRef,
        requirements: z.array(requirement).max(100, 'must have at most 100 requirements'),
        taints: z.array(taint).optional(),
        startupTaints: z.array(taint).optional(),
        expireAfter: z.string().regex(DURATION_OR_NEVER, durationMessage).optional(),
        terminationGracePeriod: z
          .string()
          .regex(DURATION, 'must be a duration in hours, minutes and seconds ("48h", "30m")')
          .optional(),
      }),
    }),
    disruption: disruption.optional(),
    limits: limits.optional(),
    weight: z.int().min(1).max(100).optional(),
    replicas: z.int().min(0).optional(),
  })
  .superRefine((s, ctx) => {
    const t = s.template.spec;
    const seen = new Map<string, string>();
    for (const [list, taints] of [
      ['taints', t.taints ?? []],
      ['startupTaints', t.startupTaints ?? []],
    ] as const) {
      taints.forEach((x, i) => {
        const id = `${x.key}:${x.effect}`;
        const first = seen.get(id);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `duplicate taint key and effect ${id} (also at ${first})`,
            path: ['template', 'spec', list, i],
          });
        } else seen.set(id, `spec.template.spec.${list}[${i}]`);
      });
    }
    if (s.replicas !== undefined) {
      const extra = Object.keys(s.limits ?? {}).filter((k) => k !== 'nodes');
      for (const name of extra) {
        ctx.addIssue({
          code: 'custom',
          message: "only 'limits.nodes' is supported on static NodePools (spec.replicas is set)",
          path: ['limits', name],
        });
      }
      if (s.weight !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: "'weight' is not supported on static NodePools (spec.replicas is set)",
          path: ['weight'],
        });
      }
    }
  });

const NODEPOOL_KIND: ManifestKind = {
  kind: 'NodePool',
  apiVersion: NODEPOOL_API_VERSION,
  legacyApiVersion: 'karpenter.sh/v1beta1',
};

/** The values `podlift.dev/global-consolidation-k` may take: a whole number from 1 to 10. */
export const GLOBAL_CONSOLIDATION_K = /^(?:[1-9]|10)$/;

/** The values `podlift.dev/launch-price-band` may take: a whole percentage from 0% to 1000%. */
export const LAUNCH_PRICE_BAND = /^(?:0|[1-9]\d{0,2}|1000)%$/;

/** podlift's NodePool annotations, what their values must match, and the error saying so. */
const ANNOTATION_VALUES: readonly (readonly [string, RegExp, string])[] = [
  [
    ANNOTATIONS.globalConsolidationK,
    GLOBAL_CONSOLIDATION_K,
    'must be an integer from 1 to 10 (the k of the global consolidation threshold, 1/k)',
  ],
  [
    ANNOTATIONS.globalConsolidationSettleAfter,
    DURATION,
    'must be a duration in hours, minutes and seconds ("3m", "90s"): how long the NodePool must have been settled before its global consolidation k applies',
  ],
  [
    ANNOTATIONS.launchPriceBand,
    LAUNCH_PRICE_BAND,
    'must be a whole percentage from 0% to 1000% (how far above the cheapest option a launch option may be priced)',
  ],
];

const nodePoolManifest = z
  .strictObject({
    ...manifestHeader(NODEPOOL_KIND),
    spec,
    status: z.unknown().optional(),
  })
  .superRefine((m, ctx) => {
    // podlift's own NodePool annotations: each value must match its pattern.
    for (const [key, pattern, message] of ANNOTATION_VALUES) {
      const value = m.metadata.annotations?.[key];
      if (value !== undefined && !pattern.test(value))
        ctx.addIssue({ code: 'custom', message, path: ['metadata', 'annotations', key] });
    }
  });

type NodePoolManifest = z.infer<typeof nodePoolManifest>;
type TaintInput = z.infer<typeof taint>;

function toTaint(t: TaintInput): Taint {
  return { key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect };
}

function toNodePool(m: NodePoolManifest): NodePool {
  const t = m.spec.template;
  const d = m.spec.disruption;
  const k = m.metadata.annotations?.[ANNOTATIONS.globalConsolidationK];
  const settle = m.metadata.annotations?.[ANNOTATIONS.globalConsolidationSettleAfter];
  const band = m.metadata.annotations?.[ANNOTATIONS.launchPriceBand];
  const requirements: NodeSelectorRequirement[] = t.spec.requirements.map((r) => ({
    key: r.key,
    operator: r.operator,
    ...(r.values !== undefined ? { values: r.values } : {}),
    ...(r.minValues !== undefined ? { minValues: r.minValues } : {}),
  }));
  const budgets: DisruptionBudget[] = (d?.budgets ?? [{}]).map((b) => ({
    nodes: b.nodes ?? '10%',
    ...(b.schedule !== undefined ? { schedule: b.schedule } : {}),
    ...(b.duration !== undefined ? { duration: b.duration } : {}),
    ...(b.reasons !== undefined ? { reasons: b.reasons } : {}),
  }));
  const limits: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(m.spec.limits ?? {}))
    limits[name] = resourceValue(name, quantity);
  return {
    name: m.metadata.name,
    ...(m.metadata.uid !== undefined ? { uid: m.metadata.uid } : {}),
    labels: m.metadata.labels ?? {},
    annotations: m.metadata.annotations ?? {},
    template: {
      labels: t.metadata?.labels ?? {},
      annotations: t.metadata?.annotations ?? {},
      nodeClassRef: { ...t.spec.nodeClassRef },
      requirements,
      taints: (t.spec.taints ?? []).map(toTaint),
      startupTaints: (t.spec.startupTaints ?? []).map(toTaint),
      expireAfter: t.spec.expireAfter ?? '720h',
      ...(t.spec.terminationGracePeriod !== undefined
        ? { terminationGracePeriod: t.spec.terminationGracePeriod }
        : {}),
    },
    disruption: {
      consolidationPolicy: d?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
      consolidateAfter: d?.consolidateAfter ?? '0s',
      budgets,
      ...(k !== undefined ? { globalConsolidationK: Number(k) } : {}),
      ...(settle !== undefined ? { globalConsolidationSettleAfter: settle } : {}),
    },
    ...(band !== undefined ? { launchPriceBand: Number.parseInt(band, 10) / 100 } : {}),
    limits: limits satisfies Resources,
    weight: m.spec.weight ?? 0,
    ...(m.spec.replicas !== undefined ? { replicas: m.spec.replicas } : {}),
  };
}

/**
 * Validates a karpenter.sh/v1 NodePool manifest (already decoded from YAML or JSON) like
 * Karpenter's CRD does and returns it with Karpenter's defaults applied: expireAfter 720h,
 * consolidationPolicy WhenEmptyOrUnderutilized, consolidateAfter 0s (when spec.disruption is
 * absent; the CRD requires it whenever spec.disruption is written), budgets [{ nodes: "10%" }]
 * (and nodes "10%" in a budget without one), weight 0. Limits become canonical units (cpu in
 * millicores, memory in bytes, `nodes` as a count). Unknown fields are rejected, not pruned.
 *
 * @param location where the manifest came from; `object` is set to `NodePool/<name>`.
 * @throws ValidationError listing every issue with its dotted field path and bad value.
 */
export function parseNodePool(obj: unknown, location: ValidationLocation = {}): NodePool {
  return parseManifest(NODEPOOL_KIND, nodePoolManifest, obj, location, toNodePool);
}
