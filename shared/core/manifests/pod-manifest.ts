import * as z from 'zod';
import type { ValidationIssue, ValidationLocation } from '../model/errors';
import { ValidationError } from '../model/errors';
import type { LabelSelector } from '../model/label-selector';
import { LABEL_NODEPOOL } from '../model/labels';
import type {
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../model/pod';
import { resourceValue } from '../model/quantity';
import type { NodeSelectorRequirement } from '../model/requirements';
import type { Resources } from '../model/resources';
import { PODS } from '../model/resources';
import type { Taint, Toleration } from '../model/taints';
import type { StateNode } from '../state/cluster-state';
import { contentKey } from './content-key';

/**
 * Validation and normalisation of Pod and Node manifests (YAML or API JSON, see
 * kube-objects.ts) into the core `Pod` and `StateNode`. Everything a user can write is checked
 * here, so the scheduler can trust what it gets; a bad field becomes a ValidationError naming
 * its dotted path and value.
 */

// YAML turns an empty `key:` into null; the API omits the field. Both mean "absent".
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }));

/** Quantities keyed by resource name, each checked in that resource's canonical unit. */
const quantityMap = z
  .record(z.string(), z.union([z.string(), z.number()], { error: 'must be a Kubernetes quantity' }))
  .superRefine((map, ctx) => {
    for (const [name, quantity] of Object.entries(map)) {
      let value: number;
      try {
        value = resourceValue(name, quantity);
      } catch (e) {
        const why = e instanceof ValidationError ? e.issues[0]?.message : undefined;
        ctx.addIssue({ code: 'custom', path: [name], message: why ?? 'not a Kubernetes quantity' });
        continue;
      }
      if (value < 0) ctx.addIssue({ code: 'custom', path: [name], message: 'must not be negative' });
    }
  });

