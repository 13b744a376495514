import { afterEach, describe, expect, it } from 'vitest';
import { resolveInstanceTypes } from '../../shared/core/catalog/instance-type-resolution';
import { UnavailableOfferings } from '../../shared/core/catalog/unavailable-offerings';
import { ROLE } from '../../sim/world/aws/node-class-world';
import { DISCOVERY } from '../../sim/world/aws/region';
import { nodeClaim, nodeClass, nodePool } from '../../sim/world/builders';
import { type ClusterWorld, clusterWorld } from '../../sim/world/cluster-world';

let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const discovered = nodeClass({
  role: ROLE,
  subnetSelectorTerms: [{ tags: DISCOVERY }],
  securityGroupSelectorTerms: [{ tags: DISCOVERY }],
  amiSelectorTerms: [{ alias: 'al2023@latest' }],
});

describe('composePorts', () => {
  it('reaches the cluster, EC2, SSM, IAM, Pricing and EKS through the real clients', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large', 'm6g.large'] });
    const { ports } = world;

    const info = await ports.clusterAccess.clusterInfo();
    expect([info.name, info.kubernetesVersion]).toEqual(['demo', '1.31']);

    const catalog = await ports.catalog.catalog();
    expect(catalog.types.map((t) => t.name).sort()).toEqual(['m5.large', 'm6g.large']);
    expect(catalog.prices.onDemand.get('m5.large')).toBeGreaterThan(0);

    const status = await ports.nodeClasses.resolve(discovered);
    expect(status.subnets).toHaveLength(3);
    expect(status.amis.map((a) => a.id).sort()).toEqual(expect.arrayContaining(['ami-00000000000000001']));
    expect(status.instanceProfile).toMatch(/^demo_/);

    expect((await ports.cluster.nodePools()).items).toEqual([]);
    expect((await ports.lease.acquire('provisioner/1', 60)).acquired).toBe(true);
    expect((await ports.lease.acquire('disruption/1', 60)).acquired).toBe(false);
  });

  it('launches a NodeClaim into the fake EC2 with templates it creates itself', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    const { ports } = world;
    const catalog = await ports.catalog.catalog();
    const types = resolveInstanceTypes(catalog, discovered);
    const byName = new Map(types.map((t) => [t.name, t]));
    const unavailable = new UnavailableOfferings(world.time);
    const resolved = await ports.nodeClasses.resolve(discovered);
    const pool = nodePool();
    const claim = nodeClaim({ name: 'default-abcde' });
    const option = { name: 'm5.large', price: 0.096, capacityType: 'on-demand' as const, zone: 'us-east-1a' };

    const launched = await ports.launcher(byName, unavailable).launch({
      nodeClaim: claim,
      nodePool: pool,
      nodeClass: discovered,
      resolved,
      options: [option],
    });

    expect(launched.instanceType).toBe('m5.large');
    expect(world.fakes.ec2.listInstances().map((i) => i.InstanceId)).toEqual([launched.instanceId]);
  });

  it('composes cold ports again over the same world, as a second Lambda container would', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    const again = world.composeAgain();
    expect(again).not.toBe(world.ports);
    expect((await again.catalog.catalog()).types).toHaveLength(1);
  });
});
