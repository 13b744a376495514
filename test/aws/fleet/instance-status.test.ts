import { describe, expect, it } from 'vitest';
import { Ec2Instances } from '../../../shared/aws/fleet/ec2-instances';
import {
  clockRetryPolicy,
  launchRequest,
  launchWorld,
  worldLauncher,
} from '../../../sim/world/aws/launch-world';
import { nodeClaim } from '../../../sim/world/builders';

/** A launch world with `count` running instances and the inventory adapter (page size 5) over its EC2. */
async function world(count = 3) {
  const w = await launchWorld();
  const { policy } = clockRetryPolicy(w.clock);
  const launcher = worldLauncher(w, policy);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `default-${i}`;
    const launched = await launcher.launch(
      launchRequest(w.instanceTypes, { nodeClaim: nodeClaim({ name, uid: `uid-${name}` }) }),
    );
    ids.push(launched.instanceId);
  }
  w.clock.advance(60_000);
  const inventory = new Ec2Instances({ ec2: w.ec2, cluster: 'demo', retry: policy, pageSize: 5 });
  return { ...w, ids, inventory };
}

const EVENT_CODES = [
  'instance-reboot',
  'system-reboot',
  'system-maintenance',
  'instance-retirement',
  'instance-stop',
];

describe('Ec2Instances.unhealthyInstances (DescribeInstanceStatus as instancestatus.go List)', () => {
  it('reports nothing while every instance is healthy, asking in three filtered listings', async () => {
    const { inventory, fake } = await world();
    expect(await inventory.unhealthyInstances()).toStrictEqual([]);
    expect(fake.callsTo('DescribeInstanceStatus')).toStrictEqual([
      { Filters: [{ Name: 'instance-status.status', Values: ['impaired'] }], MaxResults: 5 },
      { Filters: [{ Name: 'system-status.status', Values: ['impaired'] }], MaxResults: 5 },
      { Filters: [{ Name: 'event.code', Values: EVENT_CODES }], MaxResults: 5 },
    ]);
  });

  it('reports each unhealthy instance once with its checks: status details with ImpairedSince, events as failed', async () => {
    const { inventory, fake, ids, clock } = await world();
    const [a, b] = ids as [string, string];
    fake.setInstanceStatus(a, { instance: 'impaired', system: 'impaired' });
    const impairedAt = clock.now();
    clock.advance(30_000);
    fake.scheduleInstanceEvent(b, { code: 'instance-retirement' });
    fake.scheduleInstanceEvent(a, { code: 'system-maintenance' });
    expect(await inventory.unhealthyInstances()).toStrictEqual([
      {
        instanceId: a,
        checks: [
          { category: 'InstanceStatus', name: 'reachability', status: 'failed', impairedSince: impairedAt },
          { category: 'SystemStatus', name: 'reachability', status: 'failed', impairedSince: impairedAt },
          { category: 'EventStatus', name: 'system-maintenance', status: 'failed' },
        ],
      },
      {
        instanceId: b,
        checks: [
          { category: 'InstanceStatus', name: 'reachability', status: 'passed' },
          { category: 'SystemStatus', name: 'reachability', status: 'passed' },
          { category: 'EventStatus', name: 'instance-retirement', status: 'failed' },
        ],
      },
    ]);
  });

  it('follows NextToken across pages', async () => {
    const { inventory, fake, ids } = await world(7);
    for (const id of ids) fake.setInstanceStatus(id, { system: 'impaired' });
    expect((await inventory.unhealthyInstances()).map((r) => r.instanceId)).toStrictEqual(ids);
    const calls = fake.callsTo('DescribeInstanceStatus') as { NextToken?: string }[];
    // Two pages of system status, one each of instance status and events.
    expect(calls.map((c) => c.NextToken !== undefined)).toStrictEqual([false, false, true, false]);
  });

  it('reports a refusal as a CloudError with its code', async () => {
    const { inventory, fake } = await world(1);
    fake.failNext('DescribeInstanceStatus', 'UnauthorizedOperation');
    await expect(inventory.unhealthyInstances()).rejects.toMatchObject({
      name: 'CloudError',
      code: 'UnauthorizedOperation',
    });
  });
});
