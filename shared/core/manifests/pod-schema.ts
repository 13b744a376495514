import * as z from 'zod';
import { metadata, namedMetadata, optional, quantityMap, stringMap } from './kube-manifest-schema';

/**
 * The schema of a Pod manifest and of a workload's pod template: everything a user can write
 * that scheduling reads is checked here, so the scheduler can trust what it gets.
 */

/** A container or init container: its requests, limits and (init only) restart policy. */
export const container = z.object({
  name: optional(z.string()),
  resources: optional(
    z.object({
      requests: optional(quantityMap),
      limits: optional(quantityMap),
    }),
  ),
  restartPolicy: optional(z.string()),
});

/** Operators a pod may use in node affinity (Gte/Lte are Karpenter NodePool extensions only). */
export const nodeSelectorRequirement = z
  .object({
    key: z.string().min(1, { error: 'must not be empty' }),
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
    values: optional(z.array(z.string({ error: 'must be a string' }))),
  })
  .superRefine((r, ctx) => {
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          ctx.addIssue({
            code: 'custom',
            path: ['values'],
            message: `${r.operator} needs at least one value`,
          });
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          ctx.addIssue({ code: 'custom', path: ['values'], message: `${r.operator} takes no values` });
        }
        break;
      case 'Gt':
      case 'Lt':
        if (values.length !== 1 || !/^-?\d+$/.test(values[0])) {
          ctx.addIssue({
            code: 'custom',
            path: ['values'],
            message: `${r.operator} needs exactly one integer value`,
          });
        }
        break;
    }
  });

/** One term of a pod's node affinity; terms are ORed. */
export const nodeSelectorTerm = z.object({
  matchExpressions: optional(z.array(nodeSelectorRequirement)),
  // Node field selectors (only metadata.name exists) are accepted but not modelled: a node's
  // name is not known before it is launched.
  matchFields: optional(z.array(z.unknown())),
});

/** A label selector (pod affinity, topology spread). */
export const labelSelector = z.object({
  matchLabels: optional(stringMap),
  matchExpressions: optional(
    z.array(
      z.object({
        key: z.string().min(1, { error: 'must not be empty' }),
        operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
        values: optional(z.array(z.string())),
      }),
    ),
  ),
});

const weight = z.int().min(1, { error: 'must be 1..100' }).max(100, { error: 'must be 1..100' });

/** One pod (anti-)affinity term. */
export const podAffinityTerm = z.object({
  labelSelector: optional(labelSelector),
  namespaces: optional(z.array(z.string())),
  namespaceSelector: optional(labelSelector),
  topologyKey: z.string().min(1, { error: 'must not be empty' }),
});

const podAffinity = z.object({
  requiredDuringSchedulingIgnoredDuringExecution: optional(z.array(podAffinityTerm)),
  preferredDuringSchedulingIgnoredDuringExecution: optional(z.array(z.object({ weight, podAffinityTerm }))),
});

/** A pod's toleration, with the consistency checks the API server makes. */
export const toleration = z
  .object({
    key: optional(z.string()),
    operator: optional(z.enum(['Exists', 'Equal'])),
    value: optional(z.string()),
    // '' is the API's way of saying "every effect".
    effect: optional(z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute', ''])),
    tolerationSeconds: optional(z.int()),
  })
  .superRefine((t, ctx) => {
    // The API server rejects these; checking them keeps hand-written YAML honest.
    if (t.operator === 'Exists' && t.value) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be empty when operator is Exists' });
    }
    if (!t.key && t.operator !== 'Exists') {
      ctx.addIssue({ code: 'custom', path: ['operator'], message: 'must be Exists when key is empty' });
    }
  });

/** One topology spread constraint. */
export const topologySpreadConstraint = z.object({
  maxSkew: z.int().min(1, { error: 'must be at least 1' }),
  topologyKey: z.string().min(1, { error: 'must not be empty' }),
  whenUnsatisfiable: z.enum(['DoNotSchedule', 'ScheduleAnyway']),
  labelSelector: optional(labelSelector),
  minDomains: optional(z.int().min(1, { error: 'must be at least 1' })),
  matchLabelKeys: optional(z.array(z.string())),
  nodeAffinityPolicy: optional(z.enum(['Honor', 'Ignore'])),
  nodeTaintsPolicy: optional(z.enum(['Honor', 'Ignore'])),
});

/** The PodSpec fields scheduling depends on; anything else is ignored. */
export const podSpec = z.object({
  containers: z.array(container).min(1, { error: 'needs at least one container' }),
  initContainers: optional(z.array(container)),
  overhead: optional(quantityMap),
  nodeSelector: optional(stringMap),
  affinity: optional(
    z.object({
      nodeAffinity: optional(
        z.object({
          requiredDuringSchedulingIgnoredDuringExecution: optional(
            z.object({
              nodeSelectorTerms: z.array(nodeSelectorTerm).min(1, { error: 'needs at least one term' }),
            }),
          ),
          preferredDuringSchedulingIgnoredDuringExecution: optional(
            z.array(z.object({ weight, preference: nodeSelectorTerm })),
          ),
        }),
      ),
      podAffinity: optional(podAffinity),
      podAntiAffinity: optional(podAffinity),
    }),
  ),
  tolerations: optional(z.array(toleration)),
  topologySpreadConstraints: optional(z.array(topologySpreadConstraint)),
  nodeName: optional(z.string()),
  priority: optional(z.int()),
  priorityClassName: optional(z.string()),
  terminationGracePeriodSeconds: optional(z.int().min(0, { error: 'must not be negative' })),
  schedulerName: optional(z.string()),
});

/** A Pod manifest: named metadata and a spec. */
export const podManifest = z.object({
  metadata: namedMetadata,
  spec: podSpec,
});

/** A workload's `spec.template`: the metadata is optional and carries no name. */
export const podTemplate = z.object({
  metadata: optional(metadata),
  spec: podSpec,
});

/** A PodSpec as validated by {@link podSpec}. */
export type PodSpec = z.infer<typeof podSpec>;
/** A container as validated by {@link container}. */
export type Container = z.infer<typeof container>;
