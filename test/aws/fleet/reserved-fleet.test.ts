import { describe, expect, it } from 'vitest';
import { fleetCapacityType, planFleet } from '../../../shared/aws/fleet/fleet-plan';
import { createFleetInput, defaultTargetCapacityType } from '../../../shared/aws/fleet/fleet-request';
import type { InstanceTypeOption } from '../../../shared/core/catalog/instance-type';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { withReservedOfferings } from '../../../shared/core/catalog/reserved-offerings';
import type { ResolvedCapacityReservation } from '../../../shared/core/model/ec2nodeclass-status';
import { LABEL_ARCH, LABEL_CAPACITY_RESERVATION_ID } from '../../../shared/core/model/labels';
import type { LaunchTemplateRef } from '../../../shared/core/ports/launch-templates';
import { launchInstanceTypes, RESOLVED_SUBNETS } from '../../../sim/world/aws/launch-world';
import { nodeClaim } from '../../../sim/world/builders';

/**
 * A reserved CreateFleet: aws/karpenter-provider-aws pkg/providers/instance/instance.go
 * `getCapacityType` (reserved, spot, on-demand) and `launchInstance`, types.go
 * `defaultTargetCapacityType`.
 */

const AMD64: LaunchTemplateRef = {
  launchTemplateName: 'amd64',
  imageId: 'ami-amd64',
  requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['amd64'] }],
};

function reservation(id: string, zone: string, overrides: Partial<ResolvedCapacityReservation> = {}) {
  return {
    id,
    instanceType: 'm5.large',
    availabilityZone: zone,
    ownerID: '123456789012',
    instanceMatchCriteria: 'targeted',
    reservationType: 'default',
    state: 'active',
    interruptible: false,
    availableInstanceCount: 2,
    ...overrides,
  } satisfies ResolvedCapacityReservation;
}

const reservations = [
  reservation('cr-0000000000000000b', 'us-east-1b'),
  reservation('cr-0000000000000000a', 'us-east-1a'),
];
const types = new Map(
  withReservedOfferings([...launchInstanceTypes().values()], reservations).map((it) => [it.name, it]),
);
const options: InstanceTypeOption[] = [
  { name: 'm5.large', price: 0, capacityType: 'reserved', zone: 'us-east-1a' },
];
const base = { instanceTypes: types, subnets: RESOLVED_SUBNETS, options, unavailable: new Set<string>() };
const reserved = (ids: string[]) =>
  nodeClaim({
    capacityTypes: ['reserved'],
    requirements: [{ key: LABEL_CAPACITY_RESERVATION_ID, operator: 'In', values: ids }],
  });

describe('a reserved fleet', () => {
  it('asks for one reservation: the cheapest the NodeClaim was promised, ties by zone', () => {
    const plan = planFleet({
      ...base,
      nodeClaim: reserved(['cr-0000000000000000a', 'cr-0000000000000000b']),
      launchTemplates: [AMD64],
    });
    expect(plan.capacityType).toBe('reserved');
    expect(plan.capacityReservation).toStrictEqual({
      id: 'cr-0000000000000000a',
      type: 'default',
      interruptible: false,
    });
    expect(plan.configs.flatMap((c) => c.overrides.map((o) => [o.instanceType, o.zone]))).toStrictEqual([
      ['m5.large', 'us-east-1a'],
    ]);
    // Only the reservations the NodeClaim was promised.
    const onlyB = fleetCapacityType({ ...base, nodeClaim: reserved(['cr-0000000000000000b']) });
    expect(onlyB.capacityReservation?.id).toBe('cr-0000000000000000b');
  });

  it('skips a reservation EC2 refused, and launches on-demand when the NodeClaim allows it and none is left', () => {
    const refusedA = new Set([offeringKey('m5.large', 'us-east-1a', 'reserved')]);
    expect(
      fleetCapacityType({
        ...base,
        unavailable: refusedA,
        nodeClaim: reserved(['cr-0000000000000000a', 'cr-0000000000000000b']),
      }).capacityReservation?.id,
    ).toBe('cr-0000000000000000b');
    const both = new Set([...refusedA, offeringKey('m5.large', 'us-east-1b', 'reserved')]);
    const claim = nodeClaim({ capacityTypes: ['reserved', 'on-demand'] });
    const withOnDemand = [
      ...options,
      { name: 'm5.large', price: 0.096, capacityType: 'on-demand' as const, zone: 'us-east-1a' },
    ];
    expect(
      fleetCapacityType({ ...base, options: withOnDemand, unavailable: both, nodeClaim: claim }),
    ).toStrictEqual({
      capacityType: 'on-demand',
    });
  });

  it.each([
    [{ type: 'capacity-block', interruptible: false }, 'capacity-block'],
    [{ type: 'default', interruptible: true }, 'reserved-capacity'],
    [{ type: 'default', interruptible: false }, 'on-demand'],
  ] as const)('asks CreateFleet for DefaultTargetCapacityType of %o: %s', (r, expected) => {
    const plan = {
      capacityType: 'reserved' as const,
      capacityReservation: { id: 'cr-0000000000000000a', ...r },
    };
    expect(defaultTargetCapacityType(plan)).toBe(expected);
    expect(createFleetInput({ plan: { ...plan, configs: [] }, tags: {} }).OnDemandOptions).toStrictEqual({
      AllocationStrategy: 'lowest-price',
    });
  });
});
