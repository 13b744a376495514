import type {
  DescribeInstancesCommandInput,
  DescribeInstancesCommandOutput,
  Instance,
  InstanceState,
  InstanceStateName,
  Reservation,
  StateReason,
  Tag,
  TerminateInstancesCommandInput,
  TerminateInstancesCommandOutput,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import { CAPACITY_BLOCK_RECLAIM_MS } from './capacity-reservations';
import type { Ec2Context } from './context';
import type { FilterFields } from './filters';
import type { CapacityType, Pool } from './fleet-capacity';
import { type InstanceLaunch, launchedInstance } from './instance-launch';
import { checkFilters, matches, PAGES, page } from './listing';
import type { Ec2Network } from './network';

/** How long instance state transitions take on the fake's clock. */
export interface InstanceTimings {
  /** pending → running. @default 15 s */
  readonly pendingMs?: number;
  /** shutting-down → terminated. @default 30 s */
  readonly shuttingDownMs?: number;
  /** How long terminated instances stay visible to DescribeInstances. @default 1 h */
  readonly terminatedVisibleMs?: number;
}

/** What `reclaimSpot` scheduled. */
export interface SpotReclaim {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  /** When the two-minute warning is given (now). */
  readonly noticeTime: number;
  /** When the instance starts shutting down. */
  readonly terminationTime: number;
}

interface InstanceRecord {
  readonly instance: Instance;
  readonly reservationId: string;
  readonly capacityType: CapacityType;
  readonly vcpus: number;
  readonly launchedAt: number;
  readonly volumeTags: Tag[];
  /** The launch template's UserData (base64), as DescribeInstanceAttribute userData returns it. */
  readonly userData: string | undefined;
  terminatingAt?: number;
  stateReason?: StateReason;
  reclaimAt?: number;
  /** Why the instance goes at `reclaimAt` (a spot reclaim unless a retirement said otherwise). */
  reclaimReason?: StateReason;
  /** The capacity reservation it runs in, whose slot it takes while live. */
  readonly capacityReservationId?: string;
}

const STATE_CODES: Readonly<Record<InstanceStateName, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

const INSTANCE_FILTERS: FilterFields<Instance> = {
  'instance-id': (i) => [i.InstanceId],
  'instance-type': (i) => [i.InstanceType],
  'instance-state-name': (i) => [i.State?.Name],
  'instance-state-code': (i) => [i.State?.Code?.toString()],
  'instance-lifecycle': (i) => [i.InstanceLifecycle],
  'availability-zone': (i) => [i.Placement?.AvailabilityZone],
  'subnet-id': (i) => [i.SubnetId],
  'vpc-id': (i) => [i.VpcId],
  'image-id': (i) => [i.ImageId],
  'private-dns-name': (i) => [i.PrivateDnsName],
  'private-ip-address': (i) => [i.PrivateIpAddress],
  'spot-instance-request-id': (i) => [i.SpotInstanceRequestId],
  'iam-instance-profile.arn': (i) => [i.IamInstanceProfile?.Arn],
  'instance.group-id': (i) => (i.SecurityGroups ?? []).map((g) => g.GroupId),
  architecture: (i) => [i.Architecture],
  // EC2: "The platform. To list only Windows instances, use windows."
  platform: (i) => [i.Platform],
};

/**
 * Instances and their lifecycle. States move pending → running and shutting-down →
 * terminated on the clock; nothing happens in the background, the state is derived from the
 * clock whenever an instance is read.
 */
export class Ec2Instances {
  private readonly instances = new Map<string, InstanceRecord>();
  /** When forgotten instances ended, for the ClientTokens that outlive them. */
  private readonly forgotten = new Map<string, number>();
  private readonly timings: Required<InstanceTimings>;

  constructor(
    private readonly context: Ec2Context,
    private readonly network: Ec2Network,
    timings: InstanceTimings = {},
  ) {
    this.timings = {
      pendingMs: timings.pendingMs ?? 15_000,
      shuttingDownMs: timings.shuttingDownMs ?? 30_000,
      terminatedVisibleMs: timings.terminatedVisibleMs ?? 3_600_000,
    };
  }

  /** Starts an instance (pending now) and returns its id. */
  launch(launch: InstanceLaunch): string {
    const now = this.context.clock.now();
    const instance = launchedInstance(this.context, this.network, launch, now);
    this.instances.set(instance.InstanceId!, {
      instance,
      reservationId: launch.reservationId,
      capacityType: launch.capacityType,
      vcpus: launch.info.VCpuInfo?.DefaultVCpus ?? 1,
      launchedAt: now,
      volumeTags: launch.volumeTags,
      userData: launch.data.UserData,
      ...(launch.capacityReservation === undefined
        ? {}
        : { capacityReservationId: launch.capacityReservation.id }),
      // EC2 reclaims a Capacity Block's instances from 30 minutes before the block ends.
      ...(launch.capacityReservation?.type === 'capacity-block' &&
      launch.capacityReservation.endDate !== undefined
        ? {
            reclaimAt: launch.capacityReservation.endDate - CAPACITY_BLOCK_RECLAIM_MS,
            reclaimReason: {
              Code: 'Server.ScheduledStop',
              Message: 'Server.ScheduledStop: Stopped due to scheduled retirement',
            },
          }
        : {}),
    });
    return instance.InstanceId!;
  }

  /** The instance as DescribeInstances would show it now, or undefined once it is gone. */
  instance(instanceId: string): Instance | undefined {
    const record = this.instances.get(instanceId);
    return record === undefined || !this.isVisible(record) ? undefined : this.render(record);
  }

  /** The instance itself, for CreateTags, while DescribeInstances still shows it. */
  taggable(instanceId: string): Instance | undefined {
    return this.instances.get(instanceId)?.instance;
  }

  /** Every instance DescribeInstances would show now. */
  list(): Instance[] {
    return [...this.instances.values()].filter((r) => this.isVisible(r)).map((r) => this.render(r));
  }

  /** Tags applied to the volumes of an instance (TagSpecifications with ResourceType volume). */
  volumeTags(instanceId: string): Tag[] {
    return structuredClone(this.instances.get(instanceId)?.volumeTags ?? []);
  }

  /**
   * Reclaims a spot instance as EC2 does: the interruption notice is given now and the
   * instance starts shutting down `noticeMs` later, with state reason
   * `Server.SpotInstanceTermination`.
   */
  reclaimSpot(instanceId: string, noticeMs: number): SpotReclaim {
    const record = this.instances.get(instanceId);
    if (record === undefined || !this.isVisible(record))
      throw new Error(`reclaimSpot: no instance ${instanceId}`);
    if (record.capacityType !== 'spot')
      throw new Error(`reclaimSpot: ${instanceId} is an on-demand instance`);
    const now = this.context.clock.now();
    record.reclaimAt = now + noticeMs;
    return {
      instanceId,
      instanceType: record.instance.InstanceType ?? '',
      availabilityZone: record.instance.Placement?.AvailabilityZone ?? '',
      noticeTime: now,
      terminationTime: now + noticeMs,
    };
  }

  /**
   * Retires an instance (spot or on-demand) at `at`, as an AWS Health scheduled change
   * (`AWS_EC2_*_RETIREMENT_SCHEDULED`) announces days ahead: from then on it shuts down with
   * state reason `Server.ScheduledStop`. Throws naming the instance when there is none.
   */
  retire(instanceId: string, at: number): void {
    const record = this.instances.get(instanceId);
    if (record === undefined || !this.isVisible(record)) throw new Error(`retire: no instance ${instanceId}`);
    // A spot reclaim already due earlier happens as scheduled.
    if (record.reclaimAt !== undefined && record.reclaimAt <= at) return;
    record.reclaimAt = at;
    record.reclaimReason = {
      Code: 'Server.ScheduledStop',
      Message: 'Server.ScheduledStop: Stopped due to scheduled retirement',
    };
  }

  /** The instance's user data (base64) as launched, or undefined when it had none or is forgotten. */
  userData(instanceId: string): string | undefined {
    return this.instances.get(instanceId)?.userData;
  }

  /** When the instance became terminated (epoch ms); undefined while it is not terminated. */
  endedAt(instanceId: string): number | undefined {
    const record = this.instances.get(instanceId);
    if (record === undefined) return this.forgotten.get(instanceId) ?? 0;
    if (this.stateOf(record).Name !== 'terminated') return undefined;
    return record.terminatingAt! + this.timings.shuttingDownMs;
  }

  /** vCPUs of the live (not terminated) instances of a capacity type, for the account quotas. */
  liveVcpus(capacityType: CapacityType): number {
    let total = 0;
    for (const record of this.instances.values()) {
      if (record.capacityType === capacityType && this.stateOf(record).Name !== 'terminated')
        total += record.vcpus;
    }
    return total;
  }

  /** Where the live (not terminated) instances of placement groups run. */
  placed(): { groupName: string; zone: string }[] {
    const out: { groupName: string; zone: string }[] = [];
    for (const record of this.instances.values()) {
      const groupName = record.instance.Placement?.GroupName;
      if (groupName && this.stateOf(record).Name !== 'terminated')
        out.push({ groupName, zone: record.instance.Placement?.AvailabilityZone ?? '' });
    }
    return out;
  }

  /** How many live (not terminated) instances run in capacity reservation `id`. */
  liveInReservation(id: string): number {
    let live = 0;
    for (const record of this.instances.values())
      if (record.capacityReservationId === id && this.stateOf(record).Name !== 'terminated') live += 1;
    return live;
  }

  /** How many live (not terminated) instances run in `pool` (outside capacity reservations). */
  liveIn(pool: Pool): number {
    let live = 0;
    for (const record of this.instances.values()) {
      if (
        record.capacityReservationId === undefined &&
        record.capacityType === pool.capacityType &&
        record.instance.InstanceType === pool.instanceType &&
        record.instance.Placement?.AvailabilityZone === pool.availabilityZone &&
        this.stateOf(record).Name !== 'terminated'
      ) {
        live += 1;
      }
    }
    return live;
  }

  describeInstances(input: DescribeInstancesCommandInput): OperationOutput<DescribeInstancesCommandOutput> {
    const { fail, accountId } = this.context;
    if (input.InstanceIds !== undefined && input.MaxResults !== undefined) {
      throw fail(
        'InvalidParameterCombination',
        'The parameter instancesSet cannot be used with the parameter maxResults',
      );
    }
    const records = this.requireInstances(input.InstanceIds);
    checkFilters(fail, input.Filters, INSTANCE_FILTERS);
    const visible = (records ?? [...this.instances.values()].filter((r) => this.isVisible(r)))
      .map((record) => ({ record, instance: this.render(record) }))
      .filter(({ instance }) => matches(instance, input.Filters, INSTANCE_FILTERS));
    const listed = page(fail, visible, input, PAGES.resources, 'DescribeInstances');
    const reservations: Reservation[] = [];
    for (const { record, instance } of listed.items) {
      const last = reservations.at(-1);
      if (last?.ReservationId === record.reservationId) last.Instances!.push(instance);
      else
        reservations.push({
          ReservationId: record.reservationId,
          OwnerId: accountId,
          RequesterId: '226008221399',
          Groups: [],
          Instances: [instance],
        });
    }
    return { Reservations: reservations, NextToken: listed.nextToken };
  }

  /**
   * Terminating an unknown id fails the whole call with InvalidInstanceID.NotFound and
   * terminates nothing, as the real API does; terminating twice succeeds.
   */
  terminateInstances(
    input: TerminateInstancesCommandInput,
  ): OperationOutput<TerminateInstancesCommandOutput> {
    if ((input.InstanceIds ?? []).length === 0) {
      throw this.context.fail('MissingParameter', 'The request must contain the parameter InstanceId');
    }
    const records = this.requireInstances(input.InstanceIds) ?? [];
    const now = this.context.clock.now();
    return {
      TerminatingInstances: records.map((record) => {
        const previous = this.stateOf(record);
        if (record.terminatingAt === undefined) {
          record.terminatingAt = now;
          record.stateReason = {
            Code: 'Client.UserInitiatedShutdown',
            Message: 'Client.UserInitiatedShutdown: User initiated shutdown',
          };
          this.network.releaseAddress(record.instance.SubnetId);
        }
        return {
          InstanceId: record.instance.InstanceId,
          PreviousState: previous,
          CurrentState: this.stateOf(record),
        };
      }),
    };
  }

  /** Applies a due spot reclaim, then derives the state from the clock. */
  private stateOf(record: InstanceRecord): InstanceState {
    const now = this.context.clock.now();
    if (record.terminatingAt === undefined && record.reclaimAt !== undefined && now >= record.reclaimAt) {
      record.terminatingAt = record.reclaimAt;
      record.stateReason = record.reclaimReason ?? {
        Code: 'Server.SpotInstanceTermination',
        Message: 'Server.SpotInstanceTermination: Spot instance termination',
      };
      this.network.releaseAddress(record.instance.SubnetId);
    }
    let name: InstanceStateName;
    if (record.terminatingAt !== undefined) {
      name = now < record.terminatingAt + this.timings.shuttingDownMs ? 'shutting-down' : 'terminated';
    } else {
      name = now < record.launchedAt + this.timings.pendingMs ? 'pending' : 'running';
    }
    return { Code: STATE_CODES[name], Name: name };
  }

  /** Whether DescribeInstances still shows the instance; forgets it once it is gone for good. */
  private isVisible(record: InstanceRecord): boolean {
    this.stateOf(record);
    if (record.terminatingAt === undefined) return true;
    const { shuttingDownMs, terminatedVisibleMs } = this.timings;
    const visible = this.context.clock.now() < record.terminatingAt + shuttingDownMs + terminatedVisibleMs;
    if (!visible) {
      this.instances.delete(record.instance.InstanceId!);
      this.forgotten.set(record.instance.InstanceId!, record.terminatingAt + shuttingDownMs);
    }
    return visible;
  }

  private render(record: InstanceRecord): Instance {
    const state = this.stateOf(record);
    const instance: Instance = { ...structuredClone(record.instance), State: state };
    if (record.stateReason !== undefined) {
      instance.StateReason = { ...record.stateReason };
      const at = new Date(record.terminatingAt ?? this.context.clock.now())
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' GMT');
      instance.StateTransitionReason =
        record.stateReason.Code === 'Client.UserInitiatedShutdown'
          ? `User initiated (${at})`
          : `Service initiated (${at})`;
    }
    if (state.Name === 'terminated') {
      instance.PrivateDnsName = '';
      delete instance.PrivateIpAddress;
    }
    return instance;
  }

  private requireInstances(ids: readonly string[] | undefined): InstanceRecord[] | undefined {
    if (ids === undefined) return undefined;
    const { fail } = this.context;
    const malformed = ids.filter((id) => !/^i-[0-9a-f]{8,17}$/.test(id));
    if (malformed.length > 0) throw fail('InvalidInstanceID.Malformed', `Invalid id: "${malformed[0]}"`);
    const missing = ids.filter((id) => {
      const record = this.instances.get(id);
      return record === undefined || !this.isVisible(record);
    });
    if (missing.length === 1)
      throw fail('InvalidInstanceID.NotFound', `The instance ID '${missing[0]}' does not exist`);
    if (missing.length > 1) {
      throw fail('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
    }
    return [...new Set(ids)].map((id) => this.instances.get(id)!);
  }
}
