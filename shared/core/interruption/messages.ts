import * as z from 'zod';

/**
 * The interruption queue's messages, classified as Karpenter's interruption controller parses
 * them (aws/karpenter-provider-aws pkg/controllers/interruption/messages/*: a parser per
 * `version`, `source` and `detail-type`). EventBridge rules are account- and region-wide, so
 * messages about instances of other clusters are normal traffic; anything else — an unknown
 * kind, a body that is not an event — is reported as `unknown` and acknowledged, never retried.
 */

/** What a message says about instances. */
export type InterruptionMessage =
  | { readonly kind: 'spot-interruption'; readonly id: string; readonly instanceIds: readonly string[] }
  | {
      readonly kind: 'capacity-reservation-interruption';
      readonly id: string;
      readonly instanceIds: readonly string[];
    }
  | { readonly kind: 'scheduled-change'; readonly id: string; readonly instanceIds: readonly string[] }
  | {
      readonly kind: 'rebalance-recommendation';
      readonly id: string;
      readonly instanceIds: readonly string[];
    }
  | {
      readonly kind: 'instance-stopped' | 'instance-terminated';
      readonly id: string;
      readonly instanceIds: readonly string[];
    }
  /** Known and harmless: a state change to pending or running, a Health event that is not a scheduled EC2 change. */
  | { readonly kind: 'no-action'; readonly id: string; readonly why: string }
  | { readonly kind: 'unknown'; readonly why: string };

/** The kinds, for metrics and logs. */
export type InterruptionKind = InterruptionMessage['kind'];

const envelope = z.object({
  version: z.literal('0'),
  id: z.string().min(1),
  source: z.string(),
  'detail-type': z.string(),
  detail: z.record(z.string(), z.unknown()),
});
const instanceDetail = z.object({ 'instance-id': z.string().regex(/^i-[0-9a-f]+$/) });
const stateDetail = instanceDetail.extend({ state: z.string() });
const healthDetail = z.object({
  service: z.string(),
  eventTypeCategory: z.string(),
  affectedEntities: z.array(z.object({ entityValue: z.string() })).default([]),
});

/** `i-0abc` from a bare id or an instance ARN (`arn:aws:ec2:…:instance/i-0abc`); undefined otherwise. */
export function instanceIdOf(value: string): string | undefined {
  return /(?:^|instance\/)(i-[0-9a-f]+)$/.exec(value)?.[1];
}

/** Classifies one SQS message body (a JSON string). Never throws. */
export function classifyInterruption(body: string): InterruptionMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unknown', why: 'the body is not JSON' };
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return { kind: 'unknown', why: 'not an EventBridge event of version 0' };
  const { id, source, detail } = parsed.data;
  const detailType = parsed.data['detail-type'];
  const single = (
    kind: 'spot-interruption' | 'capacity-reservation-interruption' | 'rebalance-recommendation',
  ) => {
    const d = instanceDetail.safeParse(detail);
    return d.success
      ? { kind, id, instanceIds: [d.data['instance-id']] }
      : {
          kind: 'unknown' as const,
          why: `${detailType}: detail["instance-id"] missing or not an instance id`,
        };
  };
  if (source === 'aws.ec2' && detailType === 'EC2 Spot Instance Interruption Warning')
    return single('spot-interruption');
  if (source === 'aws.ec2' && detailType === 'EC2 Capacity Reservation Instance Interruption Warning') {
    return single('capacity-reservation-interruption');
  }
  if (source === 'aws.ec2' && detailType === 'EC2 Instance Rebalance Recommendation')
    return single('rebalance-recommendation');
  if (source === 'aws.ec2' && detailType === 'EC2 Instance State-change Notification')
    return stateChange(id, detail);
  if (source === 'aws.health' && detailType === 'AWS Health Event') return healthEvent(id, detail);
  return { kind: 'unknown', why: `no handling for ${source} / ${detailType}` };
}

/** Karpenter's statechange parser: stopping/stopped → stopped, shutting-down/terminated → terminated. */
function stateChange(id: string, detail: unknown): InterruptionMessage {
  const d = stateDetail.safeParse(detail);
  if (!d.success)
    return { kind: 'unknown', why: 'EC2 Instance State-change Notification: no instance id or state' };
  const state = d.data.state.toLowerCase();
  const instanceIds = [d.data['instance-id']];
  if (state === 'stopping' || state === 'stopped') return { kind: 'instance-stopped', id, instanceIds };
  if (state === 'shutting-down' || state === 'terminated')
    return { kind: 'instance-terminated', id, instanceIds };
  return { kind: 'no-action', id, why: `instance state ${state}` };
}

/** Karpenter's scheduledchange parser: only EC2 scheduled changes; entity values bare ids or ARNs. */
function healthEvent(id: string, detail: unknown): InterruptionMessage {
  const d = healthDetail.safeParse(detail);
  if (!d.success) return { kind: 'unknown', why: 'AWS Health Event: detail without service or category' };
  if (d.data.service !== 'EC2' || d.data.eventTypeCategory !== 'scheduledChange') {
    return { kind: 'no-action', id, why: `AWS Health ${d.data.service} ${d.data.eventTypeCategory}` };
  }
  const instanceIds = d.data.affectedEntities.flatMap((e) => {
    const instanceId = instanceIdOf(e.entityValue);
    return instanceId ? [instanceId] : [];
  });
  return { kind: 'scheduled-change', id, instanceIds };
}
