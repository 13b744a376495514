import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../../sim/virtual-time';
import { InterruptionQueue } from '../../../sim/world/interruption-queue';

const queue = (time: VirtualTime) =>
  new InterruptionQueue({ clock: time, arn: 'arn:aws:sqs:us-east-1:123456789012:q', region: 'us-east-1' });

describe('the simulated interruption queue', () => {
  it('delivers real SQS records and deletes what the batch response does not list', () => {
    const time = new VirtualTime();
    const q = queue(time);
    q.send({ 'detail-type': 'a' });
    q.send({ 'detail-type': 'b' });
    const batch = q.receive();
    expect(batch?.Records).toHaveLength(2);
    const [a, b] = batch?.Records ?? [];
    expect(a).toMatchObject({
      eventSource: 'aws:sqs',
      body: '{"detail-type":"a"}',
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(a.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    q.complete(batch?.Records ?? [], [b.messageId]);
    expect(q.depth).toBe(1);
    // Hidden for the visibility timeout, then back with a new receipt handle and a higher count.
    expect(q.receive()).toBeUndefined();
    time.advance(30_000);
    const again = q.receive()?.Records ?? [];
    expect(again.map((r) => r.messageId)).toEqual([b.messageId]);
    expect(again[0].attributes.ApproximateReceiveCount).toBe('2');
    expect(again[0].receiptHandle).not.toBe(b.receiptHandle);
    // A stale receipt handle deletes nothing.
    q.complete([b], []);
    expect(q.depth).toBe(1);
  });

  it('keeps a whole batch when the invocation failed, and drops messages past retention', () => {
    const time = new VirtualTime();
    const q = queue(time);
    q.send({ n: 1 });
    const batch = q.receive()?.Records ?? [];
    q.complete(
      batch,
      batch.map((r) => r.messageId),
    );
    time.advance(300_000);
    expect(q.receive()).toBeUndefined();
    expect(q.expired).toBe(1);
    expect(q.depth).toBe(0);
  });

  it('hands out at most ten records per batch', () => {
    const time = new VirtualTime();
    const q = queue(time);
    for (let i = 0; i < 13; i++) q.send({ i });
    expect(q.receive()?.Records).toHaveLength(10);
    expect(q.receive()?.Records).toHaveLength(3);
  });
});
