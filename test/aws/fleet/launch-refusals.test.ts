import { describe, expect, it } from 'vitest';
import { ANY, UNAVAILABLE_OFFERING_TTL_MS } from '../../../shared/core/catalog/unavailable-offerings';
import { CloudError, InsufficientCapacityError } from '../../../shared/core/model/errors';
import {
  launcherWorld,
  launchRequest,
  RESOLVED_NODE_CLASS,
  worldLauncher,
  worldTemplateProvider,
} from '../../../sim/world/aws/launch-world';
import { SUBNET_A, SUBNET_A_SMALL } from '../../../sim/world/aws/region';
import { nodeClaim } from '../../../sim/world/builders';

const SLR = 'AuthFailure.ServiceLinkedRoleCreationNotPermitted';

describe('Ec2InstanceLauncher: what EC2 refused', () => {
  it("marks spot unavailable for the TTL when spot's service-linked role cannot be created, and falls back to on-demand", async () => {
    const { launcher, fake, clock, instanceTypes, unavailable, fleetCalls } = await launcherWorld();
    fake.capacity.injectLaunchError(
      { capacityType: 'spot' },
      SLR,
      100,
      'The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
    );
    const claim = (name: string) =>
      launchRequest(instanceTypes, { nodeClaim: nodeClaim({ name, uid: name }) });

    // As in Karpenter's combineFleetErrors, a fleet refused only this way is insufficient capacity.
    await expect(launcher.launch(claim('default-aaaa'))).rejects.toBeInstanceOf(InsufficientCapacityError);
    expect(unavailable.list()).toStrictEqual([
      {
        instanceType: ANY,
        zone: ANY,
        capacityType: 'spot',
        until: clock.now() + UNAVAILABLE_OFFERING_TTL_MS,
        reason: SLR,
      },
    ]);

    const onDemand = await launcher.launch(claim('default-bbbb'));
    expect(onDemand.capacityType).toBe('on-demand');
    expect(fleetCalls()[1]!.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('on-demand');

    clock.advance(UNAVAILABLE_OFFERING_TTL_MS);
    fake.capacity.reset();
    expect((await launcher.launch(claim('default-cccc'))).capacityType).toBe('spot');
  });

  it('answers insufficient capacity without calling CreateFleet when no option of the NodeClaim is left, as filterInstanceTypes does', async () => {
    const w = await launcherWorld();
    const { instanceTypes, fake } = w;
    const launcher = worldLauncher(w, w.policy, { launchTemplates: worldTemplateProvider(w) });
    const request = { ...launchRequest(instanceTypes), options: [] };
    await expect(launcher.launch(request)).rejects.toBeInstanceOf(InsufficientCapacityError);
    // Only the look-up of an instance an earlier attempt may have launched: no template, no fleet.
    expect(fake.calls.map((c) => c.operation)).toStrictEqual(['DescribeInstances']);
  });

  it("marks a subnet out of addresses, not the offerings, and launches through the zone's other subnet", async () => {
    const { launcher, fake, instanceTypes, unavailable, fleetCalls } = await launcherWorld();
    const claim = (name: string) =>
      launchRequest(instanceTypes, {
        nodeClaim: nodeClaim({ name, uid: name, capacityTypes: ['on-demand'], zones: ['us-east-1a'] }),
        types: ['m5.large'],
      });
    fake.capacity.injectLaunchError(
      { instanceType: 'm5.large', availabilityZone: 'us-east-1a' },
      'InsufficientFreeAddressesInSubnet',
    );

    await expect(launcher.launch(claim('default-aaaa'))).rejects.toBeInstanceOf(InsufficientCapacityError);
    expect([...unavailable.subnets()]).toStrictEqual([SUBNET_A]);
    expect(unavailable.list()).toStrictEqual([]);

    const launched = await launcher.launch(claim('default-bbbb'));

    expect(fake.instance(launched.instanceId)?.SubnetId).toBe(SUBNET_A_SMALL);
    expect(fleetCalls().map((c) => c.LaunchTemplateConfigs?.[0]?.Overrides?.[0]?.SubnetId)).toStrictEqual([
      SUBNET_A,
      SUBNET_A_SMALL,
    ]);
  });

  it('gives up a zone only when every subnet of it is out of addresses', async () => {
    const { launcher, instanceTypes, unavailable, fleetCalls } = await launcherWorld();
    unavailable.markSubnet(SUBNET_A, 'InsufficientFreeAddressesInSubnet');
    unavailable.markSubnet(SUBNET_A_SMALL, 'InsufficientFreeAddressesInSubnet');

    const error = await launcher
      .launch(
        launchRequest(instanceTypes, {
          nodeClaim: nodeClaim({ capacityTypes: ['on-demand'], zones: ['us-east-1a'] }),
          types: ['m5.large'],
        }),
      )
      .catch((e: unknown) => e);

    expect((error as InsufficientCapacityError).refused).toStrictEqual([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'on-demand',
        code: 'NoSubnetWithFreeAddresses',
      },
    ]);
    expect(fleetCalls()).toStrictEqual([]);
  });

  it("fails with EC2's reason when the EC2NodeClass's security group is in another VPC than its subnets", async () => {
    const w = await launcherWorld();
    w.fake.addSecurityGroup({
      id: 'sg-00000000000000e1e',
      name: 'elsewhere',
      vpcId: 'vpc-0000000000000000e',
    });
    const launcher = worldLauncher(w, w.policy, { launchTemplates: worldTemplateProvider(w) });

    const error = await launcher
      .launch(
        launchRequest(w.instanceTypes, {
          resolved: { ...RESOLVED_NODE_CLASS, securityGroups: [{ id: 'sg-00000000000000e1e' }] },
        }),
      )
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'InvalidParameter', retryable: false });
    expect((error as Error).message).toContain('belong to different networks');
    expect(w.unavailable.list()).toStrictEqual([]);
  });

  it("fails with EC2's reason when the instance profile the EC2NodeClass resolved to does not exist", async () => {
    const w = await launcherWorld();
    const launcher = worldLauncher(w, w.policy, { launchTemplates: worldTemplateProvider(w) });

    const error = await launcher
      .launch(
        launchRequest(w.instanceTypes, {
          resolved: { ...RESOLVED_NODE_CLASS, instanceProfile: 'demo_gone' },
        }),
      )
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'CloudError', code: 'InvalidParameterValue', retryable: false });
    expect((error as Error).message).toContain(
      'Value (demo_gone) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name',
    );
  });

  it('counts the addresses its own launches take, so successive NodeClaims spread over the zone', async () => {
    const { launcher, fake, instanceTypes } = await launcherWorld();
    // As the EC2NodeClass status last saw them: room for two m5.large (29 pods each) in A, one in A_SMALL.
    const subnets = [
      { id: SUBNET_A, zone: 'us-east-1a', availableIpAddressCount: 60 },
      { id: SUBNET_A_SMALL, zone: 'us-east-1a', availableIpAddressCount: 50 },
    ];
    const claim = (name: string) =>
      launchRequest(instanceTypes, {
        nodeClaim: nodeClaim({ name, uid: name, capacityTypes: ['on-demand'] }),
        types: ['m5.large'],
        subnets,
      });

    const first = await launcher.launch(claim('default-aaaa'));
    const second = await launcher.launch(claim('default-bbbb'));
    const third = await launcher.launch(claim('default-cccc'));

    expect([first, second, third].map((l) => fake.instance(l.instanceId)?.SubnetId)).toStrictEqual([
      SUBNET_A,
      SUBNET_A_SMALL,
      SUBNET_A,
    ]);
  });
});
