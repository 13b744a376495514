import type { KubeObject } from '../../sim/fakes/kube';
import { applyManifest } from '../../sim/scenario/run';
import { ROLE } from '../../sim/world/aws/node-class-world';
import { ec2NodeClassManifest } from '../../sim/world/builders/karpenter-manifests';
import type { KubeletTimings } from '../../sim/world/kubelet';
import { Simulation } from '../../sim/world/simulation';
import type { PodTemplate } from '../../sim/world/workloads';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
export type Json = Record<string, any>;

/** Options of {@link e2eWorld}. */
export interface E2eOptions {
  /** Merged into the default NodePool's spec. */
  readonly pool?: Json;
  readonly instanceTypes?: readonly string[];
  /** How long the world's nodes take to come up (e.g. startup taints nobody lifts). */
  readonly kubelet?: KubeletTimings;
}

/** The EC2NodeClass every e2e world starts with: the world's node role, AL2023, discovery by tag. */
export const NODE_CLASS = ec2NodeClassManifest({ role: ROLE });

/** A NodePool `default` (amd64, spot and on-demand, c/m/r) with `spec` merged over it. */
export function nodePool(spec: Json = {}): Json {
  const base: Json = {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
        ],
      },
    },
    limits: { cpu: '100' },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '30s' },
  };
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: { ...base, ...spec, disruption: { ...base.disruption, ...(spec.disruption ?? {}) } },
  };
}

/** The NodeClaims in the API server. */
export const claims = (sim: Simulation) =>
  sim.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[];

/** The `spec` of a NodePool (for {@link nodePool}) that launches on-demand amd64 capacity of any category. */
export const ON_DEMAND_POOL: Json = {
  template: {
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      ],
    },
  },
};

/** A simulation with the default EC2NodeClass and NodePool and no workloads, the real watcher running. */
export async function e2eWorld(options: E2eOptions = {}): Promise<Simulation> {
  const sim = await Simulation.start({
    ...(options.instanceTypes ? { instanceTypes: options.instanceTypes } : {}),
    ...(options.kubelet ? { kubelet: options.kubelet } : {}),
  });
  applyManifest(sim, NODE_CLASS);
  applyManifest(sim, nodePool(options.pool) as unknown as KubeObject);
  return sim;
}

/** Adds a Deployment `name` with `replicas` pods of `template` (1 cpu each by default). */
export function deploy(sim: Simulation, name: string, replicas: number, template: PodTemplate = {}): void {
  sim.workloads.apply({
    kind: 'Deployment',
    name,
    namespace: 'default',
    replicas,
    template: { labels: { app: name }, requests: { cpu: '1' }, ...template },
  });
}

/** Pods not Succeeded or Failed. */
export function livePods(sim: Simulation): Json[] {
  return (sim.world.fakes.kube.store.list('pods').items as Json[]).filter(
    (p) => !['Succeeded', 'Failed'].includes(p.status?.phase),
  );
}

/** Whether every live pod runs. */
export function allRunning(sim: Simulation): boolean {
  const pods = livePods(sim);
  return pods.length > 0 && pods.every((p) => p.status?.phase === 'Running');
}

/** Instances pending or running. */
export function liveInstances(sim: Simulation) {
  return sim.world.fakes.ec2
    .listInstances()
    .filter((i) => ['pending', 'running'].includes(i.State?.Name ?? ''));
}
