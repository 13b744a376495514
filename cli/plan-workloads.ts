import type { PodTemplateManifest } from '../shared/core/manifests/kube-objects';
import { podTemplateToPod } from '../shared/core/manifests/pod-manifest';
import { ValidationError, type ValidationLocation } from '../shared/core/model/errors';
import type { Pod } from '../shared/core/model/pod';
import { isObject, type Obj } from '../shared/yaml/kubernetes-yaml';

/**
 * The pods `podlift plan` expects the workloads of its input to run: Deployments,
 * ReplicaSets, StatefulSets and Jobs expand into their pending replicas, a DaemonSet into the
 * pod it runs on every node. Each replica is the workload's pod template, validated once.
 */

/** Kinds that stamp pods from spec.template, with the kind of their pods' controlling owner. */
const WORKLOADS: Readonly<Record<string, string>> = {
  Deployment: 'ReplicaSet',
  ReplicaSet: 'ReplicaSet',
  StatefulSet: 'StatefulSet',
  Job: 'Job',
};

/** Whether `kind` is a workload whose replicas {@link workloadPods} expands (DaemonSets are not). */
export function isWorkloadKind(kind: string): boolean {
  return kind in WORKLOADS;
}

/**
 * A named workload's pod template (spec.template).
 * @throws ValidationError when metadata.name is empty or spec.template is not a mapping
 */
export function workloadTemplate(name: string, obj: Obj, location: ValidationLocation): Obj {
  if (name === '') {
    throw new ValidationError([{ field: 'metadata.name', value: name, message: 'is required' }], location);
  }
  const spec = isObject(obj.spec) ? obj.spec : {};
  const template = spec.template;
  if (!isObject(template)) {
    throw new ValidationError(
      [{ field: 'spec.template', value: template, message: 'is required: a pod template' }],
      location,
    );
  }
  return template;
}

/**
 * The pods a workload of kind `kind` (see {@link isWorkloadKind}) runs now, named
 * `<name>-<i>` from 0: spec.replicas (default 1), or for a Job spec.parallelism (default 1, at
 * most spec.completions; none when suspended). StatefulSet pods carry the pod-name and
 * pod-index labels the StatefulSet controller sets.
 * @throws ValidationError naming the bad field (metadata.name, spec.template, a count, the template's fields)
 */
export function workloadPods(kind: string, name: string, obj: Obj, location: ValidationLocation): Pod[] {
  const template = workloadTemplate(name, obj, location);
  const spec = isObject(obj.spec) ? obj.spec : {};
  const replicas = workloadReplicas(kind, spec);
  if (replicas === 0) return [];
  const namespace = namespaceOf(obj);
  const first = templatePod(template, namespace, `${name}-0`, WORKLOADS[kind], location);
  const pods: Pod[] = [];
  for (let i = 0; i < replicas; i++) {
    const podName = `${name}-${i}`;
    const labels =
      kind === 'StatefulSet'
        ? {
            ...first.labels,
            'statefulset.kubernetes.io/pod-name': podName,
            'apps.kubernetes.io/pod-index': String(i),
          }
        : first.labels;
    // Replicas differ only in name: copy the validated first pod rather than re-parse.
    pods.push({ ...first, name: podName, uid: `${namespace}/${podName}`, labels });
  }
  return pods;
}

/** How many pods a workload runs now. */
function workloadReplicas(kind: string, spec: Obj): number {
  if (kind !== 'Job') return count(spec, 'replicas', 1);
  if (spec.suspend === true) return 0;
  const parallelism = count(spec, 'parallelism', 1);
  const completions =
    spec.completions === undefined || spec.completions === null ? undefined : count(spec, 'completions', 1);
  return completions === undefined ? parallelism : Math.min(parallelism, completions);
}

function count(spec: Obj, field: string, fallback: number): number {
  const v = spec[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new ValidationError([
      { field: `spec.${field}`, value: v, message: 'must be a non-negative integer' },
    ]);
  }
  return v;
}

/** metadata.namespace of a workload, `default` when unset. */
export function namespaceOf(obj: Obj): string {
  const ns = isObject(obj.metadata) ? obj.metadata.namespace : undefined;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

/** The pod `template` would create, named `name`, owned by a `ownerKind`. */
export function templatePod(
  template: Obj,
  namespace: string,
  name: string,
  ownerKind: string,
  location: ValidationLocation,
): Pod {
  return podTemplateToPod(template as PodTemplateManifest, { namespace, name, ownerKind, location });
}
