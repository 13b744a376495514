import type { RolloutInput, RolloutNode, RolloutPod } from '../../cli/diff-rollout';
import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../../shared/core/model/drift-hash';
import {
  ANNOTATIONS,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODECLASS,
  LABEL_ZONE,
} from '../../shared/core/model/labels';
import { newNodeClaimObject } from '../../shared/kube/nodeclaim-manifest';
import type { KubeObject } from '../fakes/kube';
import { ROLE } from '../world/aws/node-class-world';
import { DISCOVERY, ZONES } from '../world/aws/region';
import type { Simulation } from '../world/simulation';

/**
 * Brings a cluster's state into a simulated world, so the rollout starts where the cluster is:
 * its EC2NodeClasses and NodePools as they are today; each launched NodeClaim recreated under its
 * own name, pinned to its instance type, zone and capacity type and stamped with today's drift
 * hashes, and launched by the provisioner's own path for recorded claims (an instance, a Node
 * that registers and initializes) — under disruption budgets of zero, which the caller lifts
 * with {@link restoreNodePools} when it applies the change; then its pods bound to that Node, each controller's pods kept
 * at their count by the workload controller stand-in, and the PodDisruptionBudgets.
 *
 * The world is its own region: EC2NodeClass selector terms are pointed at the world's subnets,
 * security groups and AMIs (their hashes ignore them), the node role is the world's, and zones
 * are mapped onto the world's three in order.
 */
// biome-ignore lint/suspicious/noExplicitAny: Kubernetes JSON as the user wrote it
type Json = Record<string, any>;

/** How the cluster's names map onto the world's. */
export interface SeededWorld {
  readonly zoneOf: (zone: string) => string;
  /** The simulator's Node name of each NodeClaim, once registered. */
  readonly nodeOfClaim: (claim: string) => string | undefined;
  readonly notes: string[];
}

/** The world's version of an EC2NodeClass: same spec, the world's selectors and role. */
export function worldNodeClass(obj: Readonly<Record<string, unknown>>): Json {
  const o = structuredClone(obj) as Json;
  const { status: _status, ...rest } = o;
  const spec = { ...(rest.spec ?? {}) };
  spec.amiSelectorTerms = [{ alias: 'al2023@latest' }];
  spec.subnetSelectorTerms = [{ tags: DISCOVERY }];
  spec.securityGroupSelectorTerms = [{ tags: DISCOVERY }];
  delete spec.instanceProfile;
  delete spec.capacityReservationSelectorTerms;
  delete spec.placementGroupSelector;
  spec.role = ROLE;
  return { ...rest, metadata: bare(rest.metadata), spec };
}

/** The world's version of a NodePool: zones mapped, no status or server fields. */
export function worldNodePool(obj: Readonly<Record<string, unknown>>, zoneOf: (z: string) => string): Json {
  const o = structuredClone(obj) as Json;
  const { status: _status, ...rest } = o;
  const requirements = (rest.spec?.template?.spec?.requirements ?? []) as Json[];
  for (const r of requirements)
    if (r.key === LABEL_ZONE && Array.isArray(r.values)) r.values = r.values.map((v: string) => zoneOf(v));
  return { ...rest, metadata: bare(rest.metadata) };
}

function bare(metadata: Json | undefined): Json {
  const {
    resourceVersion: _rv,
    uid: _uid,
    generation: _g,
    creationTimestamp: _c,
    managedFields: _m,
    ...rest
  } = metadata ?? {};
  return rest;
}

/** Maps the cluster's zones onto the world's, in sorted order. */
export function zoneMapping(input: RolloutInput): (zone: string) => string {
  const zones = [...new Set(input.nodes.map((n) => n.zone))].sort();
  return (zone) => {
    if ((ZONES as readonly string[]).includes(zone)) return zone;
    const i = zones.indexOf(zone);
    return ZONES[(i < 0 ? 0 : i) % ZONES.length];
  };
}

/**
 * Seeds the cluster's objects and launches its NodeClaims; returns once their Nodes registered
 * (pods bound), or throws naming the NodeClaims that did not come up within `maxMs`.
 */
