import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeInstanceStatusCommand,
  paginateDescribeInstanceStatus,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

async function launch(world: ReturnType<typeof ec2World>, count: number): Promise<string[]> {
  await world.client.send(
    new CreateLaunchTemplateCommand({ LaunchTemplateName: 'lt-health', LaunchTemplateData: {} }),
  );
  const out = await world.client.send(
    new CreateFleetCommand({
      Type: 'instant',
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: { LaunchTemplateName: 'lt-health' },
          Overrides: [{ InstanceType: 'm5.large', SubnetId: 'subnet-0000000000000000a' }],
        },
      ],
      TargetCapacitySpecification: { TotalTargetCapacity: count, DefaultTargetCapacityType: 'on-demand' },
    }),
  );
  return out.Instances!.flatMap((i) => i.InstanceIds ?? []);
}

const statusOf = async (world: ReturnType<typeof ec2World>, input = {}) =>
  (await world.client.send(new DescribeInstanceStatusCommand(input))).InstanceStatuses ?? [];

describe('FakeEc2 DescribeInstanceStatus', () => {
  it('reports running instances only unless IncludeAllInstances, the others not-applicable', async () => {
    const world = ec2World();
    const [a, b] = (await launch(world, 2)) as [string, string];
    expect(await statusOf(world)).toStrictEqual([]); // both still pending
    world.clock.advance(20_000);
    await world.client.send(new TerminateInstancesCommand({ InstanceIds: [b] }));
    const running = await statusOf(world);
    expect(running).toStrictEqual([
      {
        AvailabilityZone: 'us-east-1a',
        InstanceId: a,
        InstanceState: { Code: 16, Name: 'running' },
        InstanceStatus: { Status: 'ok', Details: [{ Name: 'reachability', Status: 'passed' }] },
        SystemStatus: { Status: 'ok', Details: [{ Name: 'reachability', Status: 'passed' }] },
      },
    ]);
    expect(await statusOf(world, { InstanceIds: [b] })).toStrictEqual([]);
    const all = await statusOf(world, { IncludeAllInstances: true });
    expect(all.map((s) => [s.InstanceId, s.InstanceState?.Name, s.InstanceStatus?.Status])).toStrictEqual([
      [a, 'running', 'ok'],
      [b, 'shutting-down', 'not-applicable'],
    ]);
  });

  it('keeps the status checks it is given, ImpairedSince from when they became impaired', async () => {
    const world = ec2World();
    const [a] = (await launch(world, 1)) as [string];
    world.clock.advance(20_000);
    world.fake.setInstanceStatus(a, { system: 'impaired' });
    const since = new Date(world.clock.now());
    world.clock.advance(60_000);
    world.fake.setInstanceStatus(a, { system: 'impaired', instance: 'insufficient-data' });
    const [status] = await statusOf(world);
    expect(status?.SystemStatus).toStrictEqual({
      Status: 'impaired',
      Details: [{ Name: 'reachability', Status: 'failed', ImpairedSince: since }],
    });
    expect(status?.InstanceStatus?.Details).toStrictEqual([
      { Name: 'reachability', Status: 'insufficient-data' },
    ]);
    world.fake.setInstanceStatus(a, { system: 'ok' });
    expect((await statusOf(world))[0]?.SystemStatus?.Details).toStrictEqual([
      { Name: 'reachability', Status: 'passed' },
    ]);
  });

  it('filters by status and event code (ANDed across names) and reports scheduled events', async () => {
    const world = ec2World();
    const [a, b, c] = (await launch(world, 3)) as [string, string, string];
    world.clock.advance(20_000);
    world.fake.setInstanceStatus(a, { instance: 'impaired' });
    const eventId = world.fake.scheduleInstanceEvent(b, {
      code: 'instance-retirement',
      notAfter: Date.parse('2027-01-01T00:00:00Z'),
    });
    world.fake.setInstanceStatus(c, { system: 'impaired' });
    const ids = async (Filters: { Name: string; Values: string[] }[]) =>
      (await statusOf(world, { Filters })).map((s) => s.InstanceId);
    expect(await ids([{ Name: 'instance-status.status', Values: ['impaired'] }])).toStrictEqual([a]);
    expect(await ids([{ Name: 'system-status.status', Values: ['impaired'] }])).toStrictEqual([c]);
    expect(
      await ids([{ Name: 'event.code', Values: ['instance-retirement', 'system-reboot'] }]),
    ).toStrictEqual([b]);
    expect(
      await ids([
        { Name: 'instance-status.status', Values: ['impaired'] },
        { Name: 'system-status.status', Values: ['impaired'] },
      ]),
    ).toStrictEqual([]);
    expect(await ids([{ Name: 'instance-status.reachability', Values: ['failed'] }])).toStrictEqual([a]);
    const [retiring] = await statusOf(world, { InstanceIds: [b] });
    expect(retiring?.Events).toStrictEqual([
      {
        InstanceEventId: eventId,
        Code: 'instance-retirement',
        Description: 'The instance is scheduled for instance-retirement',
        NotBefore: new Date(world.clock.now()),
        NotAfter: new Date('2027-01-01T00:00:00Z'),
      },
    ]);
  });

  it('pages through the SDK paginator and refuses what EC2 refuses', async () => {
    const world = ec2World();
    const ids = await launch(world, 7);
    world.clock.advance(20_000);
    const pages = [];
    for await (const p of paginateDescribeInstanceStatus({ client: world.client, pageSize: 5 }, {}))
      pages.push((p.InstanceStatuses ?? []).map((s) => s.InstanceId));
    expect(pages).toStrictEqual([ids.slice(0, 5), ids.slice(5)]);
    await expect(statusOf(world, { InstanceIds: [ids[0]], MaxResults: 5 })).rejects.toMatchObject({
      name: 'InvalidParameterCombination',
    });
    await expect(statusOf(world, { InstanceIds: ['i-0000000000000dead'] })).rejects.toMatchObject({
      name: 'InvalidInstanceID.NotFound',
    });
    await expect(statusOf(world, { InstanceIds: ['nope'] })).rejects.toMatchObject({
      name: 'InvalidInstanceID.Malformed',
    });
    await expect(statusOf(world, { Filters: [{ Name: 'colour', Values: ['x'] }] })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(statusOf(world, { MaxResults: 2 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    expect(() => world.fake.setInstanceStatus('i-0000000000000dead', { system: 'impaired' })).toThrow(
      'no instance i-0000000000000dead',
    );
  });
});
