import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/core/ports/time';
import type { FakeEc2 } from '../fakes/aws/ec2';
import type { DeliveredEvent } from '../fakes/aws/fake-eventbridge';

/** An AWS event as EventBridge puts it on the default bus (shapes as in test/fixtures/aws-events). */
export interface AwsEvent extends DeliveredEvent {
  readonly detail: Record<string, unknown>;
}

/** Options of {@link Ec2EventSource.scheduledChange}. */
export interface ScheduledChangeOptions {
  /** When the change happens (epoch ms); EC2 retires the instances then. */
  readonly startTime: number;
  /**
   * The Health event type. @default `AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED` (an
   * EBS-backed instance on degraded hardware, the common case for Karpenter's nodes)
   */
  readonly eventTypeCode?: string;
}

/**
 * The EC2 and AWS Health events the account's default bus carries for the world's instances:
 * the two-minute spot interruption warning when a spot instance is reclaimed; a rebalance
 * recommendation (EC2 sends it when a spot instance is at elevated risk, with no deadline and no
 * change to the instance); an AWS Health scheduled change naming instances EC2 will retire at a
 * start time; and a state-change notification for every state an instance enters (pending,
 * running, shutting-down, terminated), found by comparing each instance's state with the one
 * last seen. Shapes as in test/fixtures/aws-events.
 */
export class Ec2EventSource {
  private readonly states = new Map<string, string>();
  private serial = 0;

  constructor(
    private readonly ec2: FakeEc2,
    private readonly clock: Clock,
    private readonly account = '123456789012',
    private readonly region = 'us-east-1',
  ) {}

  /** Reclaims a spot instance and returns its interruption warning. */
  interrupt(instanceId: string): AwsEvent {
    this.ec2.reclaimSpot(instanceId);
    return this.event('aws.ec2', 'EC2 Spot Instance Interruption Warning', [this.arn(instanceId)], {
      'instance-id': instanceId,
      'instance-action': 'terminate',
    });
  }

  /**
   * A rebalance recommendation for a spot instance: only the event; the instance stays. EC2
   * sends them for spot instances only, so anything else throws, naming the instance.
   */
  rebalance(instanceId: string): AwsEvent {
    const instance = this.ec2.instance(instanceId);
    if (!instance) throw new Error(`rebalance: no instance ${instanceId}`);
    if (instance.InstanceLifecycle !== 'spot')
      throw new Error(
        `rebalance: ${instanceId} is an on-demand instance; EC2 recommends rebalancing spot instances only`,
      );
    return this.event('aws.ec2', 'EC2 Instance Rebalance Recommendation', [this.arn(instanceId)], {
      'instance-id': instanceId,
    });
  }

  /**
   * Schedules the retirement of `instanceIds` at `options.startTime` and returns the AWS Health
   * event announcing it (one event for all of them, as Health groups affected entities; bare
   * instance ids in `resources` and `entityValue`, `startTime` in RFC 1123 text).
   */
  scheduledChange(instanceIds: readonly string[], options: ScheduledChangeOptions): AwsEvent {
    for (const id of instanceIds) this.ec2.retire(id, options.startTime);
    const code = options.eventTypeCode ?? 'AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED';
    const serial = this.serial;
    const communicationId = createHash('sha1').update(`health/${code}/${serial}`).digest('hex');
    const start = new Date(options.startTime);
    const now = new Date(this.clock.now());
    return this.event('aws.health', 'AWS Health Event', [...instanceIds], {
      eventArn: `arn:aws:health:${this.region}::event/EC2/${code}/${code}_${this.account}_${communicationId.slice(0, 8)}-${communicationId.slice(8, 12)}`,
      service: 'EC2',
      eventTypeCode: code,
      eventTypeCategory: 'scheduledChange',
      eventScopeCode: 'ACCOUNT_SPECIFIC',
      communicationId: `${communicationId}-1`,
      startTime: start.toUTCString(),
      lastUpdatedTime: now.toUTCString(),
      statusCode: 'upcoming',
      eventRegion: this.region,
      eventDescription: [
        {
          language: 'en_US',
          latestDescription: `EC2 has detected degradation of the underlying hardware hosting your Amazon EC2 instance associated with this event in the ${this.region} region. After ${start.toISOString().slice(0, 16).replace('T', ' ')} UTC your instance will be stopped.`,
        },
      ],
      affectedEntities: instanceIds.map((entityValue) => ({ entityValue, tags: {} })),
      affectedAccount: this.account,
      page: '1',
      totalPages: '1',
      backupEvent: 'false',
      personas: ['OPERATIONS'],
      actionability: 'ACTION_REQUIRED',
    });
  }

  /** State-change notifications for instances whose state changed since the last call. */
  stateChanges(): AwsEvent[] {
    const events: AwsEvent[] = [];
    const seen = new Set<string>();
    for (const instance of this.ec2.listInstances()) {
      const id = instance.InstanceId ?? '';
      const state = instance.State?.Name ?? '';
      seen.add(id);
      if (this.states.get(id) === state) continue;
      this.states.set(id, state);
      events.push(
        this.event('aws.ec2', 'EC2 Instance State-change Notification', [this.arn(id)], {
          'instance-id': id,
          state,
        }),
      );
    }
    for (const id of [...this.states.keys()]) if (!seen.has(id)) this.states.delete(id);
    return events;
  }

  private arn(instanceId: string): string {
    return `arn:aws:ec2:${this.region}:${this.account}:instance/${instanceId}`;
  }

  private event(
    source: string,
    detailType: string,
    resources: string[],
    detail: Record<string, unknown>,
  ): AwsEvent {
    const hex = createHash('sha1')
      .update(`${detailType}/${detail['instance-id'] ?? resources.join(',')}/${this.serial++}`)
      .digest('hex');
    return {
      version: '0',
      id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`,
      'detail-type': detailType,
      source,
      account: this.account,
      time: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      region: this.region,
      resources,
      detail,
    };
  }
}
