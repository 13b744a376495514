import { EventBridgeClient, type PutEventsCommandInput } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../../shared/aws/eventbridge/eventbridge-publisher';
import { putEventsBatches } from '../../../shared/aws/eventbridge/put-events-batches';
import { putEventsEntrySize } from '../../../shared/aws/eventbridge/put-events-entry-size';
import type { RetryPolicy } from '../../../shared/aws/retry';
import { CloudError, ValidationError } from '../../../shared/core/model/errors';
import type { BusEvent } from '../../../shared/core/ports/publisher';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeEventBridge } from '../../../sim/fakes/aws/fake-eventbridge';
import { VirtualTime, waitsAtOnce } from '../../../sim/virtual-time';

const BUS = 'podlift-demo';

function world(retry: Partial<RetryPolicy> = {}) {
  const clock = new VirtualTime();
  const fake = new FakeEventBridge({ clock });
  const eventBridge = new EventBridgeClient(clientConfig);
  attachFake(eventBridge, fake);
  const sleeps: number[] = [];
  const publisher = new EventBridgePublisher({
    eventBridge,
    eventBusName: BUS,
    retry: {
      timers: waitsAtOnce(clock, sleeps),
      random: () => 0.5,
      ...retry,
    },
  });
  const calls = () => fake.callsTo('PutEvents') as PutEventsCommandInput[];
  return { clock, fake, publisher, sleeps, calls };
}

function event(n: number, detail: Record<string, unknown> = {}): BusEvent {
  return { source: 'podlift.watcher', detailType: 'Pods Pending', detail: { n, ...detail } };
}

function events(count: number): BusEvent[] {
  return Array.from({ length: count }, (_, n) => event(n));
}

describe('EventBridgePublisher.publish', () => {
  it('puts 25 events in three calls of at most 10, in order, on the configured bus', async () => {
    const { publisher, fake, calls } = world();

    await publisher.publish(events(25));

    expect(calls().map((c) => c.Entries?.length)).toEqual([10, 10, 5]);
    expect(calls()[0]?.Entries?.[0]).toEqual({
      Source: 'podlift.watcher',
      DetailType: 'Pods Pending',
      Detail: '{"n":0}',
      EventBusName: BUS,
    });
    expect(fake.events(BUS).map((e) => (e.detail as { n: number }).n)).toEqual(
      Array.from({ length: 25 }, (_, n) => n),
    );
  });

  it('starts a new call before the entries would pass 256 KB', async () => {
    const { publisher, fake, calls } = world();
    const big = 'x'.repeat(100 * 1024);

    await publisher.publish(Array.from({ length: 5 }, (_, n) => event(n, { big })));

    expect(calls().map((c) => c.Entries?.length)).toEqual([2, 2, 1]);
    for (const call of calls()) {
      const bytes = (call.Entries ?? []).reduce((sum, e) => sum + putEventsEntrySize(e), 0);
      expect(bytes).toBeLessThanOrEqual(256 * 1024);
    }
    expect(fake.events(BUS)).toHaveLength(5);
  });

  it('sizes multibyte details in UTF-8 bytes, as EventBridge does, so every call is accepted', async () => {
    const { publisher, fake, calls } = world();
    // 50 K characters but 100 KB on the wire: counting characters would put all five in one call.
    const big = 'é'.repeat(50 * 1024);

    await publisher.publish(Array.from({ length: 5 }, (_, n) => event(n, { big })));

    expect(calls().map((c) => c.Entries?.length)).toEqual([2, 2, 1]);
    expect(fake.events(BUS)).toHaveLength(5);
  });

  it('sends the event time when given', async () => {
    const { publisher, fake } = world();
    await publisher.publish([{ ...event(0), time: Date.UTC(2026, 0, 2, 3, 4, 5) }]);
    expect(fake.events(BUS)[0]?.time).toBe('2026-01-02T03:04:05Z');
  });

  it('sends entries that failed transiently again, after a backoff, until they are accepted', async () => {
    const { publisher, fake, calls, sleeps } = world();
    fake.failNextEntries(3, 'InternalFailure');

    await publisher.publish(events(12));

    expect(calls().map((c) => c.Entries?.length)).toEqual([10, 2, 3]);
    expect(calls()[2]?.Entries?.map((e) => JSON.parse(e.Detail ?? '{}').n)).toEqual([0, 1, 2]);
    expect(sleeps).toEqual([50]);
    expect(
      fake
        .events(BUS)
        .map((e) => (e.detail as { n: number }).n)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 12 }, (_, n) => n));
  });

  it('retries a throttled PutEvents call', async () => {
    const { publisher, fake, calls, sleeps } = world();
    fake.throttle('PutEvents', 2);

    await publisher.publish(events(3));

    expect(calls()).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]);
    expect(fake.events(BUS)).toHaveLength(3);
  });

  it('does not resend entries EventBridge rejects for good, and names them in a CloudError', async () => {
    const { publisher, fake, calls, sleeps } = world();

    const error = await publisher
      .publish([event(0), { source: 'aws.ec2', detailType: 'Spoofed', detail: {} }, event(2)])
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'NotAuthorizedForSourceException', retryable: false });
    expect((error as Error).message).toBe(
      `publishing 3 events to EventBridge bus ${BUS}: 1 failed: events[1] (aws.ec2 "Spoofed"): NotAuthorizedForSourceException: Not authorized for the source.`,
    );
    expect(calls()).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(fake.events(BUS)).toHaveLength(2);
  });

  it('gives up on entries that keep failing with a retryable CloudError listing what still failed', async () => {
    const { publisher, fake, calls } = world({ maxAttempts: 3 });
    fake.failNextEntries(100, 'ThrottlingException', 'Rate exceeded');

    const error = await publisher.publish(events(2)).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'CloudError', code: 'ThrottlingException', retryable: true });
    expect((error as Error).message).toBe(
      `publishing 2 events to EventBridge bus ${BUS}: 2 failed: events[0] (podlift.watcher "Pods Pending"): ThrottlingException: Rate exceeded; events[1] (podlift.watcher "Pods Pending"): ThrottlingException: Rate exceeded (gave up after 3 attempts)`,
    );
    expect(calls()).toHaveLength(3);
  });

  it('rejects an event larger than 256 KB on its own, or without a JSON object detail, before sending anything', async () => {
    const { publisher, calls } = world();

    const error = await publisher
      .publish([event(0), event(1, { big: 'x'.repeat(256 * 1024) }), { ...event(2), detail: 'text' }])
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.field)).toEqual(['events[1]', 'events[2].detail']);
    expect((error as Error).message).toContain('is larger than PutEvents');
    expect(calls()).toEqual([]);
  });

  it('publishes nothing for no events', async () => {
    const { publisher, calls } = world();
    await publisher.publish([]);
    expect(calls()).toEqual([]);
  });
});

describe('putEventsBatches', () => {
  it('fills batches up to exactly 256 KB and 10 entries', () => {
    const quarter = 64 * 1024;
    expect(putEventsBatches([quarter, quarter, quarter, quarter, 1], (n) => n).map((b) => b.length)).toEqual([
      4, 1,
    ]);
    expect(
      putEventsBatches(
        Array.from({ length: 21 }, () => 1),
        (n) => n,
      ).map((b) => b.length),
    ).toEqual([10, 10, 1]);
  });
});
