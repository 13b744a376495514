import { describe, expect, it } from 'vitest';
import { instanceProfileName } from '../../../shared/aws/nodeclass/instance-profile-name';
import type { EC2NodeClassStatus } from '../../../shared/core/model/ec2nodeclass-status';
import { iamWrites, nodeClassWorld, ROLE } from '../../../sim/world/aws/node-class-world';
import { CLUSTER, REGION } from '../../../sim/world/aws/region';
import { nodeClass } from '../../../sim/world/builders';

const profileReady = (status: EC2NodeClassStatus) =>
  status.conditions.find((c) => c.type === 'InstanceProfileReady');
const NAME = instanceProfileName(CLUSTER, REGION, 'default', 'uid-1234', ROLE);
const OTHER_NAME = instanceProfileName(CLUSTER, REGION, 'default', 'uid-1234', 'OtherRole');
/** The default EC2NodeClass with `role`, its status naming `current` as a cluster would. */
const withRole = (role = ROLE, current?: string) =>
  nodeClass({
    uid: 'uid-1234',
    role,
    tags: { team: 'platform' },
    ...(current === undefined ? {} : { status: { instanceProfile: current } }),
  });
const rolesOf = (
  iamFake: { instanceProfile(name: string): { Roles?: { RoleName?: string }[] } | undefined },
  name: string,
) => iamFake.instanceProfile(name)?.Roles?.map((r) => r.RoleName);

