import type { Clock } from '../../shared/core/ports/time';
import type { KubeObject } from '../fakes/kube';
import { budgetSelects, expectedPodsAnnotation } from '../fakes/kube/disruption';
import type { KubeStore } from '../fakes/kube/store';
import { BURST_REPLICAS, isPodActive, podsToDelete } from './replicaset-ranking';

/** The pod template of a workload, in Kubernetes' own field names. */
export interface PodTemplate {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly requests?: Readonly<Record<string, string>>;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Readonly<Record<string, unknown>>[];
  readonly affinity?: Readonly<Record<string, unknown>>;
  readonly topologySpreadConstraints?: readonly Readonly<Record<string, unknown>>[];
  readonly terminationGracePeriodSeconds?: number;
}

/** A Deployment (its one ReplicaSet) or a Job the controller keeps pods for. */
export interface Workload {
  readonly kind: 'Deployment' | 'Job';
  readonly name: string;
  readonly namespace: string;
  /** Deployment: pods to keep. Job: pods to run to completion (parallelism = completions). */
  readonly replicas: number;
  readonly template: PodTemplate;
  /** Job only: how long each pod runs before it succeeds, virtual ms. */
  readonly runForMs?: number;
  /** The ReplicaSet's name when it is not the template's hash (set by {@link WorkloadController.annotatePods}). */
  readonly owner?: string;
}

/** What the controller did in one step. */
export interface WorkloadChange {
  readonly workload: string;
  readonly created: number;
  readonly deleted: number;
}

/**
 * A stand-in for the Deployment, ReplicaSet and Job controllers (kube-controller-manager): keeps
 * each Deployment's ReplicaSet at its replica count — creating pods when some are missing,
 * evicted or deleted, and deleting surplus ones when scaled down in the order the real
 * controller picks them (see {@link podsToDelete}: spread over the nodes, not the newest) — and runs
 * a Job's pods until each has run `runForMs`, then marks it Succeeded and does not replace it.
 * The apps/v1 objects themselves live here, not in the fake API server, which podlift never
 * asks for them.
 */
export class WorkloadController {
  private readonly workloads = new Map<string, Workload>();
  private readonly succeeded = new Map<string, number>();
  private serial = 0;

  constructor(
    private readonly store: KubeStore,
    private readonly clock: Clock,
  ) {}

  /** Creates or replaces a workload. */
  apply(workload: Workload): void {
    this.workloads.set(keyOf(workload.namespace, workload.name), workload);
  }

  /** Sets a Deployment's replicas; throws naming the Deployment when it does not exist. */
  scale(namespace: string, name: string, replicas: number): void {
    const current = this.workloads.get(keyOf(namespace, name));
    if (!current) throw new Error(`scaling Deployment ${namespace}/${name}: no such Deployment`);
    this.workloads.set(keyOf(namespace, name), { ...current, replicas });
  }

  /**
   * Annotates a Deployment's pods in place and its template (`kubectl annotate pods` plus an edit
   * that leaves the ReplicaSet as it is): pods it creates from now on carry the annotations too.
   * Returns how many live pods were annotated; throws naming the Deployment when there is none.
   */
  annotatePods(namespace: string, name: string, annotations: Readonly<Record<string, string>>): number {
    const current = this.workloads.get(keyOf(namespace, name));
    if (!current) throw new Error(`annotating Deployment ${namespace}/${name}: no such Deployment`);
    const owner = ownerFor(current);
    this.workloads.set(keyOf(namespace, name), {
      ...current,
      owner,
      template: {
        ...current.template,
        annotations: { ...(current.template.annotations ?? {}), ...annotations },
      },
    });
    let annotated = 0;
    for (const pod of this.store.list('pods', { namespace }).items) {
      if (ownerName(pod) !== owner || pod.metadata.deletionTimestamp) continue;
      this.store.update('pods', {
        ...pod,
        metadata: { ...pod.metadata, annotations: { ...(pod.metadata.annotations ?? {}), ...annotations } },
      });
      annotated++;
    }
    return annotated;
  }

