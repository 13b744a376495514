import { CreateLaunchTemplateCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { USER_DATA_LIMIT_BYTES } from '../../../../../sim/fakes/aws/ec2/launch-templates';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';

const base64 = (bytes: number) => Buffer.alloc(bytes, 'a').toString('base64');

describe('FakeEc2 CreateLaunchTemplate validation', () => {
  const create = (world: ReturnType<typeof ec2World>, name: string, data: object) =>
    world.client.send(
      new CreateLaunchTemplateCommand({ LaunchTemplateName: name, LaunchTemplateData: data }),
    );

  it('takes 16 KB of user data before base64 and refuses a byte more, as EC2 does', async () => {
    const world = ec2World();
    expect(USER_DATA_LIMIT_BYTES).toBe(16_384);
    await expect(create(world, 'podlift/demo/fits', { UserData: base64(16_384) })).resolves.toBeDefined();
    await expect(create(world, 'podlift/demo/too-big', { UserData: base64(16_385) })).rejects.toMatchObject({
      name: 'InvalidUserData.Malformed',
      message: 'User data is limited to 16384 bytes',
    });
    expect(world.fake.launchTemplateData('podlift/demo/too-big')).toBeUndefined();
  });

  it('refuses user data that is not base64', async () => {
    const world = ec2World();
    await expect(
      create(world, 'podlift/demo/plain', { UserData: '#!/bin/bash\necho hi' }),
    ).rejects.toMatchObject({
      name: 'InvalidUserData.Malformed',
      message: 'Invalid BASE64 encoding of user data.',
    });
  });

  it('stores an instance profile that does not exist: only a launch would fail, as with EC2', async () => {
    const world = ec2World();
    const out = await create(world, 'podlift/demo/profile', {
      IamInstanceProfile: { Name: 'no-such-profile' },
    });
    expect(out.LaunchTemplate?.LaunchTemplateName).toBe('podlift/demo/profile');
    expect(world.fake.launchTemplateData('podlift/demo/profile')?.IamInstanceProfile).toEqual({
      Name: 'no-such-profile',
    });
  });
});
