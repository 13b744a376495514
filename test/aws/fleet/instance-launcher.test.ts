import { describe, expect, it } from 'vitest';
import { fleetClientToken } from '../../../shared/aws/fleet/client-token';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { CloudError, InsufficientCapacityError } from '../../../shared/core/model/errors';
import { launcherWorld, launchRequest } from '../../../sim/world/aws/launch-world';
import { AMI_AMD64, AMI_ARM64, SUBNET_A, SUBNET_B } from '../../../sim/world/aws/region';
import { nodeClaim } from '../../../sim/world/builders';

const world = launcherWorld;

function tagMap(tags: readonly { Key?: string; Value?: string }[] | undefined): Record<string, string> {
  return Object.fromEntries((tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
}

describe('Ec2InstanceLauncher.launch', () => {
  it('launches spot with one instant fleet over every allowed type × zonal subnet, and records what EC2 chose', async () => {
    const { launcher, fake, fleetCalls, instanceTypes, clock } = await world();
    // price-capacity-optimized favours the deepest pool, here not the cheapest.
    fake.capacity.setCapacityScore({}, 0);
    fake.capacity.setCapacityScore({ instanceType: 'c5.xlarge', availabilityZone: 'us-east-1b' }, 1);
    const sentAt = clock.now();

    const launched = await launcher.launch(launchRequest(instanceTypes));

    expect(launched).toStrictEqual({
      instanceId: expect.stringMatching(/^i-/),
      providerID: `aws:///us-east-1b/${launched.instanceId}`,
      instanceType: 'c5.xlarge',
      zone: 'us-east-1b',
      capacityType: 'spot',
      imageID: AMI_AMD64,
      // A NodeClaim that says nothing of tenancy launches on shared hardware, labelled as
      // Karpenter labels it (cloudprovider.go instanceToNodeClaim).
      labels: { 'karpenter.k8s.aws/instance-tenancy': 'default' },
    });
    const [input] = fleetCalls();
    const { ClientToken, ...body } = input!;
    expect(ClientToken).toBe(fleetClientToken({ nodeClaim: nodeClaim(), request: body, now: sentAt }));
    expect(input).toMatchObject({
      Type: 'instant',
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'spot' },
      SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
    });
    expect(input!.OnDemandOptions).toBeUndefined();
    // The arm64 type gets the arm64 template and AMI; the amd64 types the amd64 ones. Zone c has
    // no subnet; in us-east-1a the subnet with the most free addresses wins.
    expect(
      input!.LaunchTemplateConfigs!.map((c) => ({
        template: c.LaunchTemplateSpecification!.LaunchTemplateId,
        overrides: c.Overrides!.map(
          (o) => `${o.InstanceType} ${o.AvailabilityZone} ${o.SubnetId} ${o.ImageId}`,
        ),
      })),
    ).toEqual([
      {
        template: expect.any(String),
        overrides: [
          `m6g.large us-east-1a ${SUBNET_A} ${AMI_ARM64}`,
          `m6g.large us-east-1b ${SUBNET_B} ${AMI_ARM64}`,
        ],
      },
      {
        template: expect.any(String),
        overrides: [
          `m5.large us-east-1a ${SUBNET_A} ${AMI_AMD64}`,
          `m5.large us-east-1b ${SUBNET_B} ${AMI_AMD64}`,
          `c5.xlarge us-east-1a ${SUBNET_A} ${AMI_AMD64}`,
          `c5.xlarge us-east-1b ${SUBNET_B} ${AMI_AMD64}`,
        ],
      },
    ]);
    expect(fake.instance(launched.instanceId)?.SubnetId).toBe(SUBNET_B);
  });

  it('tags the instance and its volumes with the reserved tags, which NodeClass tags cannot override', async () => {
    const { launcher, fake, instanceTypes } = await world();

    const launched = await launcher.launch(
      launchRequest(instanceTypes, {
        nodeClassTags: {
          team: 'platform',
          'karpenter.sh/nodepool': 'hijack',
          'kubernetes.io/cluster/other': 'owned',
        },
      }),
    );

    const expected = {
      Name: 'default-x7k2',
      team: 'platform',
      'kubernetes.io/cluster/demo': 'owned',
      'karpenter.sh/nodepool': 'default',
      'karpenter.sh/nodeclaim': 'default-x7k2',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'eks:eks-cluster-name': 'demo',
    };
    const instanceTags = tagMap(fake.instance(launched.instanceId)?.Tags);
    expect(instanceTags).toMatchObject(expected);
    expect(instanceTags).not.toHaveProperty('kubernetes.io/cluster/other');
    expect(tagMap(fake.volumeTags(launched.instanceId))).toEqual(expected);
  });

  it('lets a NodeClass Name tag replace the default Name', async () => {
    const { launcher, fake, instanceTypes } = await world();
    const launched = await launcher.launch(
      launchRequest(instanceTypes, { nodeClassTags: { Name: 'workers' } }),
    );
    expect(tagMap(fake.instance(launched.instanceId)?.Tags).Name).toBe('workers');
  });

  it('falls back within the same fleet when the pool EC2 tries first has no capacity, and marks it unavailable', async () => {
    const { launcher, fake, instanceTypes, unavailable, fleetCalls } = await world();
    fake.capacity.setCapacityScore({}, 0);
    fake.capacity.setCapacityScore({ instanceType: 'm6g.large', availabilityZone: 'us-east-1a' }, 1);
    fake.capacity.injectLaunchError({
      instanceType: 'm6g.large',
      availabilityZone: 'us-east-1a',
      capacityType: 'spot',
    });

    const launched = await launcher.launch(launchRequest(instanceTypes));

    expect(fleetCalls()).toHaveLength(1);
    expect(launched).toMatchObject({ instanceType: 'm6g.large', zone: 'us-east-1b', capacityType: 'spot' });
    expect([...unavailable.keys()]).toEqual([offeringKey('m6g.large', 'us-east-1a', 'spot')]);
    expect(unavailable.list()[0]?.reason).toBe('InsufficientInstanceCapacity');
  });

  it('keeps a partially refused on-demand fleet: launches the next pool and marks the exhausted one', async () => {
    const { launcher, fake, instanceTypes, unavailable, fleetCalls } = await world();
    fake.capacity.setCapacity({ instanceType: 'm6g.large', capacityType: 'on-demand' }, 0);

    const launched = await launcher.launch(
      launchRequest(instanceTypes, { nodeClaim: nodeClaim({ capacityTypes: ['on-demand'] }) }),
    );

    expect(fleetCalls()[0]).toMatchObject({
      TargetCapacitySpecification: { DefaultTargetCapacityType: 'on-demand' },
      OnDemandOptions: { AllocationStrategy: 'lowest-price' },
    });
    expect(launched).toMatchObject({ instanceType: 'm5.large', capacityType: 'on-demand' });
    // lowest-price tries the cheapest pools first (m6g.large, same price in both zones) and reports them.
    expect([...unavailable.keys()].sort()).toEqual([
      offeringKey('m6g.large', 'us-east-1a', 'on-demand'),
      offeringKey('m6g.large', 'us-east-1b', 'on-demand'),
    ]);
  });

  it('throws InsufficientCapacityError listing every refused offering when nothing launches, and marks them all', async () => {
    const { launcher, fake, instanceTypes, unavailable } = await world();
    fake.capacity.setCapacity({ capacityType: 'spot' }, 0);

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InsufficientCapacityError);
    const ice = error as InsufficientCapacityError;
    expect(ice.nodeClaim).toBe('default-x7k2');
    const refusedByEc2 = ice.refused.filter((r) => r.code === 'InsufficientInstanceCapacity');
    expect(refusedByEc2.map((r) => `${r.instanceType} ${r.zone} ${r.capacityType}`).sort()).toEqual([
      'c5.xlarge us-east-1a spot',
      'c5.xlarge us-east-1b spot',
      'm5.large us-east-1a spot',
      'm5.large us-east-1b spot',
      'm6g.large us-east-1a spot',
      'm6g.large us-east-1b spot',
    ]);
    // Zone c was never asked for: no subnet there.
    expect(ice.refused.filter((r) => r.code === 'NoSubnetInZone').map((r) => r.zone)).toEqual([
      'us-east-1c',
      'us-east-1c',
      'us-east-1c',
    ]);
    expect(ice.message).toContain('launching NodeClaim default-x7k2');
    expect(unavailable.keys().size).toBe(6);
    expect(fake.listInstances()).toEqual([]);
  });

  it('treats MaxFleetCountExceeded as insufficient capacity, as Karpenter does, and marks the offerings', async () => {
    const { launcher, fake, instanceTypes, unavailable } = await world();
    fake.capacity.injectLaunchError({}, 'MaxFleetCountExceeded', 10, 'Fleet quota exceeded');

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InsufficientCapacityError);
    expect(unavailable.list().map((u) => u.reason)).toContain('MaxFleetCountExceeded');
    expect(unavailable.keys().size).toBe(6);
  });

  it('does not call EC2 when every offering is already known to be unavailable', async () => {
    const { launcher, instanceTypes, unavailable, fleetCalls } = await world();
    for (const type of ['m6g.large', 'm5.large'])
      for (const zone of ['us-east-1a', 'us-east-1b'])
        for (const ct of ['spot', 'on-demand'] as const)
          unavailable.mark(type, zone, ct, 'InsufficientInstanceCapacity');

    const error = await launcher
      .launch(launchRequest(instanceTypes, { types: ['m6g.large', 'm5.large'] }))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InsufficientCapacityError);
    expect((error as InsufficientCapacityError).refused).toContainEqual(
      expect.objectContaining({ instanceType: 'm5.large', zone: 'us-east-1b', code: 'OfferingUnavailable' }),
    );
    expect(fleetCalls()).toEqual([]);
  });

  it('falls back to on-demand when no option has an available spot offering', async () => {
    const { launcher, fake, instanceTypes, unavailable, fleetCalls, templates } = await world();
    for (const zone of ['us-east-1a', 'us-east-1b', 'us-east-1c'])
      for (const type of ['m6g.large', 'm5.large'])
        unavailable.mark(type, zone, 'spot', 'InsufficientInstanceCapacity');

    const launched = await launcher.launch(
      launchRequest(instanceTypes, { types: ['m6g.large', 'm5.large'] }),
    );

    // The launch templates label the node with the capacity type the fleet buys.
    expect(templates.calls[0].options.map((o) => o.capacityType)).toEqual(['on-demand', 'on-demand']);

    expect(fleetCalls()[0]).toMatchObject({
      TargetCapacitySpecification: { DefaultTargetCapacityType: 'on-demand' },
      OnDemandOptions: { AllocationStrategy: 'lowest-price' },
    });
    expect(launched).toMatchObject({ instanceType: 'm6g.large', capacityType: 'on-demand' });
    expect(fake.instance(launched.instanceId)?.InstanceLifecycle).toBeUndefined();
  });

  it('launches on-demand only when the NodeClaim does not allow spot, as Karpenter does by default', async () => {
    const { launcher, instanceTypes } = await world();
    const launched = await launcher.launch(
      launchRequest(instanceTypes, { nodeClaim: nodeClaim({ capacityTypes: null }) }),
    );
    expect(launched.capacityType).toBe('on-demand');
  });

  it('retries a throttled CreateFleet with growing jittered backoff, then launches', async () => {
    const { launcher, fake, instanceTypes, sleeps, fleetCalls } = await world();
    fake.throttle('CreateFleet', 3);

    const launched = await launcher.launch(launchRequest(instanceTypes));

    expect(fake.instance(launched.instanceId)?.InstanceType).toBe(launched.instanceType);
    expect(fleetCalls()).toHaveLength(4);
    expect(sleeps).toEqual([50, 100, 200]);
    expect(fake.listInstances()).toHaveLength(1);
  });

  it('gives up with a retryable CloudError when the invocation runs out of time while throttled', async () => {
    const { launcher, fake, instanceTypes, sleeps } = await world({ deadlineMs: 3200 });
    fake.throttle('CreateFleet', 50);

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'RequestLimitExceeded', retryable: true });
    expect((error as Error).message).toMatch(
      /^launching NodeClaim default-x7k2 \(m6g\.large, us-east-1a, \+5 offerings\): RequestLimitExceeded: .*gave up after 3 attempts: 3050 ms of the invocation left/,
    );
    expect(sleeps).toEqual([50, 100]);
    expect(fake.listInstances()).toEqual([]);
  });

  it('throws a CloudError naming the NodeClaim and instance type when EC2 refuses for another reason', async () => {
    const { launcher, fake, instanceTypes } = await world();
    fake.capacity.injectLaunchError({}, 'InvalidParameterValue', 10, 'Invalid value for BlockDeviceMapping');

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CloudError);
    expect(error).not.toBeInstanceOf(InsufficientCapacityError);
    expect((error as CloudError).code).toBe('InvalidParameterValue');
    expect((error as Error).message).toMatch(
      /^launching NodeClaim default-x7k2 \((m6g\.large|m5\.large|c5\.xlarge), us-east-1[ab]\): InvalidParameterValue: Invalid value for BlockDeviceMapping \(and 5 more refused offerings\)$/,
    );
  });

  it('forgets its launch templates, tries once more, and says to retry when EC2 still does not know one', async () => {
    const { launcher, fake, instanceTypes, templates, fleetCalls } = await world();
    fake.capacity.injectLaunchError({}, 'InvalidLaunchTemplateName.NotFoundException', 10, 'not found');

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toMatchObject({
      name: 'CloudError',
      code: 'InvalidLaunchTemplateName.NotFoundException',
      retryable: true,
    });
    const names = templates.templates.map((t) => t.launchTemplateName);
    expect(templates.invalidated).toStrictEqual([...names, ...names]);
    expect(fleetCalls()).toHaveLength(2);
  });

  it('does not retry an error that is not transient', async () => {
    const { launcher, fake, instanceTypes, fleetCalls, sleeps } = await world();
    fake.failNext('CreateFleet', 'UnauthorizedOperation', { message: 'You are not authorized' });

    const error = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'CloudError', code: 'UnauthorizedOperation', retryable: false });
    expect((error as Error).message).toContain('launching NodeClaim default-x7k2 (m6g.large, us-east-1a');
    expect(fleetCalls()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});
