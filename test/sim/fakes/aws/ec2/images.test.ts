import { DescribeImagesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

describe('FakeEc2 image states', () => {
  const pending = {
    id: 'ami-00000000000000c01',
    name: 'golden-v2',
    creationDate: '2025-02-01T00:00:00Z',
    state: 'pending',
  } as const;

  it('lists images in every state unless DescribeImages filters on state, as EC2 does', async () => {
    const { client } = ec2World({ images: [pending] });
    const all = await client.send(new DescribeImagesCommand({ Owners: ['self'] }));
    expect(all.Images?.map((i) => [i.ImageId, i.State])).toEqual([['ami-00000000000000c01', 'pending']]);

    const available = await client.send(
      new DescribeImagesCommand({ Owners: ['self'], Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(available.Images).toEqual([]);
    const byId = await client.send(new DescribeImagesCommand({ ImageIds: [pending.id] }));
    expect(byId.Images?.[0]?.State).toBe('pending');
  });

  it('moves an image to available when its registration completes', async () => {
    const { client, fake } = ec2World({ images: [pending] });
    fake.setImageState(pending.id, 'available');
    const available = await client.send(
      new DescribeImagesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(available.Images?.map((i) => i.ImageId)).toEqual([pending.id]);
    expect(() => fake.setImageState('ami-00000000000000fff', 'failed')).toThrow(
      'FakeEc2 has no image ami-00000000000000fff to move to failed',
    );
  });
});
