import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import {
  RESERVED_PRICE_DIVISOR,
  withReservedOfferings,
} from '../../../shared/core/catalog/reserved-offerings';
import type { ResolvedCapacityReservation } from '../../../shared/core/model/ec2nodeclass-status';
import {
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
} from '../../../shared/core/model/labels';
import { nodeClaimRequirements } from '../../../shared/core/provisioning/claim-options';
import { planCapacity } from '../../../shared/core/scheduling/plan-capacity';
import type { ProvisioningInput } from '../../../shared/core/scheduling/types';
import { nodePool, pods } from '../../../sim/world/builders';
import { catalog, defaultNodeClass, instanceTypes } from './fixtures';

/**
 * Reserved capacity in the scheduler, derived from kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/scheduling/suite_test.go "Reserved Instance Types" and
 * aws/karpenter-provider-aws pkg/providers/instancetype/offering/reserved_capacity_resolver.go.
 */

function reservation(overrides: Partial<ResolvedCapacityReservation> = {}): ResolvedCapacityReservation {
  return {
    id: 'cr-0123456789abcdef0',
    instanceType: 'm5.xlarge',
    availabilityZone: 'us-east-1a',
    ownerID: '123456789012',
    instanceMatchCriteria: 'targeted',
    reservationType: 'default',
    state: 'active',
    interruptible: false,
    availableInstanceCount: 3,
    ...overrides,
  };
}

const ONLY_M5_XLARGE = { key: LABEL_INSTANCE_TYPE, operator: 'In' as const, values: ['m5.xlarge'] };
const RESERVED_OR_ON_DEMAND = {
  key: LABEL_CAPACITY_TYPE,
  operator: 'In' as const,
  values: ['reserved', 'on-demand'],
};

function input(count: number, requirements = [ONLY_M5_XLARGE, RESERVED_OR_ON_DEMAND]): ProvisioningInput {
  // 3 vCPU: one pod per m5.xlarge.
  return {
    pods: pods(count, { cpu: '3' }),
    daemonSets: [],
    nodes: [],
    nodePools: [nodePool({ requirements })],
    nodeClasses: [defaultNodeClass],
  };
}

const reservations = (...rs: ResolvedCapacityReservation[]) => new Map([[defaultNodeClass.name, rs]]);

describe('withReservedOfferings (ReservedCapacityResolver.ResolveOfferings)', () => {
  it('adds one reserved offering per reservation, priced at on-demand / 10,000,000, and widens the labels', () => {
    const types = withReservedOfferings(instanceTypes, [reservation()]);
    const m5 = types.find((it) => it.name === 'm5.xlarge')!;
    const onDemand = m5.offerings.find((o) => o.capacityType === 'on-demand')!.price;
    expect(m5.offerings.filter((o) => o.capacityType === 'reserved')).toStrictEqual([
      {
        zone: 'us-east-1a',
        capacityType: 'reserved',
        price: onDemand / RESERVED_PRICE_DIVISOR,
        available: true,
        reservation: { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false, capacity: 3 },
      },
    ]);
    expect(m5.requirements.get(LABEL_CAPACITY_TYPE)?.has('reserved')).toBe(true);
    expect(m5.requirements.get(LABEL_CAPACITY_TYPE)?.has('on-demand')).toBe(true);
    expect(m5.requirements.get(LABEL_CAPACITY_RESERVATION_ID)?.single).toBe('cr-0123456789abcdef0');
    // Other types are untouched, and no reservations gives the same array back.
    expect(types.find((it) => it.name === 'm5.large')).toBe(
      instanceTypes.find((it) => it.name === 'm5.large'),
    );
    expect(withReservedOfferings(instanceTypes, [])).toBe(instanceTypes);
  });

  it.each([
    ['no free instance', { availableInstanceCount: 0 }],
    [
      'an expiring Capacity Block',
      { state: 'expiring' as const, reservationType: 'capacity-block' as const },
    ],
    ['a zone the type is not offered in', { availabilityZone: 'us-east-1z' }],
  ])('makes the offering unavailable for %s', (_why, overrides) => {
    const m5 = withReservedOfferings(instanceTypes, [reservation(overrides)]).find(
      (it) => it.name === 'm5.xlarge',
    )!;
    expect(m5.offerings.find((o) => o.capacityType === 'reserved')?.available).toBe(false);
  });

  it('makes the offering unavailable after EC2 refused it (ReservationCapacityExceeded)', () => {
    const refused = new Set([offeringKey('m5.xlarge', 'us-east-1a', 'reserved')]);
    const m5 = withReservedOfferings(instanceTypes, [reservation()], refused).find(
      (it) => it.name === 'm5.xlarge',
    )!;
    expect(m5.offerings.find((o) => o.capacityType === 'reserved')?.available).toBe(false);
  });
});

