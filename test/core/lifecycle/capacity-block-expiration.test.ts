import { describe, expect, it } from 'vitest';
import { expiringCapacityBlockClaims } from '../../../shared/core/lifecycle/capacity-block-expiration';
import type {
  EC2NodeClassStatus,
  ResolvedCapacityReservation,
} from '../../../shared/core/model/ec2nodeclass-status';
import { LABEL_CAPACITY_RESERVATION_ID } from '../../../shared/core/model/labels';
import { nodeClaim } from '../../../sim/world/builders';

/**
 * Which NodeClaims go before their Capacity Block ends, derived from aws/karpenter-provider-aws
 * pkg/controllers/capacityreservation/expiration/suite_test.go (the expiring state itself is
 * resolution's, CapacityReservationFromEC2: test/aws/nodeclass/capacity-reservations.test.ts).
 */

function reservation(
  id: string,
  overrides: Partial<ResolvedCapacityReservation> = {},
): ResolvedCapacityReservation {
  return {
    id,
    instanceType: 'p5.48xlarge',
    availabilityZone: 'us-east-1a',
    ownerID: '123456789012',
    instanceMatchCriteria: 'targeted',
    reservationType: 'capacity-block',
    state: 'active',
    interruptible: false,
    endTime: '2026-11-27T16:00:00Z',
    availableInstanceCount: 0,
    ...overrides,
  };
}

function statuses(...reservations: ResolvedCapacityReservation[]): Map<string, EC2NodeClassStatus> {
  return new Map([
    [
      'default',
      { subnets: [], securityGroups: [], amis: [], conditions: [], capacityReservations: reservations },
    ],
  ]);
}

const claimIn = (id: string, extra: Parameters<typeof nodeClaim>[0] = {}) =>
  nodeClaim({ name: id, labels: { [LABEL_CAPACITY_RESERVATION_ID]: id }, ...extra });

describe('expiringCapacityBlockClaims (capacityreservation.expiration Reconcile)', () => {
  it('deletes the NodeClaims of expiring capacity blocks and keeps those of active ones', () => {
    const out = expiringCapacityBlockClaims(
      [claimIn('cr-expiring'), claimIn('cr-active'), nodeClaim({ name: 'on-demand' })],
      statuses(reservation('cr-expiring', { state: 'expiring' }), reservation('cr-active')),
    );
    expect(out).toStrictEqual([
      { nodeClaim: 'cr-expiring', capacityReservationId: 'cr-expiring', endTime: '2026-11-27T16:00:00Z' },
    ]);
  });

  it('keeps NodeClaims of standard reservations, already deleting ones, and reservations it does not know', () => {
    const out = expiringCapacityBlockClaims(
      [
        claimIn('cr-default'),
        claimIn('cr-gone', { deletionTimestamp: '2026-11-27T15:00:00Z' }),
        claimIn('cr-unknown'),
      ],
      statuses(
        reservation('cr-default', { reservationType: 'default' }),
        reservation('cr-gone', { state: 'expiring' }),
      ),
    );
    expect(out).toStrictEqual([]);
  });
});
