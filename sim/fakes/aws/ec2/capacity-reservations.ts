import type {
  CapacityReservation,
  CapacityReservationInstancePlatform,
  CapacityReservationState,
  CapacityReservationType,
  DescribeCapacityReservationsCommandInput,
  DescribeCapacityReservationsCommandOutput,
  InstanceMatchCriteria,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import { filtered, page } from './listing';

/** A capacity reservation to seed. */
export interface CapacityReservationSeed {
  /** @default a new `cr-…` id */
  readonly id?: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly totalInstanceCount: number;
  /** @default totalInstanceCount */
  readonly availableInstanceCount?: number;
  /** @default 'targeted' */
  readonly instanceMatchCriteria?: InstanceMatchCriteria;
  /** @default 'default' */
  readonly reservationType?: CapacityReservationType;
  /** @default 'active' */
  readonly state?: CapacityReservationState;
  /** Epoch ms. @default none (unlimited) */
  readonly endDate?: number;
  /** @default the fake's account */
  readonly ownerId?: string;
  readonly interruptible?: boolean;
  readonly tags?: Readonly<Record<string, string>>;
}

const CAPACITY_RESERVATION_FILTERS = {
  'instance-type': (r: CapacityReservation) => [r.InstanceType],
  'availability-zone': (r: CapacityReservation) => [r.AvailabilityZone],
  'owner-id': (r: CapacityReservation) => [r.OwnerId],
  state: (r: CapacityReservation) => [r.State],
  'instance-match-criteria': (r: CapacityReservation) => [r.InstanceMatchCriteria],
  'instance-platform': (r: CapacityReservation) => [r.InstancePlatform],
  tenancy: (r: CapacityReservation) => [r.Tenancy],
};

/** DescribeCapacityReservations page size rules: 5 to 1000, all by default. */
const PAGE_RULES = { defaultSize: Infinity, min: 5, max: 1000 };

/**
 * The account's On-Demand Capacity Reservations and Capacity Blocks, as
 * DescribeCapacityReservations shows them. An id EC2 does not know fails the call with
 * InvalidCapacityReservationId.NotFound, and ids cannot be combined with MaxResults, as in EC2.
 */
export class Ec2CapacityReservations {
  private readonly reservations = new Map<string, CapacityReservation>();

  constructor(private readonly context: Ec2Context) {}

  /** Creates a reservation and returns it as EC2 describes it. */
  add(seed: CapacityReservationSeed): CapacityReservation {
    const { region, accountId, clock } = this.context;
    const id = seed.id ?? `cr-${this.context.hexId(17)}`;
    const ownerId = seed.ownerId ?? accountId;
    const reservation: CapacityReservation = {
      CapacityReservationId: id,
      CapacityReservationArn: `arn:aws:ec2:${region}:${ownerId}:capacity-reservation/${id}`,
      OwnerId: ownerId,
      InstanceType: seed.instanceType,
      InstancePlatform: 'Linux/UNIX' as CapacityReservationInstancePlatform,
      AvailabilityZone: seed.availabilityZone,
      AvailabilityZoneId: this.context.zoneId(seed.availabilityZone),
      Tenancy: 'default',
      TotalInstanceCount: seed.totalInstanceCount,
      AvailableInstanceCount: seed.availableInstanceCount ?? seed.totalInstanceCount,
      InstanceMatchCriteria: seed.instanceMatchCriteria ?? 'targeted',
      ReservationType: seed.reservationType ?? 'default',
      State: seed.state ?? 'active',
      StartDate: new Date(clock.now()),
      EndDateType: seed.endDate === undefined ? 'unlimited' : 'limited',
      ...(seed.endDate === undefined ? {} : { EndDate: new Date(seed.endDate) }),
      ...(seed.interruptible === undefined ? {} : { Interruptible: seed.interruptible }),
      Tags: Object.entries(seed.tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
    };
    this.reservations.set(id, reservation);
    return structuredClone(reservation);
  }

  describeCapacityReservations(
    input: DescribeCapacityReservationsCommandInput,
  ): OperationOutput<DescribeCapacityReservationsCommandOutput> {
    const { fail } = this.context;
    const ids = input.CapacityReservationIds ?? [];
    if (ids.length > 0 && input.MaxResults !== undefined) {
      throw fail(
        'InvalidParameterCombination',
        'The parameter capacityReservationIdSet cannot be used with the parameter maxResults',
      );
    }
    for (const id of ids) {
      if (!this.reservations.has(id))
        throw fail(
          'InvalidCapacityReservationId.NotFound',
          `The capacity reservation ID '${id}' does not exist`,
        );
    }
    const wanted = ids.length > 0 ? new Set(ids) : undefined;
    const selected = filtered(
      fail,
      [...this.reservations.values()].filter(
        (r) => wanted === undefined || wanted.has(r.CapacityReservationId!),
      ),
      input.Filters,
      CAPACITY_RESERVATION_FILTERS,
    );
    const listed = page(fail, selected, input, PAGE_RULES, 'DescribeCapacityReservations');
    return { CapacityReservations: structuredClone(listed.items), NextToken: listed.nextToken };
  }
}
