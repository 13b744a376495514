import type {
  DescribeInstanceStatusCommandInput,
  DescribeInstanceStatusCommandOutput,
  Instance,
  InstanceStatus,
  InstanceStatusEvent,
  InstanceStatusSummary,
  StatusType,
  SummaryStatus,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import type { FilterFields } from './filters';
import type { Ec2Instances } from './instances';
import { checkFilters, matches, PAGES, page } from './listing';

/** What `setInstanceStatus` changes: the instance and/or system status check's summary. */
export interface InstanceStatusChange {
  readonly instance?: SummaryStatus;
  readonly system?: SummaryStatus;
}

/** A scheduled event on an instance, as `scheduleInstanceEvent` adds it. */
export interface InstanceEventSeed {
  /** `instance-reboot`, `system-reboot`, `system-maintenance`, `instance-retirement`, `instance-stop`. */
  readonly code: InstanceStatusEvent['Code'];
  readonly description?: string;
  /** Epoch ms. @default now */
  readonly notBefore?: number;
  /** Epoch ms. */
  readonly notAfter?: number;
}

interface CheckState {
  status: SummaryStatus;
  /** Epoch ms it became impaired, while it is. */
  impairedSince?: number;
}

interface StatusRecord {
  instance: CheckState;
  system: CheckState;
  events: InstanceStatusEvent[];
}

/** The reachability detail EC2 reports for each summary status. */
const REACHABILITY: Readonly<Record<SummaryStatus, StatusType | undefined>> = {
  ok: 'passed',
  impaired: 'failed',
  initializing: 'initializing',
  'insufficient-data': 'insufficient-data',
  'not-applicable': undefined,
};

const STATUS_FILTERS: FilterFields<InstanceStatus> = {
  'availability-zone': (s) => [s.AvailabilityZone],
  'instance-state-name': (s) => [s.InstanceState?.Name],
  'instance-state-code': (s) => [s.InstanceState?.Code?.toString()],
  'instance-status.status': (s) => [s.InstanceStatus?.Status],
  'instance-status.reachability': (s) => (s.InstanceStatus?.Details ?? []).map((d) => d.Status),
  'system-status.status': (s) => [s.SystemStatus?.Status],
  'system-status.reachability': (s) => (s.SystemStatus?.Details ?? []).map((d) => d.Status),
  'event.code': (s) => (s.Events ?? []).map((e) => e.Code),
  'event.description': (s) => (s.Events ?? []).map((e) => e.Description),
  'event.instance-event-id': (s) => (s.Events ?? []).map((e) => e.InstanceEventId),
};

/**
 * DescribeInstanceStatus over the fake's instances, with the status checks and scheduled events
 * the simulation sets. As the real API: without `IncludeAllInstances` only running instances
 * are reported (an id named in `InstanceIds` that is not running is left out, not an error);
 * with it, the others report `not-applicable` checks. A running instance's checks are `ok`
 * until set otherwise; an impaired check carries `ImpairedSince`, the time it became impaired.
 * Filters of different names are ANDed (which is why Karpenter queries three times),
 * `InstanceIds` and `MaxResults` cannot be combined, and pages follow NextToken.
 */
export class Ec2InstanceStatus {
  private readonly records = new Map<string, StatusRecord>();

  constructor(
    private readonly context: Ec2Context,
    private readonly instances: Ec2Instances,
  ) {}

  /** Sets the instance and/or system status check of a visible instance. */
  setInstanceStatus(instanceId: string, change: InstanceStatusChange): void {
    const record = this.recordOf(instanceId, 'setInstanceStatus');
    if (change.instance !== undefined) this.setCheck(record.instance, change.instance);
    if (change.system !== undefined) this.setCheck(record.system, change.system);
  }

  /** Schedules an event on a visible instance; returns its id (`instance-event-…`). */
  scheduleInstanceEvent(instanceId: string, seed: InstanceEventSeed): string {
    const record = this.recordOf(instanceId, 'scheduleInstanceEvent');
    const id = `instance-event-${this.context.hexId(17)}`;
    record.events.push({
      InstanceEventId: id,
      Code: seed.code,
      Description: seed.description ?? `The instance is scheduled for ${seed.code}`,
      NotBefore: new Date(seed.notBefore ?? this.context.clock.now()),
      ...(seed.notAfter === undefined ? {} : { NotAfter: new Date(seed.notAfter) }),
    });
    return id;
  }

  /** The summary of an instance's two status checks (`ok` until set otherwise). */
  checks(instanceId: string): { readonly instance: SummaryStatus; readonly system: SummaryStatus } {
    const record = this.records.get(instanceId);
    return { instance: record?.instance.status ?? 'ok', system: record?.system.status ?? 'ok' };
  }

  describeInstanceStatus(
    input: DescribeInstanceStatusCommandInput,
  ): OperationOutput<DescribeInstanceStatusCommandOutput> {
    const { fail } = this.context;
    if (input.InstanceIds !== undefined && input.MaxResults !== undefined) {
      throw fail(
        'InvalidParameterCombination',
        'The parameter instancesSet cannot be used with the parameter maxResults',
      );
    }
    checkFilters(fail, input.Filters, STATUS_FILTERS);
    const candidates =
      input.InstanceIds === undefined ? this.instances.list() : this.named(input.InstanceIds);
    const statuses = candidates
      .filter((i) => input.IncludeAllInstances === true || i.State?.Name === 'running')
      .map((i) => this.render(i))
      .filter((s) => matches(s, input.Filters, STATUS_FILTERS));
    const listed = page(fail, statuses, input, PAGES.resources, 'DescribeInstanceStatus');
    return { InstanceStatuses: listed.items, NextToken: listed.nextToken };
  }

  private setCheck(check: CheckState, status: SummaryStatus): void {
    if (status === 'impaired' && check.status !== 'impaired') check.impairedSince = this.context.clock.now();
    if (status !== 'impaired') delete check.impairedSince;
    check.status = status;
  }

  private recordOf(instanceId: string, what: string): StatusRecord {
    if (this.instances.instance(instanceId) === undefined)
      throw new Error(`${what}: no instance ${instanceId}`);
    let record = this.records.get(instanceId);
    if (record === undefined) {
      record = { instance: { status: 'ok' }, system: { status: 'ok' }, events: [] };
      this.records.set(instanceId, record);
    }
    return record;
  }

  /** The named instances, with EC2's errors for malformed and unknown ids. */
  private named(ids: readonly string[]): Instance[] {
    const { fail } = this.context;
    const malformed = ids.filter((id) => !/^i-[0-9a-f]{8,17}$/.test(id));
    if (malformed.length > 0) throw fail('InvalidInstanceID.Malformed', `Invalid id: "${malformed[0]}"`);
    const found = [...new Set(ids)].map((id) => ({ id, instance: this.instances.instance(id) }));
    const missing = found.filter((f) => f.instance === undefined).map((f) => f.id);
    if (missing.length === 1)
      throw fail('InvalidInstanceID.NotFound', `The instance ID '${missing[0]}' does not exist`);
    if (missing.length > 1)
      throw fail('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
    return found.map((f) => f.instance as Instance);
  }

  private render(instance: Instance): InstanceStatus {
    const running = instance.State?.Name === 'running';
    const record = this.records.get(instance.InstanceId ?? '');
    const summary = (check: CheckState | undefined): InstanceStatusSummary => {
      if (!running) return { Status: 'not-applicable' };
      const status = check?.status ?? 'ok';
      const reachability = REACHABILITY[status];
      return {
        Status: status,
        Details: reachability
          ? [
              {
                Name: 'reachability',
                Status: reachability,
                ...(check?.impairedSince === undefined
                  ? {}
                  : { ImpairedSince: new Date(check.impairedSince) }),
              },
            ]
          : [],
      };
    };
    const events = record?.events ?? [];
    return {
      AvailabilityZone: instance.Placement?.AvailabilityZone,
      InstanceId: instance.InstanceId,
      InstanceState: instance.State,
      InstanceStatus: summary(record?.instance),
      SystemStatus: summary(record?.system),
      ...(events.length > 0 ? { Events: structuredClone(events) } : {}),
    };
  }
}