  /** The live pods of a Deployment (or Job), oldest name first. */
  podsOf(namespace: string, name: string): KubeObject[] {
    const workload = this.workloads.get(keyOf(namespace, name));
    if (!workload) return [];
    const owner = ownerFor(workload);
    return this.store
      .list('pods', { namespace })
      .items.filter((p) => ownerName(p) === owner && !p.metadata.deletionTimestamp);
  }

  /**
   * The scale the disruption controller's finders read for a pod's controller: a ReplicaSet of
   * one of these Deployments has the Deployment's replicas (kubernetes pkg/controller/disruption
   * `getPodReplicaSet` → `getPodDeployment`); undefined for anything else (no finder knows a Job).
   */
  scaleOf(namespace: string, kind: string, name: string): number | undefined {
    if (kind !== 'ReplicaSet') return undefined;
    for (const w of this.workloads.values())
      if (w.kind === 'Deployment' && w.namespace === namespace && ownerFor(w) === name) return w.replicas;
    return undefined;
  }

  /** The workloads, for expectations and the summary. */
  list(): Workload[] {
    return [...this.workloads.values()];
  }

  /** Brings every workload's pods to its spec. */
  step(): WorkloadChange[] {
    const changes: WorkloadChange[] = [];
    const pods = this.store.list('pods').items;
    for (const workload of this.workloads.values()) {
      const owned = pods.filter((p) => ownerName(p) === ownerFor(workload));
      const change =
        workload.kind === 'Job' ? this.stepJob(workload, owned) : this.stepDeployment(workload, owned);
      if (change.created + change.deleted > 0) changes.push(change);
    }
    this.syncDisruptionBudgets();
    return changes;
  }

  /**
   * Tells the fake API server the scale the disruption controller would find for each
   * PodDisruptionBudget (kubernetes pkg/controller/disruption `getExpectedScale`: the summed
   * replicas of the selected pods' controllers) through its expected-pods annotation. Without it
   * the fake counts the pods that exist, so an eviction's deleted pod lowers expectedPods and lets
   * a second eviction through that Kubernetes refuses. Budgets over pods of other controllers
   * (or none) are left alone.
   */
  private syncDisruptionBudgets(): void {
    const budgets = this.store.list('poddisruptionbudgets.policy').items;
    if (budgets.length === 0) return;
    const pods = this.store.list('pods').items;
    for (const budget of budgets) {
      const scales = new Map<string, number>();
      let known = true;
      for (const pod of pods) {
        const owner = ownerName(pod);
        if (owner === undefined || scales.has(owner) || !budgetSelects(budget, pod)) continue;
        const kind = ((pod.metadata.ownerReferences ?? []) as { kind?: string; controller?: boolean }[]).find(
          (o) => o.controller,
        )?.kind;
        const scale = this.scaleOf(pod.metadata.namespace ?? 'default', kind ?? '', owner);
        if (scale === undefined) known = false;
        else scales.set(owner, scale);
      }
      if (!known || scales.size === 0) continue;
      const expected = String([...scales.values()].reduce((a, b) => a + b, 0));
      if (budget.metadata.annotations?.[expectedPodsAnnotation] === expected) continue;
      this.store.update('poddisruptionbudgets.policy', {
        ...budget,
        metadata: {
          ...budget.metadata,
          annotations: { ...(budget.metadata.annotations ?? {}), [expectedPodsAnnotation]: expected },
        },
      });
    }
  }

  private stepDeployment(workload: Workload, owned: KubeObject[]): WorkloadChange {
    // replica_set.go `syncReplicaSet` counts only active pods (`FilterActivePods`).
    const active = owned.filter(isPodActive);
    let created = 0;
    let deleted = 0;
    for (let i = active.length; i < workload.replicas; i++) {
      this.createPod(workload);
      created++;
    }
    const surplus = Math.min(active.length - workload.replicas, BURST_REPLICAS);
    if (surplus > 0) {
      // The Deployment has one ReplicaSet here, so its related pods are its own.
      for (const pod of podsToDelete(active, owned, surplus, this.clock.now())) {
        this.store.delete('pods', pod.metadata.name ?? '', { namespace: pod.metadata.namespace });
        deleted++;
      }
    }
    return { workload: `${workload.kind}/${workload.name}`, created, deleted };
  }

