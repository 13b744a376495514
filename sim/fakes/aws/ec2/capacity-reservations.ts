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
import type { Refusal } from './fleet-pools';
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

/**
 * What EC2 answers for a launch into a reservation without room or of another instance type or
 * zone (the text of EC2's ReservationCapacityExceeded, as RunInstances and CreateFleet give it).
 */
export const RESERVATION_CAPACITY_EXCEEDED: Refusal = {
  code: 'ReservationCapacityExceeded',
  message:
    'The requested reservation does not have sufficient compatible and available capacity for this request.',
};

/**
 * How long before a Capacity Block ends EC2 starts reclaiming its instances (30 minutes; Karpenter
 * drains them 10 minutes earlier, aws/karpenter-provider-aws pkg/controllers/capacityreservation/
 * expiration/controller.go).
 */
export const CAPACITY_BLOCK_RECLAIM_MS = 30 * 60_000;

/** DescribeCapacityReservations page size rules: 5 to 1000, all by default. */
const PAGE_RULES = { defaultSize: Infinity, min: 5, max: 1000 };

/**
 * The account's On-Demand Capacity Reservations and Capacity Blocks, as
 * DescribeCapacityReservations shows them. An id EC2 does not know fails the call with
 * InvalidCapacityReservationId.NotFound, and ids cannot be combined with MaxResults, as in EC2.
 * AvailableInstanceCount is derived: the count free at seeding less the live instances launched
 * into the reservation since, so a terminated instance gives its slot back; a reservation past
 * its EndDate is `expired`.
 */
export class Ec2CapacityReservations {
  private readonly reservations = new Map<string, CapacityReservation>();
  /** Slots taken when seeded (Total − Available of the seed). */
  private readonly takenAtSeed = new Map<string, number>();

  /** @param liveIn live (not terminated) instances launched into a reservation */
  constructor(
    private readonly context: Ec2Context,
    private readonly liveIn: (reservationId: string) => number = () => 0,
  ) {}

  /** The reservation as EC2 shows it now, or undefined for an id it does not know. */
  find(id: string): CapacityReservation | undefined {
    const r = this.reservations.get(id);
    return r === undefined ? undefined : this.render(r);
  }

  /** Instances the reservation can still take now (0 once it is not active). */
  available(id: string): number {
    const r = this.find(id);
    return r === undefined || r.State !== 'active' ? 0 : (r.AvailableInstanceCount ?? 0);
  }

  /**
   * Why a launch of `instanceType` in `zone` cannot go into reservation `id`: unknown
   * (InvalidCapacityReservationId.NotFound), or not active, of another type or zone, or full
   * (ReservationCapacityExceeded); a Capacity Block also needs the launch's market type
   * `capacity-block` (EC2 launches into a block only so).
   */
  refusal(
    id: string,
    instanceType: string,
    zone: string,
    marketType: string | undefined,
  ): Refusal | undefined {
    const r = this.find(id);
    if (r === undefined) {
      return {
        code: 'InvalidCapacityReservationId.NotFound',
        message: `The capacity reservation ID '${id}' does not exist`,
      };
    }
    if (r.ReservationType === 'capacity-block' && marketType !== 'capacity-block') {
      return {
        code: 'InvalidParameterCombination',
        message: `Capacity Block ${id} can only be targeted with the market type capacity-block.`,
      };
    }
    if (r.InstanceType !== instanceType || r.AvailabilityZone !== zone || this.available(id) <= 0) {
      return RESERVATION_CAPACITY_EXCEEDED;
    }
    return undefined;
  }

  /**
   * The `open` On-Demand Capacity Reservation with room an untargeted on-demand launch of
   * `instanceType` in `zone` runs in, as EC2 places launches whose preference is `open` (its
   * default); undefined when none matches.
   */
  openFor(instanceType: string, zone: string): string | undefined {
    for (const r of this.reservations.values()) {
      const id = r.CapacityReservationId!;
      if (
        r.InstanceMatchCriteria === 'open' &&
        r.ReservationType !== 'capacity-block' &&
        r.InstanceType === instanceType &&
        r.AvailabilityZone === zone &&
        this.available(id) > 0
      )
        return id;
    }
    return undefined;
  }

  private render(r: CapacityReservation): CapacityReservation {
    const now = this.context.clock.now();
    const expired = r.EndDate !== undefined && now >= r.EndDate.getTime();
    const id = r.CapacityReservationId!;
    const free = (r.TotalInstanceCount ?? 0) - (this.takenAtSeed.get(id) ?? 0) - this.liveIn(id);
    return {
      ...structuredClone(r),
      AvailableInstanceCount: Math.max(0, free),
      ...(expired && r.State === 'active' ? { State: 'expired' as CapacityReservationState } : {}),
    };
  }

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
    this.takenAtSeed.set(
      id,
      seed.totalInstanceCount - (seed.availableInstanceCount ?? seed.totalInstanceCount),
    );
    return this.render(reservation);
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
      [...this.reservations.values()]
        .filter((r) => wanted === undefined || wanted.has(r.CapacityReservationId!))
        .map((r) => this.render(r)),
      input.Filters,
      CAPACITY_RESERVATION_FILTERS,
    );
    const listed = page(fail, selected, input, PAGE_RULES, 'DescribeCapacityReservations');
    return { CapacityReservations: structuredClone(listed.items), NextToken: listed.nextToken };
  }
}
