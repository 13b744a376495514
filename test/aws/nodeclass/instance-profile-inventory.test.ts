import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  IAMClient,
} from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { IamInstanceProfiles } from '../../../shared/aws/nodeclass/instance-profile-inventory';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeIam } from '../../../sim/fakes/aws/fake-iam';
import { VirtualTime } from '../../../sim/virtual-time';

function iamWorld() {
  const time = new VirtualTime();
  const fake = new FakeIam({ clock: time, roles: [{ name: 'node-role' }] });
  const client = new IAMClient(clientConfig);
  attachFake(client, fake);
  const profiles = new IamInstanceProfiles({
    iam: client,
    cluster: 'demo',
    region: 'us-east-1',
    retry: { timers: time, random: () => 0.5 },
  });
  const create = (name: string, path: string, cluster?: string) =>
    client.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: name,
        Path: path,
        ...(cluster ? { Tags: [{ Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' }] } : {}),
      }),
    );
  return { fake, client, profiles, create };
}

describe('IamInstanceProfiles', () => {
  it("lists every page of the cluster's path, and only that path", async () => {
    const { profiles, create } = iamWorld();
    for (let i = 0; i < 1005; i++)
      await create(`demo_${i}`, `/karpenter/us-east-1/demo/uid-${i % 3}/`, 'demo');
    await create('demo2_0', '/karpenter/us-east-1/demo2/', 'demo2');
    const listed = await profiles.listClusterProfiles();
    expect(listed).toHaveLength(1005);
    expect(listed.every((p) => p.name.startsWith('demo_') && p.createdAt !== undefined)).toBe(true);
  });

  it('removes the role before deleting, leaves profiles not tagged for the cluster, and counts gone ones', async () => {
    const { fake, client, profiles, create } = iamWorld();
    await create('ours', '/karpenter/us-east-1/demo/', 'demo');
    await client.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'ours', RoleName: 'node-role' }),
    );
    await create('untagged', '/karpenter/us-east-1/demo/');
    expect(await profiles.delete('ours')).toBe('deleted');
    expect(fake.instanceProfile('ours')).toBeUndefined();
    expect(await profiles.delete('untagged')).toBe('not-ours');
    expect(fake.instanceProfile('untagged')).toBeDefined();
    expect(await profiles.delete('ours')).toBe('gone');
  });
});
