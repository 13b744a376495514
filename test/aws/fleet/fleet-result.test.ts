import { describe, expect, it } from 'vitest';
import type { FleetPlan } from '../../../shared/aws/fleet/fleet-plan';
import { readFleetOutput, UNFULFILLABLE_CAPACITY_CODES } from '../../../shared/aws/fleet/fleet-result';

const plan: Pick<FleetPlan, 'capacityType' | 'configs'> = {
  capacityType: 'spot',
  configs: [
    {
      template: { launchTemplateName: 'lt', imageId: 'ami-1', requirements: [] },
      overrides: [
        { instanceType: 'm5.large', zone: 'us-east-1a', subnetId: 'subnet-a', imageId: 'ami-1', price: 0.03 },
        { instanceType: 'm5.large', zone: 'us-east-1b', subnetId: 'subnet-b', imageId: 'ami-1', price: 0.04 },
      ],
    },
  ],
};

describe('readFleetOutput', () => {
  it('reads a partly fulfilled fleet: instances launched, capacity refusals and other errors apart', () => {
    const outcome = readFleetOutput(
      {
        Instances: [
          {
            InstanceIds: ['i-0000000000000000a', 'i-0000000000000000b'],
            InstanceType: 'm5.large',
            Lifecycle: 'spot',
            LaunchTemplateAndOverrides: { Overrides: { SubnetId: 'subnet-b', ImageId: 'ami-1' } },
          },
        ],
        Errors: [
          {
            ErrorCode: 'InsufficientInstanceCapacity',
            ErrorMessage: 'There is no Spot capacity available that matches your request.',
            Lifecycle: 'spot',
            LaunchTemplateAndOverrides: {
              Overrides: { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a' },
            },
          },
          {
            ErrorCode: 'InvalidLaunchTemplateName.NotFoundException',
            LaunchTemplateAndOverrides: { Overrides: { InstanceType: 'c5.large', SubnetId: 'subnet-a' } },
          },
        ],
      },
      plan,
    );

    expect(outcome.launched).toStrictEqual({
      instanceId: 'i-0000000000000000a',
      instanceType: 'm5.large',
      zone: 'us-east-1b',
      capacityType: 'spot',
      imageId: 'ami-1',
    });
    expect(outcome.extra.map((i) => i.instanceId)).toStrictEqual(['i-0000000000000000b']);
    expect(outcome.refused).toStrictEqual([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        code: 'InsufficientInstanceCapacity',
        message: 'There is no Spot capacity available that matches your request.',
      },
    ]);
    expect(outcome.failed).toStrictEqual([
      {
        instanceType: 'c5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        code: 'InvalidLaunchTemplateName.NotFoundException',
      },
    ]);
  });

  it("treats every one of Karpenter's unfulfillable-capacity codes as a capacity refusal", () => {
    const codes = [
      'InsufficientInstanceCapacity',
      'MaxSpotInstanceCountExceeded',
      'VcpuLimitExceeded',
      'UnfulfillableCapacity',
      'Unsupported',
      'InsufficientFreeAddressesInSubnet',
      'MaxFleetCountExceeded',
      'ReservationCapacityExceeded',
    ];
    expect([...UNFULFILLABLE_CAPACITY_CODES].sort()).toStrictEqual([...codes].sort());
    const outcome = readFleetOutput(
      {
        Errors: [...codes, 'SpotMaxPriceTooLow'].map((ErrorCode) => ({
          ErrorCode,
          LaunchTemplateAndOverrides: {
            Overrides: { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a' },
          },
        })),
      },
      plan,
    );
    expect(outcome.launched).toBeUndefined();
    expect(outcome.refused.map((r) => r.code)).toStrictEqual(codes);
    expect(outcome.failed.map((r) => r.code)).toStrictEqual(['SpotMaxPriceTooLow']);
  });
});
