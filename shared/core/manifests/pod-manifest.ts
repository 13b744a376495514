import type * as z from 'zod';
import type { ValidationLocation } from '../model/errors';
import type { LabelSelector } from '../model/label-selector';
import type {
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../model/pod';
import type { NodeSelectorRequirement } from '../model/requirements';
import type { Resources } from '../model/resources';
import type { Toleration } from '../model/taints';
import { contentKey } from './content-key';
import { type Metadata, namedMetadata, parseOrThrow, peekName, toResources } from './kube-manifest-schema';
import { effectivePodRequests } from './pod-requests';
import {
  type Container,
  type labelSelector,
  type nodeSelectorRequirement,
  type nodeSelectorTerm,
  type PodSpec,
  type podAffinityTerm,
  podManifest,
  podTemplate,
  type toleration,
  type topologySpreadConstraint,
} from './pod-schema';

/**
 * Validation and normalisation of Pod manifests and pod templates (YAML or API JSON, see
 * kube-objects.ts) into the core `Pod`, against the schema in pod-schema.ts; a bad field
 * becomes a ValidationError naming its dotted path and value.
 */

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
  parse(obj: unknown): { spec: PodSpec; metadata: z.infer<typeof namedMetadata> } | undefined {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
    const record = obj as { metadata?: unknown; spec?: unknown };
    const key = contentKey(record.spec);
    const spec = key === undefined ? undefined : this.specs.get(key);
    if (spec === undefined) return undefined;
    const metadata = namedMetadata.safeParse(record.metadata);
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
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
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
    ...(meta.deletionTimestamp ? { deleting: true, deletionTimestamp: meta.deletionTimestamp } : {}),
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
