import { DescribeSubnetsCommand, EC2Client, paginateDescribeSubnets } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../sim/fakes/aws/client-config';
import { FakeEc2 } from '../../../../sim/fakes/aws/ec2';
import { VirtualTime } from '../../../../sim/virtual-time';

describe('attachFake', () => {
  it('answers a real client from the fake by command name, with response metadata', async () => {
    const fake = new FakeEc2({
      clock: new VirtualTime(),
      subnets: [{ id: 'subnet-0000000000000000a', availabilityZone: 'us-east-1a' }],
    });
    const client = new EC2Client(clientConfig);
    attachFake(client, fake);

    const out = await client.send(new DescribeSubnetsCommand({}));

    expect(out.Subnets?.map((s) => s.SubnetId)).toEqual(['subnet-0000000000000000a']);
    expect(out.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1 });
    expect(fake.calls.map((c) => c.operation)).toEqual(['DescribeSubnets']);
  });

  it('detaches, so another fake can take over the same client', async () => {
    const clock = new VirtualTime();
    const first = new FakeEc2({
      clock,
      subnets: [{ id: 'subnet-0000000000000000a', availabilityZone: 'us-east-1a' }],
    });
    const second = new FakeEc2({
      clock,
      subnets: [{ id: 'subnet-0000000000000000b', availabilityZone: 'us-east-1b' }],
    });
    const client = new EC2Client(clientConfig);

    const detach = attachFake(client, first);
    detach();
    attachFake(client, second);

    const subnets = [];
    for await (const page of paginateDescribeSubnets({ client, pageSize: 5 }, {}))
      subnets.push(...(page.Subnets ?? []));
    expect(subnets.map((s) => s.SubnetId)).toEqual(['subnet-0000000000000000b']);
    expect(first.calls).toEqual([]);
  });
});