  private stepJob(workload: Workload, owned: KubeObject[]): WorkloadChange {
    const key = keyOf(workload.namespace, workload.name);
    const now = this.clock.now();
    for (const pod of owned) {
      const status = (pod.status ?? {}) as { phase?: string; startTime?: string };
      if (status.phase !== 'Running') continue;
      const started = Date.parse(status.startTime ?? '') || now;
      if (!status.startTime)
        this.store.updateStatus('pods', {
          ...pod,
          status: { ...status, startTime: new Date(now).toISOString() },
        });
      else if (now - started >= (workload.runForMs ?? 60_000)) {
        this.store.updateStatus('pods', { ...pod, status: { ...status, phase: 'Succeeded' } });
        this.succeeded.set(key, (this.succeeded.get(key) ?? 0) + 1);
      }
    }
    const done = this.succeeded.get(key) ?? 0;
    const active = owned.filter((p) => {
      const phase = (p.status as { phase?: string } | undefined)?.phase;
      return phase !== 'Succeeded' && phase !== 'Failed';
    }).length;
    let created = 0;
    for (let i = done + active; i < workload.replicas; i++) {
      this.createPod(workload);
      created++;
    }
    return { workload: `${workload.kind}/${workload.name}`, created, deleted: 0 };
  }

  private createPod(workload: Workload): void {
    const t = workload.template;
    const suffix = (this.serial++).toString(36).padStart(5, '0');
    this.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${ownerFor(workload)}-${suffix}`,
        namespace: workload.namespace,
        labels: { ...(t.labels ?? { app: workload.name }) },
        ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
        ownerReferences: [
          {
            apiVersion: workload.kind === 'Job' ? 'batch/v1' : 'apps/v1',
            kind: workload.kind === 'Job' ? 'Job' : 'ReplicaSet',
            name: ownerFor(workload),
            uid: `uid-${ownerFor(workload)}`,
            controller: true,
          },
        ],
      },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7',
            resources: { requests: { ...(t.requests ?? {}) } },
          },
        ],
        ...(t.nodeSelector ? { nodeSelector: { ...t.nodeSelector } } : {}),
        ...(t.tolerations ? { tolerations: structuredClone(t.tolerations) } : {}),
        ...(t.affinity ? { affinity: structuredClone(t.affinity) } : {}),
        ...(t.topologySpreadConstraints
          ? { topologySpreadConstraints: structuredClone(t.topologySpreadConstraints) }
          : {}),
        ...(t.terminationGracePeriodSeconds !== undefined
          ? { terminationGracePeriodSeconds: t.terminationGracePeriodSeconds }
          : {}),
        restartPolicy: workload.kind === 'Job' ? 'Never' : 'Always',
        schedulerName: 'default-scheduler',
      },
    });
  }
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/** The owning ReplicaSet's (or Job's) name: `<deployment>-<template hash>` as the Deployment controller names it. */
function ownerFor(workload: Workload): string {
  if (workload.owner !== undefined) return workload.owner;
  return workload.kind === 'Job' ? workload.name : `${workload.name}-${templateHash(workload.template)}`;
}

function ownerName(pod: KubeObject): string | undefined {
  return ((pod.metadata.ownerReferences ?? []) as { controller?: boolean; name?: string }[]).find(
    (o) => o.controller,
  )?.name;
}

/** A short stable hash of the template, like pod-template-hash. */
function templateHash(template: PodTemplate): string {
  let h = 2166136261;
  for (const ch of JSON.stringify(template)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h.toString(36).slice(0, 8);
}
