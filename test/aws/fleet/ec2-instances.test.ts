import { CreateFleetCommand, type DescribeInstancesCommandInput } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { CloudError, ValidationError } from '../../../shared/core/model/errors';
import {
  clockRetryPolicy,
  launchRequest,
  launchWorld,
  worldLauncher,
} from '../../../sim/world/aws/launch-world';
import { clusterInfo, SUBNET_A } from '../../../sim/world/aws/region';
import { nodeClaim } from '../../../sim/world/builders';

async function world(pageSize?: number) {
  const w = await launchWorld();
  const { policy, sleeps } = clockRetryPolicy(w.clock);
  const launcherFor = (cluster: string) =>
    worldLauncher(w, policy, {
      cluster: { ...clusterInfo, name: cluster },
      ...(pageSize === undefined ? {} : { pageSize }),
    });
  const launcher = launcherFor('demo');
  const launch = (name: string, cluster = launcher) =>
    cluster.launch(launchRequest(w.instanceTypes, { nodeClaim: nodeClaim({ name, uid: `uid-${name}` }) }));
  return { ...w, launcher, launcherFor, launch, sleeps };
}

const UNKNOWN = 'i-0000000000000dead';

describe('Ec2Instances.terminate', () => {
  it('terminates the known instances of a batch that also names an unknown one', async () => {
    const { launcher, launch, fake } = await world();
    const a = await launch('default-aaaa');
    const b = await launch('default-bbbb');

    await launcher.terminate([a.instanceId, UNKNOWN, b.instanceId]);

    expect(fake.instance(a.instanceId)?.State?.Name).toBe('shutting-down');
    expect(fake.instance(b.instanceId)?.State?.Name).toBe('shutting-down');
    // The batch failed on the unknown id, then each id went on its own.
    const calls = fake.calls.filter((c) => c.operation === 'TerminateInstances');
    expect(calls.map((c) => c.error?.name)).toEqual([
      'InvalidInstanceID.NotFound',
      undefined,
      'InvalidInstanceID.NotFound',
      undefined,
    ]);
  });

  it('counts instances that are already gone as terminated', async () => {
    const { launcher, launch, clock } = await world();
    const a = await launch('default-aaaa');
    await launcher.terminate([a.instanceId]);
    clock.advance(2 * 3_600_000);

    await expect(launcher.terminate([a.instanceId, UNKNOWN])).resolves.toBeUndefined();
    await expect(launcher.terminate([UNKNOWN])).resolves.toBeUndefined();
  });

  it('retries throttled calls and reports other failures as a CloudError naming the instance', async () => {
    const { launcher, launch, fake, sleeps } = await world();
    const a = await launch('default-aaaa');
    fake.throttle('TerminateInstances', 1);
    fake.failNext('TerminateInstances', 'UnauthorizedOperation', { times: 1, message: 'not allowed' });

    const error = await launcher.terminate([a.instanceId]).catch((e: unknown) => e);

    expect(sleeps).toHaveLength(1);
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'UnauthorizedOperation', retryable: false });
    expect((error as Error).message).toBe(
      `terminating instance ${a.instanceId}: UnauthorizedOperation: not allowed`,
    );
  });

  it('rejects ids that are not instance ids before calling EC2', async () => {
    const { launcher, fake } = await world();
    await expect(launcher.terminate(['node-1'])).rejects.toBeInstanceOf(ValidationError);
    expect(fake.callsTo('TerminateInstances')).toEqual([]);
  });
});

describe('Ec2Instances.listClusterInstances', () => {
  it("lists the cluster's live podlift instances page by page, leaving out other clusters, node groups and terminated ones", async () => {
    const { launcher, launcherFor, launch, fake, ec2, templates, clock } = await world(5);
    const ours = [];
    for (let i = 0; i < 7; i += 1) ours.push(await launch(`default-${i}`));
    await launch('other-0', launcherFor('other'));
    // A managed node group instance: the cluster tag, no NodePool tag.
    await ec2.send(
      new CreateFleetCommand({
        Type: 'instant',
        LaunchTemplateConfigs: [
          {
            LaunchTemplateSpecification: {
              LaunchTemplateId: templates.templates[0]!.launchTemplateId,
              Version: '1',
            },
            Overrides: [{ InstanceType: 'm5.large', SubnetId: SUBNET_A }],
          },
        ],
        TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
        TagSpecifications: [
          { ResourceType: 'instance', Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }] },
        ],
      }),
    );
    await launcher.terminate([ours[0]!.instanceId]);
    clock.advance(60_000);
    fake.calls.length = 0;

    const listed = await launcher.instances.listClusterInstances();

    expect(listed.map((i) => i.nodeClaim).sort()).toEqual([
      'default-1',
      'default-2',
      'default-3',
      'default-4',
      'default-5',
      'default-6',
    ]);
    const calls = fake.callsTo('DescribeInstances') as DescribeInstancesCommandInput[];
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      MaxResults: 5,
      Filters: [
        { Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned'] },
        { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
        {
          Name: 'instance-state-name',
          Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'],
        },
      ],
    });
    expect(calls[1]?.NextToken).toEqual(expect.any(String));
  });
});

describe('Ec2Instances.describe', () => {
  it('returns the domain view of the instances it finds and skips unknown ids', async () => {
    const { launcher, launch, clock } = await world();
    const launchedAt = clock.now();
    const a = await launch('default-aaaa');
    clock.advance(20_000);

    const [found, ...rest] = await launcher.instances.describe([a.instanceId, UNKNOWN]);

    expect(rest).toEqual([]);
    expect(found).toMatchObject({
      id: a.instanceId,
      instanceType: a.instanceType,
      zone: a.zone,
      state: 'running',
      capacityType: 'spot',
      launchTime: launchedAt,
      providerID: a.providerID,
      nodeClaim: 'default-aaaa',
      nodePool: 'default',
      privateDnsName: expect.stringMatching(/\.ec2\.internal$/),
    });
    expect(found?.tags['kubernetes.io/cluster/demo']).toBe('owned');
  });

  it('lists the instances of a NodeClaim by its tag, in the states asked for', async () => {
    const { launcher, launch } = await world();
    const a = await launch('default-aaaa');
    await launch('default-bbbb');
    await launcher.terminate([a.instanceId]);

    const ids = async (name: string, states?: readonly string[]) =>
      (await launcher.instances.listByNodeClaim(name, states)).map((i) => i.id);
    expect(await ids('default-aaaa')).toStrictEqual([a.instanceId]);
    expect(await ids('default-aaaa', ['pending', 'running'])).toStrictEqual([]);
    expect(await ids('default-none')).toStrictEqual([]);
  });
});
