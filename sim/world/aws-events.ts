import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/core/ports/time';
import type { FakeEc2 } from '../fakes/aws/ec2';
import type { DeliveredEvent } from '../fakes/aws/fake-eventbridge';

/** An AWS event as EventBridge puts it on the default bus (shapes as in test/fixtures/aws-events). */
export interface AwsEvent extends DeliveredEvent {
  readonly detail: Record<string, unknown>;
}

/**
 * The EC2 events the account's default bus carries for the world's instances: the two-minute
 * spot interruption warning when a spot instance is reclaimed, and a state-change notification
 * for every state an instance enters (pending, running, shutting-down, terminated), found by
 * comparing each instance's state with the one last seen.
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
    return this.event('EC2 Spot Instance Interruption Warning', instanceId, {
      'instance-id': instanceId,
      'instance-action': 'terminate',
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
      events.push(this.event('EC2 Instance State-change Notification', id, { 'instance-id': id, state }));
    }
    for (const id of [...this.states.keys()]) if (!seen.has(id)) this.states.delete(id);
    return events;
  }

  private event(detailType: string, instanceId: string, detail: Record<string, unknown>): AwsEvent {
    const hex = createHash('sha1')
      .update(`${detailType}/${instanceId}/${this.serial++}`)
      .digest('hex');
    return {
      version: '0',
      id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`,
      'detail-type': detailType,
      source: 'aws.ec2',
      account: this.account,
      time: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      region: this.region,
      resources: [`arn:aws:ec2:${this.region}:${this.account}:instance/${instanceId}`],
      detail,
    };
  }
}