describe('planCapacity with reserved capacity', () => {
  it('fills the reservation first and plans the pods beyond its free count on-demand', () => {
    const result = planCapacity(input(4), catalog, { reservations: reservations(reservation()) });
    const byType = result.nodeClaims.map((c) => [c.instanceType, c.capacityType, c.reservationIds]);
    expect(byType).toStrictEqual([
      ['m5.xlarge', 'reserved', ['cr-0123456789abcdef0']],
      ['m5.xlarge', 'reserved', ['cr-0123456789abcdef0']],
      ['m5.xlarge', 'reserved', ['cr-0123456789abcdef0']],
      ['m5.xlarge', 'on-demand', undefined],
    ]);
    const reserved = nodeClaimRequirements(result.nodeClaims[0]!);
    expect(reserved.get(LABEL_CAPACITY_TYPE)?.values).toStrictEqual(new Set(['reserved']));
    expect(reserved.get(LABEL_CAPACITY_RESERVATION_ID)?.values).toStrictEqual(
      new Set(['cr-0123456789abcdef0']),
    );
    expect(nodeClaimRequirements(result.nodeClaims[3]!).has(LABEL_CAPACITY_RESERVATION_ID)).toBe(false);
  });

  it('shares one reservation between NodePools of the same EC2NodeClass ("shared across nodepools")', () => {
    const two: ProvisioningInput = {
      ...input(0),
      pods: [
        ...pods(1, { cpu: '3', nodeSelector: { 'karpenter.sh/nodepool': 'a' } }),
        ...pods(1, { cpu: '3', nodeSelector: { 'karpenter.sh/nodepool': 'b' } }),
      ],
      nodePools: [
        nodePool({ name: 'a', requirements: [ONLY_M5_XLARGE, RESERVED_OR_ON_DEMAND] }),
        nodePool({ name: 'b', requirements: [ONLY_M5_XLARGE, RESERVED_OR_ON_DEMAND] }),
      ],
    };
    const result = planCapacity(two, catalog, {
      reservations: reservations(reservation({ availableInstanceCount: 1 })),
    });
    expect(result.nodeClaims.map((c) => c.capacityType).sort()).toStrictEqual(['on-demand', 'reserved']);
  });

  it('launches no reserved capacity when the NodePool does not allow `reserved`', () => {
    const onDemandOnly = [ONLY_M5_XLARGE, { ...RESERVED_OR_ON_DEMAND, values: ['on-demand'] }];
    const result = planCapacity(input(2, onDemandOnly), catalog, {
      reservations: reservations(reservation()),
    });
    expect(result.nodeClaims.map((c) => c.capacityType)).toStrictEqual(['on-demand', 'on-demand']);
  });

  it('honours a pod that selects a reservation by id, and never launches it elsewhere', () => {
    const pinned: ProvisioningInput = {
      ...input(0),
      pods: pods(2, { cpu: '3', nodeSelector: { [LABEL_CAPACITY_RESERVATION_ID]: 'cr-0123456789abcdef0' } }),
    };
    const result = planCapacity(pinned, catalog, {
      reservations: reservations(reservation({ availableInstanceCount: 1 })),
    });
    expect(result.nodeClaims.map((c) => c.capacityType)).toStrictEqual(['reserved']);
    expect(result.unschedulable).toHaveLength(1);
  });
});
