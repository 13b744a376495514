import { readFileSync } from 'node:fs';
import { CreateFleetCommand, CreateLaunchTemplateCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { classifyInterruption } from '../../../shared/core/interruption/messages';
import { ec2World } from '../../../sim/world/aws/ec2-world';
import { Ec2EventSource } from '../../../sim/world/aws-events';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are untyped JSON
type Json = Record<string, any>;
const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/aws-events/${name}.json`, import.meta.url), 'utf8'));

async function oneInstance(capacityType: 'spot' | 'on-demand') {
  const w = ec2World();
  const lt = await w.client.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'nodes',
      LaunchTemplateData: { SecurityGroupIds: ['sg-0000000000000000a'] },
    }),
  );
  const out = await w.client.send(
    new CreateFleetCommand({
      Type: 'instant',
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: {
            LaunchTemplateId: lt.LaunchTemplate?.LaunchTemplateId,
            Version: '$Latest',
          },
          Overrides: [{ InstanceType: 'm5.large', SubnetId: 'subnet-0000000000000000a' }],
        },
      ],
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: capacityType },
    }),
  );
  const id = out.Instances?.[0]?.InstanceIds?.[0] ?? '';
  w.clock.advance(60_000);
  return { ...w, id, events: new Ec2EventSource(w.fake, w.clock) };
}

/** Every key path of `value` (arrays by their first element), to compare shapes. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.length > 0 ? shape(value[0], `${at}[]`) : [`${at}[]`];
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [`${at}.${k}`, ...shape(v, `${at}.${k}`)]);
  return [];
}

describe('the world’s AWS events', () => {
  it('sends a rebalance recommendation shaped as EC2 sends it, and leaves the instance running', async () => {
    const w = await oneInstance('spot');
    const event = w.events.rebalance(w.id);
    expect(shape(event).sort()).toStrictEqual(shape(fixture('rebalance-recommendation')).sort());
    expect(event.resources).toStrictEqual([`arn:aws:ec2:us-east-1:123456789012:instance/${w.id}`]);
    expect(classifyInterruption(JSON.stringify(event))).toMatchObject({
      kind: 'rebalance-recommendation',
      instanceIds: [w.id],
    });
    w.clock.advance(3_600_000);
    expect(w.fake.instance(w.id)?.State?.Name).toBe('running');
  });

  it('announces a scheduled change as AWS Health does and retires the instance at its start time', async () => {
    const w = await oneInstance('on-demand');
    const startTime = w.clock.now() + 600_000;
    const event = w.events.scheduledChange([w.id], { startTime });
    expect(shape(event).sort()).toStrictEqual(shape(fixture('health-scheduled-change')).sort());
    expect(event.source).toBe('aws.health');
    expect(event.resources).toStrictEqual([w.id]);
    // RFC 1123 text, as Health writes it ("Fri, 28 Mar 2025 06:00:00 GMT").
    expect(event.detail.startTime).toMatch(
      /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    expect(Date.parse(String(event.detail.startTime))).toBe(startTime);
    expect(classifyInterruption(JSON.stringify(event))).toMatchObject({
      kind: 'scheduled-change',
      instanceIds: [w.id],
    });
    w.clock.advance(599_000);
    expect(w.fake.instance(w.id)?.State?.Name).toBe('running');
    w.clock.advance(1_000);
    expect(w.fake.instance(w.id)?.State?.Name).toBe('shutting-down');
    expect(w.fake.instance(w.id)?.StateReason?.Code).toBe('Server.ScheduledStop');
  });

  it('leaves an earlier spot reclaim as it was', async () => {
    const w = await oneInstance('spot');
    w.events.interrupt(w.id);
    w.events.scheduledChange([w.id], { startTime: w.clock.now() + 600_000 });
    w.clock.advance(120_000);
    expect(w.fake.instance(w.id)?.StateReason?.Code).toBe('Server.SpotInstanceTermination');
  });

  it('recommends rebalancing spot instances only', async () => {
    const w = await oneInstance('on-demand');
    expect(() => w.events.rebalance(w.id)).toThrow(`rebalance: ${w.id} is an on-demand instance`);
    expect(() => w.events.rebalance('i-0000000000000dead')).toThrow(
      'rebalance: no instance i-0000000000000dead',
    );
  });

  it('refuses to retire an instance EC2 does not have, naming it', async () => {
    const w = await oneInstance('on-demand');
    expect(() => w.events.scheduledChange(['i-0000000000000dead'], { startTime: w.clock.now() })).toThrow(
      'retire: no instance i-0000000000000dead',
    );
  });
});
