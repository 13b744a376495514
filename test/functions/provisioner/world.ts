import { makeProvisionerHandler } from '../../../functions/provisioner/handler';
import { type LoopRuntime, runtimeOf } from '../../../functions/runtime';
import { PODS_PENDING_SCHEMA_VERSION } from '../../../shared/core/contracts/pods-pending';
import type { KubeObject } from '../../../sim/fakes/kube';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import {
  ec2NodeClassManifest,
  nodeManifest,
  nodePoolManifest,
  podManifest,
} from '../../../sim/world/builders';
import { type ClusterWorld, type ClusterWorldOptions, clusterWorld } from '../../../sim/world/cluster-world';

/** A cluster world with the default NodePool and EC2NodeClass, and the provisioner's handler over it. */
export interface ProvisionerWorld {
  readonly world: ClusterWorld;
  readonly seen: RecordingObservability;
  readonly runtime: LoopRuntime;
  readonly handler: ReturnType<typeof makeProvisionerHandler>;
}

export async function provisionerWorld(
  instanceTypes: readonly string[] = ['m5.large', 'm5.xlarge', 'c5.xlarge'],
  capacityType: 'on-demand' | 'spot' = 'on-demand',
  options: Pick<ClusterWorldOptions, 'policies'> = {},
) {
  const world = await clusterWorld({ instanceTypes, loop: 'provisioner', ...options });
  world.fakes.kube.store.seed('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest());
  world.fakes.kube.store.seed(
    'nodepools.karpenter.sh',
    nodePoolManifest({
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: [capacityType] }],
    }),
  );
  const seen = new RecordingObservability();
  const runtime = runtimeOf('provisioner', world.ports, world.time, seen.log, seen.metricsPort);
  return { world, seen, runtime, handler: makeProvisionerHandler(() => runtime) } satisfies ProvisionerWorld;
}

/** `count` pods kube-scheduler marked Unschedulable, owned by a ReplicaSet. */
export function seedPendingPods(
  world: ClusterWorld,
  count: number,
  cpu = '500m',
  prefix = 'web',
): KubeObject[] {
  return Array.from({ length: count }, (_, i) =>
    world.fakes.kube.store.seed(
      'pods',
      podManifest({
        name: `${prefix}-${i}`,
        uid: `uid-${prefix}-${i}`,
        requests: { cpu, memory: '512Mi' },
        unschedulable: true,
        ownerKind: 'ReplicaSet',
      }),
    ),
  );
}

/** The watcher's PodsPending event as EventBridge delivers it to a Lambda target. */
export function podsPendingEvent(pods: readonly KubeObject[], id = 'evt-1') {
  return {
    version: '0',
    id,
    'detail-type': 'PodsPending',
    source: 'podlift.watcher',
    account: '111122223333',
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: {
      schemaVersion: PODS_PENDING_SCHEMA_VERSION,
      cluster: 'demo',
      pods: pods.map((p) => ({
        namespace: p.metadata.namespace,
        name: p.metadata.name,
        uid: p.metadata.uid,
      })),
      total: pods.length,
      truncated: false,
    },
  };
}

/** The one-minute schedule's event. */
export function scheduledEvent(id = 'sched-1') {
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '111122223333',
    time: '2026-01-01T00:01:00Z',
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:111122223333:rule/podlift-demo-provisioner'],
    detail: {},
  };
}

export const lambdaContext = (id: string) => ({ awsRequestId: id, getRemainingTimeInMillis: () => 60_000 });

/**
 * Settles `run` while moving virtual time on for it: once the world's fakes have seen no request
 * for a few real milliseconds, the run waits on the world's clock (a retry's backoff, the cluster
 * Lease's renewal), and the clock moves towards the next timer, by at most half a second at a
 * time; while requests flow, real time passes and the clock stands still. So a Lease renewal in
 * flight is not overtaken by its own renew deadline.
 */
export async function settle<T>(world: ClusterWorld, run: Promise<T>): Promise<T> {
  const { time, fakes } = world;
  const progress = () => fakes.kube.requests.length + fakes.ec2.calls.length;
  let done = false;
  const tracked = run.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  let last = progress();
  let idle = 0;
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const now = progress();
    idle = now === last ? idle + 1 : 0;
    last = now;
    const [next] = time.delays();
    if (!done && idle >= 3 && next !== undefined) {
      await time.advanceAsync(Math.min(Math.max(next, 0), 500));
      idle = 0;
    }
  }
  return tracked;
}

/** The Node name {@link withOneNode} registers. */
export const NODE = 'ip-10-0-0-1.ec2.internal';

/**
 * A provisioner world with one launched NodeClaim (an m5.large) whose Node has joined and been
 * registered, running `pods` (manifests bound to {@link NODE}) and nothing pending; the NodePool
 * allows `capacityType` only.
 */
export async function withOneNode(
  pods: readonly object[],
  instanceTypes: readonly string[] = ['m5.large'],
  capacityType: 'on-demand' | 'spot' = 'on-demand',
  options: Pick<ClusterWorldOptions, 'policies'> = {},
) {
  const pw = await provisionerWorld(instanceTypes, capacityType, options);
  seedPendingPods(pw.world, 1, '250m', 'seed');
  await pw.handler(scheduledEvent('p1'), lambdaContext('p1'));
  const store = pw.world.fakes.kube.store;
  const claim = store.list('nodeclaims.karpenter.sh').items[0] as KubeObject & {
    status: { providerID: string };
  };
  const node = nodeManifest({
    name: NODE,
    ready: true,
    allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
  });
  store.seed('nodes', { ...node, spec: { ...node.spec, providerID: claim.status.providerID } });
  for (const p of store.list('pods').items)
    store.delete('pods', p.metadata.name ?? '', { namespace: p.metadata.namespace });
  for (const p of pods) store.seed('pods', p);
  await pw.handler(scheduledEvent('p2'), lambdaContext('p2'));
  const instanceId = claim.status.providerID.split('/').pop() ?? '';
  return { pw, claimName: claim.metadata.name ?? '', instanceId };
}

/**
 * The zonal-spread setup of the provisioner's replanning tests: the default NodePool allowed
 * us-east-1a, b and c, no capacity for any offering in us-east-1c, and six pending 1-cpu `web`
 * pods of a ReplicaSet spread over the zones with `maxSkew` (DoNotSchedule).
 */
export function seedZonalSpread(pw: ProvisionerWorld, maxSkew: number): void {
  const { store } = pw.world.fakes.kube;
  const pool = store.get('nodepools.karpenter.sh', 'default') as KubeObject & {
    spec: { template: { spec: { requirements: object[] } } };
  };
  const spec = structuredClone(pool.spec);
  spec.template.spec.requirements.push({
    key: 'topology.kubernetes.io/zone',
    operator: 'In',
    values: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
  });
  store.update('nodepools.karpenter.sh', { ...pool, spec });
  pw.world.fakes.ec2.capacity.setCapacity({ availabilityZone: 'us-east-1c' }, 0);
  for (let i = 0; i < 6; i++)
    store.seed(
      'pods',
      podManifest({
        name: `web-${i}`,
        labels: { app: 'web' },
        requests: { cpu: '1' },
        topologySpreadConstraints: [
          {
            maxSkew,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: 'web' } },
          },
        ],
        unschedulable: true,
        ownerKind: 'ReplicaSet',
      }),
    );
}

/** Every NodeClaim the API server stores. */
export const claims = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items;

/** The EC2 instances not terminated. */
export const running = (pw: ProvisionerWorld) =>
  pw.world.fakes.ec2.listInstances().filter((i) => i.State?.Name !== 'terminated');
