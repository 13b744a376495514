import { afterEach, describe, expect, it } from 'vitest';
import { loadClusterSnapshot } from '../../functions/cluster-snapshot';
import type { Invocation } from '../../functions/invocation';
import { UnavailableOfferings } from '../../shared/core/catalog/unavailable-offerings';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { ec2NodeClassManifest, nodeManifest, nodePoolManifest, podManifest } from '../../sim/world/builders';
import { type ClusterWorld, clusterWorld } from '../../sim/world/cluster-world';

let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function invocation(w: ClusterWorld): Invocation {
  const observed = new RecordingObservability();
  return {
    time: w.time,
    holder: 'test/1',
    correlationId: 'c-1',
    deadline: w.time.now() + 60_000,
    log: observed.log,
    metrics: observed.metricsPort,
  };
}

const ssmNodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: from-ssm
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements: [{ key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }]
`;

describe('loadClusterSnapshot', () => {
  it('reads the cluster, SSM NodePools, the catalog and the stored unavailable offerings at once', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    const { store } = world.fakes.kube;
    store.seed('nodepools.karpenter.sh', nodePoolManifest({ name: 'default' }));
    store.seed('nodepools.karpenter.sh', { ...nodePoolManifest({ name: 'broken' }), spec: { template: {} } });
    store.seed('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest());
    store.seed('nodes', nodeManifest({ name: 'ip-1', ready: true }));
    store.seed('pods', podManifest({ name: 'waiting', unschedulable: true }));
    world.fakes.ssm.seed({ name: '/podlift/demo/nodepools/from-ssm', value: ssmNodePool });
    await world.ports.lease.saveUnavailableOfferings([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        until: world.time.now() + 60_000,
        reason: 'ICE',
      },
    ]);
    const unavailable = new UnavailableOfferings(world.time);

    const { snapshot, nodeClassFailures } = await loadClusterSnapshot(
      world.ports,
      invocation(world),
      unavailable,
      {
        resolveNodeClasses: true,
      },
    );

    expect(snapshot.nodePools.map((p) => p.name).sort()).toEqual(['default', 'from-ssm']);
    expect(snapshot.invalid.map((e) => e.message).join('\n')).toContain('NodePool/broken');
    expect(snapshot.nodes.map((n) => [n.name, n.ready])).toEqual([['ip-1', true]]);
    expect(snapshot.pendingPods.map((p) => p.name)).toEqual(['waiting']);
    expect(snapshot.catalog?.types.map((t) => t.name)).toEqual(['m5.large']);
    expect([...snapshot.unavailableOfferings]).toHaveLength(1);
    expect(unavailable.list()).toHaveLength(1);
    expect(snapshot.nodeClassStatus.get('default')?.subnets).toHaveLength(3);
    expect(nodeClassFailures.size).toBe(0);
  });

  it('reports an EC2NodeClass that does not resolve, and still reads the rest', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    world.fakes.kube.store.seed('ec2nodeclasses.karpenter.k8s.aws', {
      ...ec2NodeClassManifest({ name: 'nowhere', discovery: 'no-such-cluster' }),
    });
    world.fakes.kube.store.seed(
      'ec2nodeclasses.karpenter.k8s.aws',
      ec2NodeClassManifest({ name: 'default' }),
    );

    const { snapshot, nodeClassFailures } = await loadClusterSnapshot(
      world.ports,
      invocation(world),
      new UnavailableOfferings(world.time),
      { resolveNodeClasses: true, catalog: false, pendingPods: false },
    );

    expect(snapshot.nodeClasses).toHaveLength(2);
    expect(snapshot.catalog).toBeUndefined();
    expect(snapshot.nodeClassStatus.has('default')).toBe(true);
    const resolvedNowhere = snapshot.nodeClassStatus.get('nowhere');
    expect(
      resolvedNowhere === undefined ? nodeClassFailures.has('nowhere') : resolvedNowhere.subnets,
    ).toBeTruthy();
  });
});