export async function seedWorld(sim: Simulation, input: RolloutInput, maxMs = 300_000): Promise<SeededWorld> {
  const store = sim.world.fakes.kube.store;
  const zoneOf = zoneMapping(input);
  const notes: string[] = [];
  const classes = input.nodeClasses.map(worldNodeClass);
  const pools = input.nodePools.map((p) => worldNodePool(p, zoneOf));
  for (const c of classes) store.create('ec2nodeclasses.karpenter.k8s.aws', c);
  // While the world comes up nothing may be disrupted (an empty node would be consolidated
  // before its pods are bound): budgets of zero until the change brings back the real ones.
  for (const p of pools)
    store.create('nodepools.karpenter.sh', {
      ...p,
      spec: { ...p.spec, disruption: { ...(p.spec?.disruption ?? {}), budgets: [{ nodes: '0' }] } },
    });
  const poolByName = new Map(pools.map((p) => [String(p.metadata.name), parseNodePool(p)]));
  const classByName = new Map(classes.map((c) => [String(c.metadata.name), parseEC2NodeClass(c)]));
  const launched: RolloutNode[] = [];
  for (const node of input.nodes) {
    const pool = poolByName.get(node.nodePool);
    const nodeClass = pool && classByName.get(pool.template.nodeClassRef.name);
    if (!pool || !nodeClass) {
      notes.push(`NodeClaim ${node.nodeClaim}: its NodePool or EC2NodeClass is not in the cluster; left out`);
      continue;
    }
    const pins = [
      { key: LABEL_INSTANCE_TYPE, operator: 'In' as const, values: [node.instanceType] },
      { key: LABEL_ZONE, operator: 'In' as const, values: [zoneOf(node.zone)] },
      { key: LABEL_CAPACITY_TYPE, operator: 'In' as const, values: [node.capacityType] },
    ];
    const object = newNodeClaimObject({
      nodePool: pool.name,
      labels: {
        ...pool.template.labels,
        [LABEL_NODECLASS]: nodeClass.name,
        [LABEL_INSTANCE_TYPE]: node.instanceType,
        [LABEL_ZONE]: zoneOf(node.zone),
        [LABEL_CAPACITY_TYPE]: node.capacityType,
      },
      annotations: {
        ...pool.template.annotations,
        [ANNOTATIONS.nodePoolHash]: nodePoolHash(pool),
        [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
        [ANNOTATIONS.nodeClassHash]: nodeClassHash(nodeClass),
        [ANNOTATIONS.nodeClassHashVersion]: DRIFT_HASH_VERSION,
      },
      spec: {
        nodeClassRef: pool.template.nodeClassRef,
        requirements: pins,
        resources: { requests: {} },
        taints: pool.template.taints,
        startupTaints: pool.template.startupTaints,
        expireAfter: pool.template.expireAfter,
        ...(pool.template.terminationGracePeriod
          ? { terminationGracePeriod: pool.template.terminationGracePeriod }
          : {}),
      },
    }) as Json;
    object.metadata = { ...object.metadata, name: node.nodeClaim };
    delete object.metadata.generateName;
    store.create('nodeclaims.karpenter.sh', object);
    launched.push(node);
  }
  const nodeOfClaim = (claim: string) =>
    (store.find('nodeclaims.karpenter.sh', claim)?.status as { nodeName?: string } | undefined)?.nodeName;
  const registered = await sim.until(() => launched.every((n) => nodeOfClaim(n.nodeClaim)), maxMs);
  if (!registered) {
    const missing = launched.filter((n) => !nodeOfClaim(n.nodeClaim)).map((n) => n.nodeClaim);
    throw new Error(`the simulator could not bring up NodeClaims ${missing.join(', ')}`);
  }
  seedPods(sim, launched, nodeOfClaim);
  for (const b of input.budgets)
    store.create('poddisruptionbudgets.policy', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: b.name, namespace: b.namespace },
      spec: {
        selector: { matchLabels: { ...b.matchLabels } },
        ...(b.minAvailable !== undefined ? { minAvailable: b.minAvailable } : {}),
        ...(b.maxUnavailable !== undefined ? { maxUnavailable: b.maxUnavailable } : {}),
      },
    });
  return { zoneOf, nodeOfClaim, notes };
}

/** Binds each node's pods to its simulated Node and hands their controllers to the workload stand-in. */
function seedPods(
  sim: Simulation,
  nodes: readonly RolloutNode[],
  nodeOfClaim: (claim: string) => string | undefined,
): void {
  const store = sim.world.fakes.kube.store;
  const owners = new Map<string, { pods: RolloutPod[] }>();
  for (const namespace of new Set(nodes.flatMap((n) => n.pods.map((p) => p.namespace))))
    if (!store.find('namespaces', namespace))
      store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const node of nodes) {
    for (const pod of node.pods) {
      store.create('pods', podObject(pod, nodeOfClaim(node.nodeClaim) ?? ''));
      if (!pod.owner) continue;
      const key = `${pod.namespace}/${pod.owner.name}`;
      owners.set(key, { pods: [...(owners.get(key)?.pods ?? []), pod] });
    }
  }
  for (const { pods } of owners.values()) {
    const first = pods[0];
    sim.workloads.apply({
      kind: 'Deployment',
      name: first.owner?.name ?? '',
      namespace: first.namespace,
      replicas: pods.length,
      owner: first.owner?.name ?? '',
      template: {
        labels: first.labels,
        annotations: first.annotations,
        requests: first.requests,
        nodeSelector: first.nodeSelector,
        tolerations: first.tolerations,
      },
    });
  }
}

function podObject(pod: RolloutPod, nodeName: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.name,
      namespace: pod.namespace,
      labels: { ...pod.labels },
      annotations: { ...pod.annotations },
      ...(pod.owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                // The workload stand-in recreates what a ReplicaSet owns.
                kind: 'ReplicaSet',
                name: pod.owner.name,
                uid: `uid-${pod.owner.name}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      nodeName,
      containers: [
        {
          name: 'app',
          image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7',
          resources: { requests: { ...pod.requests } },
        },
      ],
      nodeSelector: { ...pod.nodeSelector },
      tolerations: structuredClone(pod.tolerations),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
    },
  } as KubeObject;
}

/** Puts the cluster's NodePools back as they are (their own disruption budgets), the world's version. */
export function restoreNodePools(
  sim: Simulation,
  input: RolloutInput,
  zoneOf: (zone: string) => string,
): void {
  const store = sim.world.fakes.kube.store;
  for (const obj of input.nodePools) {
    const pool = worldNodePool(obj, zoneOf);
    const current = store.find('nodepools.karpenter.sh', String(pool.metadata.name));
    if (current)
      store.update('nodepools.karpenter.sh', {
        ...pool,
        metadata: {
          ...current.metadata,
          ...pool.metadata,
          resourceVersion: current.metadata.resourceVersion,
        },
      });
  }
}
