import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../sim/fakes/aws/client-config';
import { FakeEventBridge, putEventsEntrySize } from '../../../../sim/fakes/aws/fake-eventbridge';
import { VirtualTime } from '../../../../sim/virtual-time';

function entry(detail: object = { nodeClaim: 'default-x7k2' }, bus = 'podlift'): PutEventsRequestEntry {
  return {
    Source: 'podlift.provisioner',
    DetailType: 'NodeClaim Launched',
    Detail: JSON.stringify(detail),
    EventBusName: bus,
  };
}

function eventsWorld() {
  const clock = new VirtualTime();
  const fake = new FakeEventBridge({ clock });
  const client = new EventBridgeClient(clientConfig);
  attachFake(client, fake);
  return { clock, fake, client };
}

describe('FakeEventBridge', () => {
  it('delivers accepted entries to their bus as EventBridge events', async () => {
    const { client, fake, clock } = eventsWorld();
    const out = await client.send(
      new PutEventsCommand({
        Entries: [entry(), entry({ n: 2 }, 'arn:aws:events:us-east-1:123456789012:event-bus/podlift')],
      }),
    );

    expect(out.FailedEntryCount).toBe(0);
    expect(out.Entries?.every((e) => e.EventId !== undefined)).toBe(true);
    expect(fake.events('podlift')).toEqual([
      expect.objectContaining({
        'detail-type': 'NodeClaim Launched',
        source: 'podlift.provisioner',
        account: '123456789012',
        region: 'us-east-1',
        time: new Date(clock.now()).toISOString().replace('.000Z', 'Z'),
        detail: { nodeClaim: 'default-x7k2' },
      }),
      expect.objectContaining({ detail: { n: 2 } }),
    ]);
    expect(fake.events('default')).toEqual([]);
  });

  it('rejects more than 10 entries and more than 256 KB of entries with ValidationException', async () => {
    const { client, fake } = eventsWorld();
    await expect(
      client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry()) })),
    ).rejects.toMatchObject({ name: 'ValidationException', $fault: 'client' });

    const big = entry({ blob: 'x'.repeat(130 * 1024) });
    expect(putEventsEntrySize(big)).toBeGreaterThan(128 * 1024);
    await expect(client.send(new PutEventsCommand({ Entries: [big, big] }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Total size of the entries in the request is over the limit.',
    });
    expect(fake.events('podlift')).toEqual([]);
  });

  it('reports failed entries individually: injected failures, malformed detail, aws. sources', async () => {
    const { client, fake } = eventsWorld();
    fake.failNextEntries(1, 'ThrottlingException', 'Rate exceeded');
    const out = await client.send(
      new PutEventsCommand({
        Entries: [
          entry({ n: 1 }),
          entry({ n: 2 }),
          { ...entry(), Detail: 'not json' },
          { ...entry(), Source: 'aws.ec2' },
          { ...entry(), DetailType: undefined },
        ],
      }),
    );

    expect(out.FailedEntryCount).toBe(4);
    expect(out.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual([
      'ThrottlingException',
      'ok',
      'MalformedDetail',
      'NotAuthorizedForSourceException',
      'InvalidArgument',
    ]);
    expect(fake.events('podlift').map((e) => e.detail)).toEqual([{ n: 2 }]);
  });
});

describe('putEventsEntrySize, the fake copy of the documented rule', () => {
  it('counts 14 bytes for Time and the UTF-8 bytes of Source, DetailType, Detail and Resources', () => {
    const sized: PutEventsRequestEntry = {
      Time: new Date(0),
      Source: 'podlift.watcher', // 15 bytes
      DetailType: 'PodsPending', // 11 bytes
      Detail: '{"pod":"café"}', // 15 bytes: é is two
      Resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-0abc', '名前'], // 50 + 6 bytes
      EventBusName: 'a-bus-name-that-does-not-count',
    };
    expect(putEventsEntrySize(sized)).toBe(14 + 15 + 11 + 15 + 50 + 6);
    expect(putEventsEntrySize({ Source: 'podlift.watcher', DetailType: 'PodsPending' })).toBe(26);
  });

  it('accepts a call whose entries add up to exactly 256 KB and rejects one byte more', async () => {
    const { client, fake } = eventsWorld();
    const shell = entry({ blob: '' });
    const pad = 256 * 1024 - putEventsEntrySize(shell);
    const exact = entry({ blob: 'x'.repeat(pad) });
    const over = entry({ blob: 'x'.repeat(pad + 1) });
    expect(putEventsEntrySize(exact)).toBe(256 * 1024);

    await expect(client.send(new PutEventsCommand({ Entries: [exact] }))).resolves.toMatchObject({
      FailedEntryCount: 0,
    });
    await expect(client.send(new PutEventsCommand({ Entries: [over] }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(fake.events('podlift')).toHaveLength(1);
  });
});