const container = z.object({
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
const nodeSelectorRequirement = z
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

const nodeSelectorTerm = z.object({
  matchExpressions: optional(z.array(nodeSelectorRequirement)),
  // Node field selectors (only metadata.name exists) are accepted but not modelled: a node's
  // name is not known before it is launched.
  matchFields: optional(z.array(z.unknown())),
});

const labelSelector = z.object({
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

const podAffinityTerm = z.object({
  labelSelector: optional(labelSelector),
  namespaces: optional(z.array(z.string())),
  namespaceSelector: optional(labelSelector),
  topologyKey: z.string().min(1, { error: 'must not be empty' }),
});

const podAffinity = z.object({
  requiredDuringSchedulingIgnoredDuringExecution: optional(z.array(podAffinityTerm)),
  preferredDuringSchedulingIgnoredDuringExecution: optional(z.array(z.object({ weight, podAffinityTerm }))),
});

const effect = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

const toleration = z
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

const topologySpreadConstraint = z.object({
  maxSkew: z.int().min(1, { error: 'must be at least 1' }),
  topologyKey: z.string().min(1, { error: 'must not be empty' }),
  whenUnsatisfiable: z.enum(['DoNotSchedule', 'ScheduleAnyway']),
  labelSelector: optional(labelSelector),
  minDomains: optional(z.int().min(1, { error: 'must be at least 1' })),
  matchLabelKeys: optional(z.array(z.string())),
  nodeAffinityPolicy: optional(z.enum(['Honor', 'Ignore'])),
  nodeTaintsPolicy: optional(z.enum(['Honor', 'Ignore'])),
});

const podSpec = z.object({
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

const ownerReference = z.object({
  kind: optional(z.string()),
  name: optional(z.string()),
  controller: optional(z.boolean()),
});

const metadata = z.object({
  name: optional(z.string()),
  namespace: optional(z.string()),
  uid: optional(z.string()),
  labels: optional(stringMap),
  annotations: optional(stringMap),
  ownerReferences: optional(z.array(ownerReference)),
  deletionTimestamp: optional(z.string()),
  creationTimestamp: optional(z.string()),
  finalizers: optional(z.array(z.string())),
});

const podMetadata = metadata.extend({ name: z.string().min(1, { error: 'must not be empty' }) });

const podManifest = z.object({
  metadata: podMetadata,
  spec: podSpec,
});

const podTemplate = z.object({
  metadata: optional(metadata),
  spec: podSpec,
});

const nodeManifest = z.object({
  metadata: metadata.extend({ name: z.string().min(1, { error: 'must not be empty' }) }),
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
      conditions: optional(z.array(z.looseObject({ type: z.string(), status: z.string() }))),
    }),
  ),
});

type PodSpec = z.infer<typeof podSpec>;
type Container = z.infer<typeof container>;
type Metadata = z.infer<typeof metadata>;

/**
 * Validates a Pod manifest and normalises it into the core `Pod`: namespace defaults to
 * `default`, uid to `namespace/name`, priority to 0, and requests are the effective requests
 * kube-scheduler uses (see {@link effectivePodRequests}).
 * @throws ValidationError naming each bad field (e.g. `spec.containers[0].resources.requests.cpu`)
 *   and its value, located at `Pod/<name>` unless `location.object` says otherwise.
 * @param specs specs already validated in this input, so a pod sharing one is checked faster
 */
export function podFromManifest(obj: unknown, location: ValidationLocation = {}, specs?: PodSpecCache): Pod {
  const fast = specs?.parse(obj);
  if (fast) {
    return buildPod(fast.spec, fast.metadata, {
      namespace: fast.metadata.namespace ?? 'default',
      name: fast.metadata.name,
      ownerKind: controllerKind(fast.metadata),
    });
  }
  const name = peekName(obj);
  const parsed = parseOrThrow(podManifest, obj, '', {
    object: `Pod/${name ?? '(unnamed)'}`,
    ...location,
  });
  specs?.remember(obj, parsed.spec);
  const meta = parsed.metadata;
  return buildPod(parsed.spec, meta, {
    namespace: meta.namespace ?? 'default',
    name: meta.name,
    ownerKind: controllerKind(meta),
  });
}

/** At most this many distinct specs are remembered; past it, pods are validated whole. */
const MAX_REMEMBERED_SPECS = 10_000;

/**
 * Validated pod specs by their exact content, for {@link podFromManifest}. The pods of one
 * Deployment share a template, so 20,000 pending pods carry a few dozen distinct specs: each is
 * checked by the schema once, and later pods with the same spec only have their metadata
 * checked. Nothing is weakened: a spec is reused only when it is structurally identical (same
 * keys, same types, same values) to one that passed; any failure re-validates the whole pod, so
 * error messages are those of a full check. The parsed spec is shared between those pods, as
 * replicas of a workload already share theirs; the core treats pods as read-only.
 */
export class PodSpecCache {
  private readonly specs = new Map<string, PodSpec>();

  /** The pod's metadata and remembered spec, or undefined when it needs a full check. */
  parse(obj: unknown): { spec: PodSpec; metadata: z.infer<typeof podMetadata> } | undefined {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
    const record = obj as { metadata?: unknown; spec?: unknown };
    const key = contentKey(record.spec);
    const spec = key === undefined ? undefined : this.specs.get(key);
    if (spec === undefined) return undefined;
    const metadata = podMetadata.safeParse(record.metadata);
    return metadata.success ? { spec, metadata: metadata.data } : undefined;
  }

  /** Remembers a spec that passed the full check of the pod `obj`. */
  remember(obj: unknown, spec: PodSpec): void {
    if (this.specs.size >= MAX_REMEMBERED_SPECS) return;
    const key = contentKey((obj as { spec?: unknown }).spec);
    if (key !== undefined) this.specs.set(key, spec);
  }
}

/** Where a pod template comes from, for {@link podTemplateToPod}. */
export interface PodTemplateOptions {
  /** Namespace of the workload; default `default`. */
  readonly namespace?: string;
  /** Name the resulting pod gets (the workload's name, or a replica's name). */
  readonly name: string;
  /** Kind of the workload (`DaemonSet`, `ReplicaSet`, `StatefulSet`, `Job`, ...). */
  readonly ownerKind?: string;
  /** Where the workload was read from; object defaults to `<ownerKind>/<name>`. */
  readonly location?: ValidationLocation;
  /** Dotted path of the template inside the workload, prefixed to error fields; default `spec.template`. */
  readonly fieldPrefix?: string;
}

/**
 * The pod a workload's template (`spec.template`: metadata + spec) would create, normalised
 * like {@link podFromManifest}. Used for DaemonSet overhead and for workloads whose pods do
 * not exist yet.
 * @throws ValidationError with fields under `spec.template.`.
 */
export function podTemplateToPod(template: unknown, options: PodTemplateOptions): Pod {
  const prefix = options.fieldPrefix ?? 'spec.template';
  const parsed = parseOrThrow(podTemplate, template, prefix, {
    object: `${options.ownerKind ?? 'PodTemplate'}/${options.name}`,
    ...options.location,
  });
  const meta: Metadata = parsed.metadata ?? {};
  return buildPod(parsed.spec, meta, {
    namespace: options.namespace ?? meta.namespace ?? 'default',
    name: options.name,
    ownerKind: options.ownerKind,
  });
}

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
    ...(meta.creationTimestamp ? { creationTimestamp: meta.creationTimestamp } : {}),
    ...(deleting ? { deleting } : {}),
    ...(meta.finalizers && meta.finalizers.length > 0 ? { finalizers: meta.finalizers } : {}),
  };
}

/** The container-level facts the effective request depends on. */
export interface ContainerRequests {
  /** Requests after defaulting from limits, in canonical units. */
  readonly requests: Resources;
  /** Init containers only: `restartPolicy: Always` makes it a sidecar. */
  readonly sidecar?: boolean;
}

/**
 * A pod's effective requests, as kube-scheduler computes them (k8s.io/component-helpers
 * resource.PodRequests): for each resource, the larger of
 *  - the sum over regular containers plus every sidecar (they run alongside for the pod's
 *    whole life), and
 *  - for each init container in order, its request plus the sidecars started before it (they
 *    are still running while it runs);
 * then the RuntimeClass overhead is added and `pods` is 1.
 */
export function effectivePodRequests(
  containers: readonly ContainerRequests[],
  initContainers: readonly ContainerRequests[],
  overhead: Resources = {},
): Resources {
  let total = sum({}, ...containers.map((c) => c.requests));
  let sidecars: Resources = {};
  let initPeak: Resources = {};
  for (const init of initContainers) {
    if (init.sidecar) {
      sidecars = sum(sidecars, init.requests);
      total = sum(total, init.requests);
      // While a sidecar starts, the sidecars before it and itself are running.
      initPeak = max(initPeak, sidecars);
    } else {
      initPeak = max(initPeak, sum(init.requests, sidecars));
    }
  }
  return { ...sum(max(total, initPeak), overhead), [PODS]: 1 };
}

function buildPod(
  spec: PodSpec,
  meta: Metadata,
  ids: { namespace: string; name: string; ownerKind: string | undefined },
): Pod {
  const requests = effectivePodRequests(
    spec.containers.map((c) => ({ requests: containerRequests(c) })),
    (spec.initContainers ?? []).map((c) => ({
      requests: containerRequests(c),
      sidecar: c.restartPolicy === 'Always',
    })),
    toResources(spec.overhead ?? {}),
  );
  const nodeAffinity = spec.affinity?.nodeAffinity;
  const required = nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const pa = spec.affinity?.podAffinity;
  const paa = spec.affinity?.podAntiAffinity;
  return {
    namespace: ids.namespace,
    name: ids.name,
    uid: meta.uid ?? `${ids.namespace}/${ids.name}`,
    labels: meta.labels ?? {},
    requests,
    nodeSelector: spec.nodeSelector ?? {},
    ...(required ? { requiredNodeAffinity: required.nodeSelectorTerms.map(toNodeSelectorTerm) } : {}),
    preferredNodeAffinity: (nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
      (p): PreferredSchedulingTerm => ({ weight: p.weight, preference: toNodeSelectorTerm(p.preference) }),
    ),
    tolerations: (spec.tolerations ?? []).map(toToleration),
    topologySpread: (spec.topologySpreadConstraints ?? []).map(toTopologySpread),
    podAffinity: (pa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map(toPodAffinityTerm),
    podAntiAffinity: (paa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map(toPodAffinityTerm),
    preferredPodAffinity: (pa?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(toWeighted),
    preferredPodAntiAffinity: (paa?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(toWeighted),
    ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    priority: spec.priority ?? 0,
    ...(ids.ownerKind !== undefined ? { ownerKind: ids.ownerKind } : {}),
    ...(meta.annotations && Object.keys(meta.annotations).length > 0
      ? { annotations: meta.annotations }
      : {}),
    ...(spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
    ...(meta.deletionTimestamp ? { deleting: true } : {}),
    ...(spec.terminationGracePeriodSeconds != null
      ? { terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds }
      : {}),
  };
}

/** Requests with Kubernetes' defaulting: a resource with a limit but no request requests its limit. */
function containerRequests(c: Container): Resources {
  const limits = toResources(c.resources?.limits ?? {});
  const requests = toResources(c.resources?.requests ?? {});
  return { ...limits, ...requests };
}

function controllerKind(meta: Metadata): string | undefined {
  return meta.ownerReferences?.find((o) => o.controller === true)?.kind ?? undefined;
}

function toNodeSelectorTerm(t: z.infer<typeof nodeSelectorTerm>): NodeSelectorTerm {
  return { matchExpressions: (t.matchExpressions ?? []).map(toNodeSelectorRequirement) };
}

function toNodeSelectorRequirement(r: z.infer<typeof nodeSelectorRequirement>): NodeSelectorRequirement {
  return { key: r.key, operator: r.operator, ...(r.values ? { values: r.values } : {}) };
}

function toLabelSelector(s: z.infer<typeof labelSelector>): LabelSelector {
  return {
    ...(s.matchLabels ? { matchLabels: s.matchLabels } : {}),
    ...(s.matchExpressions
      ? {
          matchExpressions: s.matchExpressions.map((e) => ({
            key: e.key,
            operator: e.operator,
            ...(e.values ? { values: e.values } : {}),
          })),
        }
      : {}),
  };
}

function toPodAffinityTerm(t: z.infer<typeof podAffinityTerm>): PodAffinityTerm {
  return {
    ...(t.labelSelector ? { labelSelector: toLabelSelector(t.labelSelector) } : {}),
    ...(t.namespaces ? { namespaces: t.namespaces } : {}),
    ...(t.namespaceSelector ? { namespaceSelector: toLabelSelector(t.namespaceSelector) } : {}),
    topologyKey: t.topologyKey,
  };
}

function toWeighted(t: {
  weight: number;
  podAffinityTerm: z.infer<typeof podAffinityTerm>;
}): WeightedPodAffinityTerm {
  return { weight: t.weight, podAffinityTerm: toPodAffinityTerm(t.podAffinityTerm) };
}

function toToleration(t: z.infer<typeof toleration>): Toleration {
  return {
    ...(t.key ? { key: t.key } : {}),
    ...(t.operator ? { operator: t.operator } : {}),
    ...(t.value ? { value: t.value } : {}),
    ...(t.effect ? { effect: t.effect } : {}),
    ...(t.tolerationSeconds != null ? { tolerationSeconds: t.tolerationSeconds } : {}),
  };
}

function toTopologySpread(t: z.infer<typeof topologySpreadConstraint>): TopologySpreadConstraint {
  return {
    maxSkew: t.maxSkew,
    topologyKey: t.topologyKey,
    whenUnsatisfiable: t.whenUnsatisfiable,
    ...(t.labelSelector ? { labelSelector: toLabelSelector(t.labelSelector) } : {}),
    ...(t.minDomains != null ? { minDomains: t.minDomains } : {}),
    ...(t.matchLabelKeys ? { matchLabelKeys: t.matchLabelKeys } : {}),
    ...(t.nodeAffinityPolicy ? { nodeAffinityPolicy: t.nodeAffinityPolicy } : {}),
    ...(t.nodeTaintsPolicy ? { nodeTaintsPolicy: t.nodeTaintsPolicy } : {}),
  };
}

/** Quantities already validated by `quantityMap`, in canonical units. */
function toResources(map: Readonly<Record<string, string | number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(map)) out[name] = resourceValue(name, quantity);
  return out;
}

function sum(...vectors: readonly Resources[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of vectors) for (const [k, n] of Object.entries(v)) out[k] = (out[k] ?? 0) + n;
  return out;
}

function max(a: Resources, b: Resources): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = Math.max(out[k] ?? 0, n);
  return out;
}

function peekName(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const name = (meta as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function parseOrThrow<T extends z.ZodType>(
  schema: T,
  obj: unknown,
  prefix: string,
  location: ValidationLocation,
): z.infer<T> {
  const result = schema.safeParse(obj);
  if (result.success) return result.data;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    field: formatPath(prefix, issue.path),
    value: valueAt(obj, issue.path),
    message: issue.message,
  }));
  throw new ValidationError(issues, location);
}

/** `spec.containers[0].resources.requests.cpu`; keys that are not identifiers are quoted: `labels["app.kubernetes.io/name"]`. */
function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(key))) out += out === '' ? String(key) : `.${String(key)}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function valueAt(obj: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