describe('EC2NodeClassResolver instance profile', () => {
  it('creates the profile once, under Karpenter name and path, tagged, holding the role', async () => {
    const { resolver, iamFake } = nodeClassWorld();
    const status = await resolver.resolve(withRole());
    expect(status.instanceProfile).toBe(NAME);
    expect(NAME).toMatch(/^demo_\d+$/);
    const profile = iamFake.instanceProfile(NAME);
    expect(profile?.Path).toBe('/karpenter/us-east-1/demo/uid-1234/');
    expect(profile?.Roles?.map((r) => r.RoleName)).toEqual([ROLE]);
    expect(Object.fromEntries((profile?.Tags ?? []).map((t) => [t.Key, t.Value]))).toEqual({
      team: 'platform',
      'kubernetes.io/cluster/demo': 'owned',
      'karpenter.sh/managed-by': 'demo',
      'eks:eks-cluster-name': 'demo',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'topology.kubernetes.io/region': 'us-east-1',
    });
    expect(profileReady(status)).toMatchObject({ status: 'True', reason: 'InstanceProfileReady' });
  });

  it('makes no IAM calls on a second resolve within the TTL, and only a read after it', async () => {
    const { resolver, iamFake, newResolver, clock } = nodeClassWorld();
    await resolver.resolve(withRole());
    const afterFirst = iamFake.calls.length;
    await resolver.resolve(withRole());
    expect(iamFake.calls.length).toBe(afterFirst);

    clock.advance(16 * 60_000);
    const writesBefore = iamWrites(iamFake);
    const status = await newResolver().resolve(withRole());
    expect(status.instanceProfile).toBe(NAME);
    expect(iamWrites(iamFake)).toBe(writesBefore);
    expect(iamFake.calls.slice(afterFirst).map((c) => c.operation)).toEqual(['GetInstanceProfile']);
  });

  it('lets concurrent resolvers race: one creates, the other takes EntityAlreadyExists as success', async () => {
    const { iamFake, newResolver } = nodeClassWorld();
    const [a, b] = await Promise.all([newResolver().resolve(withRole()), newResolver().resolve(withRole())]);
    expect([a.instanceProfile, b.instanceProfile]).toEqual([NAME, NAME]);
    expect([profileReady(a)?.status, profileReady(b)?.status]).toEqual(['True', 'True']);
    const creates = iamFake.calls.filter((c) => c.operation === 'CreateInstanceProfile');
    expect(creates.map((c) => c.error?.name)).toEqual([undefined, 'EntityAlreadyExistsException']);
    expect(iamFake.instanceProfile(NAME)?.Roles?.map((r) => r.RoleName)).toEqual([ROLE]);
  });

  it('treats LimitExceeded on AddRoleToInstanceProfile as success when the role is ours', async () => {
    const { iamFake, newResolver } = nodeClassWorld();
    iamFake.createInstanceProfile({ InstanceProfileName: NAME });
    const [a, b] = await Promise.all([newResolver().resolve(withRole()), newResolver().resolve(withRole())]);
    expect([profileReady(a)?.status, profileReady(b)?.status]).toEqual(['True', 'True']);
    const adds = iamFake.calls.filter((c) => c.operation === 'AddRoleToInstanceProfile');
    expect(adds.map((c) => c.error?.name)).toEqual([undefined, 'LimitExceededException']);
  });

  it('reports a conflict when AddRoleToInstanceProfile hits the limit but the profile lacks our role', async () => {
    const { iamFake, resolver } = nodeClassWorld();
    iamFake.createInstanceProfile({ InstanceProfileName: NAME });
    iamFake.failNext('AddRoleToInstanceProfile', 'LimitExceeded');
    const status = await resolver.resolve(withRole());
    expect(profileReady(status)).toMatchObject({ status: 'False', reason: 'InstanceProfileRoleConflict' });
    expect(profileReady(status)?.message).toContain(`the profile already holds role (none), not ${ROLE}`);
    expect(status.instanceProfile).toBeUndefined();
  });

  it('makes a new profile when the role changes and leaves the old one holding its role for running nodes', async () => {
    const { iamFake, newResolver } = nodeClassWorld();
    const first = await newResolver().resolve(withRole());
    expect(first.instanceProfile).toBe(NAME);
    const changed = await newResolver().resolve(withRole('OtherRole', NAME));
    expect(changed.instanceProfile).toBe(OTHER_NAME);
    expect(OTHER_NAME).not.toBe(NAME);
    expect(rolesOf(iamFake, OTHER_NAME)).toEqual(['OtherRole']);
    expect(iamFake.instanceProfile(OTHER_NAME)?.Path).toBe('/karpenter/us-east-1/demo/uid-1234/');
    // Nodes launched with the old profile keep their credentials until it is collected.
    expect(rolesOf(iamFake, NAME)).toEqual([ROLE]);
    expect(iamFake.callsTo('RemoveRoleFromInstanceProfile')).toEqual([]);
  });

  it("goes back to the earlier role's profile when the role is changed back", async () => {
    const { iamFake, newResolver } = nodeClassWorld();
    await newResolver().resolve(withRole());
    await newResolver().resolve(withRole('OtherRole', NAME));
    const creates = iamFake.callsTo('CreateInstanceProfile').length;
    const back = await newResolver().resolve(withRole(ROLE, OTHER_NAME));
    expect(back.instanceProfile).toBe(NAME);
    expect(iamFake.callsTo('CreateInstanceProfile')).toHaveLength(creates);
    expect(rolesOf(iamFake, OTHER_NAME)).toEqual(['OtherRole']);
  });

  it('keeps the profile its status names while it holds the role, with one read (a profile Karpenter made)', async () => {
    const { iamFake, resolver } = nodeClassWorld();
    const karpenters = 'demo_7315048325616392001';
    iamFake.createInstanceProfile({ InstanceProfileName: karpenters });
    iamFake.addRoleToInstanceProfile({ InstanceProfileName: karpenters, RoleName: ROLE });
    const status = await resolver.resolve(withRole(ROLE, karpenters));
    expect(status.instanceProfile).toBe(karpenters);
    expect(iamWrites(iamFake)).toBe(0);
    expect(iamFake.calls.map((c) => c.operation)).toEqual(['GetInstanceProfile']);
  });

  it("replaces a profile in status that is gone or holds another role by the role's own profile", async () => {
    const { iamFake, newResolver } = nodeClassWorld();
    const gone = await newResolver().resolve(withRole(ROLE, 'demo_deleted'));
    expect(gone.instanceProfile).toBe(NAME);
    iamFake.createInstanceProfile({ InstanceProfileName: 'someone-elses' });
    iamFake.addRoleToInstanceProfile({ InstanceProfileName: 'someone-elses', RoleName: 'OtherRole' });
    const foreign = await newResolver().resolve(withRole(ROLE, 'someone-elses'));
    expect(foreign.instanceProfile).toBe(NAME);
    expect(rolesOf(iamFake, 'someone-elses')).toEqual(['OtherRole']);
  });

  it('passes only the role name of a role with a path', async () => {
    const { iamFake, resolver } = nodeClassWorld();
    await resolver.resolve(withRole(`/nodes/${ROLE}`));
    expect(iamFake.callsTo('AddRoleToInstanceProfile')).toEqual([
      { InstanceProfileName: NAME, RoleName: ROLE },
    ]);
  });

  it('reports RoleNotFound, and tries again on the next resolve instead of caching the failure', async () => {
    const { iamFake, resolver, clock } = nodeClassWorld();
    const missing = await resolver.resolve(withRole('NotYetCreated'));
    expect(profileReady(missing)).toMatchObject({ status: 'False', reason: 'RoleNotFound' });
    expect(profileReady(missing)?.message).toContain('role NotYetCreated does not exist');
    iamFake.addRole({ name: 'NotYetCreated' });
    clock.advance(1_000);
    const fixed = await resolver.resolve(withRole('NotYetCreated'));
    expect(profileReady(fixed)).toMatchObject({ status: 'True' });
  });

  it('uses a given instanceProfile as is after checking it exists, writing nothing', async () => {
    const { iamFake, resolver } = nodeClassWorld();
    iamFake.createInstanceProfile({ InstanceProfileName: 'my-profile' });
    const status = await resolver.resolve(nodeClass({ instanceProfile: 'my-profile' }));
    expect(status.instanceProfile).toBe('my-profile');
    expect(profileReady(status)).toMatchObject({ status: 'True' });
    expect(iamWrites(iamFake)).toBe(0);
  });

  it('reports a given instanceProfile that does not exist, and Ready False', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(nodeClass({ instanceProfile: 'missing-profile' }));
    expect(status.instanceProfile).toBeUndefined();
    expect(profileReady(status)).toMatchObject({
      status: 'False',
      reason: 'InstanceProfileNotFound',
      message: 'instance profile missing-profile of EC2NodeClass default does not exist',
    });
    expect(status.conditions.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it("moves from a given instanceProfile to the role's own profile, as Karpenter allows since v1.7 (#8249)", async () => {
    const { iamFake, resolver } = nodeClassWorld();
    iamFake.createInstanceProfile({ InstanceProfileName: 'my-profile' });
    const before = await resolver.resolve({ ...withRole(), role: undefined, instanceProfile: 'my-profile' });
    expect(before.instanceProfile).toBe('my-profile');
    // The same class, now with spec.role; its status still names the profile it was given.
    const after = await resolver.resolve(withRole(ROLE, 'my-profile'));
    expect(after.instanceProfile).toBe(NAME);
    expect(rolesOf(iamFake, NAME)).toEqual([ROLE]);
    expect(iamFake.instanceProfile('my-profile')).toBeDefined();
    expect(profileReady(after)).toMatchObject({ status: 'True' });
  });
});
