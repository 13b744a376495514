import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  GetRoleCommand,
  IAMClient,
  NoSuchEntityException,
  RemoveRoleFromInstanceProfileCommand,
  TagInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../sim/fakes/aws/client-config';
import { FakeIam } from '../../../../sim/fakes/aws/fake-iam';
import { VirtualTime } from '../../../../sim/virtual-time';

function iamWorld() {
  const fake = new FakeIam({
    clock: new VirtualTime(),
    roles: [{ name: 'KarpenterNodeRole-demo' }, { name: 'other' }],
  });
  const client = new IAMClient(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

describe('FakeIam', () => {
  it('creates an instance profile, adds its one role, tags it and returns it', async () => {
    const { client } = iamWorld();
    const created = await client.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: 'demo_123',
        Tags: [{ Key: 'karpenter.sh/managed-by', Value: 'demo' }],
      }),
    );
    expect(created.InstanceProfile).toMatchObject({
      InstanceProfileName: 'demo_123',
      Arn: 'arn:aws:iam::123456789012:instance-profile/demo_123',
      Roles: [],
    });
    await client.send(
      new AddRoleToInstanceProfileCommand({
        InstanceProfileName: 'demo_123',
        RoleName: 'KarpenterNodeRole-demo',
      }),
    );
    await client.send(
      new TagInstanceProfileCommand({
        InstanceProfileName: 'demo_123',
        Tags: [{ Key: 'extra', Value: '1' }],
      }),
    );

    const profile = (await client.send(new GetInstanceProfileCommand({ InstanceProfileName: 'demo_123' })))
      .InstanceProfile;
    expect(profile?.Roles?.map((r) => r.RoleName)).toEqual(['KarpenterNodeRole-demo']);
    expect(profile?.Tags).toEqual([
      { Key: 'karpenter.sh/managed-by', Value: 'demo' },
      { Key: 'extra', Value: '1' },
    ]);
  });

  it('answers with the SDK modeled errors: NoSuchEntity, EntityAlreadyExists, LimitExceeded, DeleteConflict', async () => {
    const { client } = iamWorld();
    const missing = await client
      .send(new GetInstanceProfileCommand({ InstanceProfileName: 'nope' }))
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NoSuchEntityException);
    expect(missing).toMatchObject({ name: 'NoSuchEntityException', $metadata: { httpStatusCode: 404 } });

    await client.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'p' }));
    await expect(
      client.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'p' })),
    ).rejects.toMatchObject({
      name: 'EntityAlreadyExistsException',
    });
    await client.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'p', RoleName: 'KarpenterNodeRole-demo' }),
    );
    await expect(
      client.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'p', RoleName: 'other' })),
    ).rejects.toMatchObject({ name: 'LimitExceededException' });
    await expect(
      client.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'p' })),
    ).rejects.toMatchObject({
      name: 'DeleteConflictException',
    });

    await client.send(
      new RemoveRoleFromInstanceProfileCommand({
        InstanceProfileName: 'p',
        RoleName: 'KarpenterNodeRole-demo',
      }),
    );
    await client.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'p' }));
    await expect(
      client.send(new GetInstanceProfileCommand({ InstanceProfileName: 'p' })),
    ).rejects.toMatchObject({
      name: 'NoSuchEntityException',
    });
  });

  it('returns seeded roles and NoSuchEntity for unknown ones', async () => {
    const { client } = iamWorld();
    const role = await client.send(new GetRoleCommand({ RoleName: 'KarpenterNodeRole-demo' }));
    expect(role.Role?.Arn).toBe('arn:aws:iam::123456789012:role/KarpenterNodeRole-demo');
    await expect(client.send(new GetRoleCommand({ RoleName: 'ghost' }))).rejects.toMatchObject({
      name: 'NoSuchEntityException',
    });
  });

  it('throttles with Throttling and accepts IAM wire codes in failNext', async () => {
    const { client, fake } = iamWorld();
    fake.throttle('GetRole');
    fake.failNext('GetRole', 'NoSuchEntity');
    await expect(client.send(new GetRoleCommand({ RoleName: 'other' }))).rejects.toMatchObject({
      name: 'Throttling',
    });
    await expect(client.send(new GetRoleCommand({ RoleName: 'other' }))).rejects.toBeInstanceOf(
      NoSuchEntityException,
    );
  });
});
