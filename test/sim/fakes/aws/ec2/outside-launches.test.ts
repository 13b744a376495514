import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

describe('FakeEc2 instances outside podlift', () => {
  it('launches an instance as another RunInstances would, visible to DescribeInstances but not in the call log', async () => {
    const { fake, client, clock } = ec2World();
    const id = fake.launchOutside({
      instanceType: 'm5.large',
      availabilityZone: 'us-east-1b',
      tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }],
    });
    clock.advance(15_000);
    const out = await client.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    expect(out.Reservations?.[0].Instances?.[0]).toMatchObject({
      InstanceId: id,
      InstanceType: 'm5.large',
      Placement: { AvailabilityZone: 'us-east-1b' },
      State: { Name: 'running' },
      Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }],
    });
    expect(fake.instanceUserData(id)).toBeUndefined();
    expect(fake.calls.map((c) => c.operation)).toEqual(['DescribeInstances']);
    expect(() => fake.launchOutside({ instanceType: 'x9.huge' })).toThrow(/EC2 sells no x9.huge/);
  });

  it('reports status checks ok until one is set impaired, and refuses an unknown instance', () => {
    const { fake } = ec2World();
    const id = fake.launchOutside({ instanceType: 'm5.large' });
    expect(fake.instanceChecks(id)).toEqual({ instance: 'ok', system: 'ok' });
    fake.setInstanceStatus(id, { system: 'impaired' });
    expect(fake.instanceChecks(id)).toEqual({ instance: 'ok', system: 'impaired' });
    fake.setInstanceStatus(id, { instance: 'impaired' });
    expect(fake.instanceChecks(id)).toEqual({ instance: 'impaired', system: 'impaired' });
    expect(() => fake.setInstanceStatus('i-00000000000000fff', { instance: 'impaired' })).toThrow(
      /no instance i-00000000000000fff/,
    );
  });
});
