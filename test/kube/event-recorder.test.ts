import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/core/model/pod';
import {
  EventRecorder,
  nodeClaimObject,
  nodeObject,
  nodePoolObject,
  podObject,
} from '../../shared/kube/event-recorder';
import type { Harness } from './harness';
import { startHarness } from './harness';

let h: Harness;
let recorder: EventRecorder;
beforeEach(async () => {
  h = await startHarness();
  recorder = new EventRecorder(h.api, h.clock, { instance: 'provisioner' });
});
afterEach(() => h.server.close());

const pod = { namespace: 'team-a', name: 'web-1', uid: 'pod-uid-1' } as Pod;
const nominated = {
  object: podObject(pod),
  type: 'Normal',
  reason: 'Nominated',
  message: 'Pod should schedule on: nodeclaim/default-x7k2q',
} as const;
const events = (namespace: string) =>
  h.server.store.list('events', { namespace }).items as unknown as Record<string, unknown>[];

describe('EventRecorder', () => {
  it('creates a core/v1 Event in the pod namespace with source podlift and the involved uid', async () => {
    expect(await recorder.record(nominated)).toBe('created');
    const [event] = events('team-a');
    expect(event).toMatchObject({
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'web-1', namespace: 'team-a', uid: 'pod-uid-1' },
      type: 'Normal',
      reason: 'Nominated',
      message: 'Pod should schedule on: nodeclaim/default-x7k2q',
      source: { component: 'podlift' },
      reportingComponent: 'podlift',
      reportingInstance: 'provisioner',
      count: 1,
      firstTimestamp: '2026-11-21T10:00:00.000Z',
      lastTimestamp: '2026-11-21T10:00:00.000Z',
    });
    expect((event.metadata as { name: string }).name).toMatch(/^web-1\.[0-9a-f]+$/);
  });

  it('says an event recorded once only when the latest of its reason says something else', async () => {
    const once = { ...nominated, once: true } as const;
    expect(await recorder.record(once)).toBe('created');
    h.clock.advance(60 * 60_000); // long past the counting window: still the same thing said
    expect(await new EventRecorder(h.api, h.clock).record(once)).toBe('unchanged');
    expect(events('team-a')).toMatchObject([{ count: 1 }]);

    const elsewhere = { ...once, message: 'Pod should schedule on: nodeclaim/default-abcde' };
    h.clock.advance(1_000);
    expect(await recorder.record(elsewhere)).toBe('created');
    expect(await recorder.record(elsewhere)).toBe('unchanged');
    // Back to the first: the latest says otherwise, so it is said again (a new Event, the old
    // one being outside the counting window).
    h.clock.advance(1_000);
    expect(await recorder.record(once)).toBe('created');
    expect(await recorder.record(once)).toBe('unchanged');
    expect(events('team-a')).toHaveLength(3);
  });

  it('counts an identical recent event instead of creating another, as kubectl shows "(x3 over 2m)"', async () => {
    await recorder.record(nominated);
    h.clock.advance(60_000);
    expect(await new EventRecorder(h.api, h.clock).record(nominated)).toBe('counted');
    h.clock.advance(60_000);
    await recorder.record(nominated);
    const all = events('team-a');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ count: 3, lastTimestamp: '2026-11-21T10:02:00Z' });
    const read = await h.server
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace: 'team-a' });
    expect(read.items[0].firstTimestamp).toEqual(new Date('2026-11-21T10:00:00Z'));
    const patch = h.server.requests.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({ contentType: 'application/merge-patch+json' });
  });

  it('creates a new event when the message, type or reason differs, or the last one is too old', async () => {
    await recorder.record(nominated);
    await recorder.record({ ...nominated, message: 'Pod should schedule on: nodeclaim/default-b2c3d' });
    await recorder.record({ ...nominated, type: 'Warning' });
    h.clock.advance(11 * 60_000);
    await recorder.record(nominated);
    expect(events('team-a')).toHaveLength(4);
    expect(events('team-a').every((e) => e.count === 1)).toBe(true);
  });

  it('records events about cluster-scoped objects in the default namespace', async () => {
    await recorder.record({
      object: nodeObject('ip-10-0-0-1', 'node-uid'),
      type: 'Normal',
      reason: 'DisruptionBlocked',
      message: 'PDB default/web prevents pod evictions',
    });
    await recorder.record({
      object: nodePoolObject({ name: 'default', uid: 'np-uid' }),
      type: 'Warning',
      reason: 'NodePoolLimitReached',
      message: 'cpu limit 100 reached',
    });
    await recorder.record({
      object: nodeClaimObject({ name: 'default-x7k2q' }),
      type: 'Warning',
      reason: 'InsufficientCapacityError',
      message: 'x'.repeat(5000),
    });
    const all = events('default');
    expect(all.map((e) => (e.involvedObject as { kind: string }).kind).sort()).toEqual([
      'Node',
      'NodeClaim',
      'NodePool',
    ]);
    const nodePool = all.find((e) => (e.involvedObject as { kind: string }).kind === 'NodePool');
    expect(nodePool?.involvedObject).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      name: 'default',
      uid: 'np-uid',
    });
    const claim = all.find((e) => (e.involvedObject as { kind: string }).kind === 'NodeClaim');
    expect(String(claim?.message)).toHaveLength(1024);
  });

  it('leaves out the uid of a pod that never had one from the API', () => {
    expect(podObject({ namespace: 'a', name: 'b', uid: 'a/b' } as Pod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'b',
      namespace: 'a',
    });
  });
});

describe('EventRecorder under concurrency', () => {
  it('lists again when another recorder counted the same event first (409), and needs no get', async () => {
    await recorder.record(nominated);
    h.clock.advance(1_000);
    h.server.failNext('patch', /^\/api\/v1\/namespaces\/team-a\/events\//, 409);
    expect(await recorder.record(nominated)).toBe('counted');
    expect(events('team-a')[0]).toMatchObject({ count: 2 });
    expect(h.server.requests.filter((r) => r.verb === 'list')).toHaveLength(3);
    expect(h.server.requests.some((r) => r.verb === 'get')).toBe(false);
  });
});

describe('EventRecorder.recordEach', () => {
  const blocked = (node: string, message: string) =>
    ({
      object: nodeObject(node),
      type: 'Normal',
      reason: 'DisruptionBlocked',
      message,
      once: true,
    }) as const;
  const unconsolidatable = (node: string, message: string) =>
    ({ ...blocked(node, message), reason: 'Unconsolidatable' }) as const;
  const lists = () => h.server.requests.filter((r) => r.verb === 'list');

  it('reads the Events of each reason once, however many objects it explains', async () => {
    const batch = ['a', 'b', 'c', 'd'].flatMap((n) => [
      blocked(`node-${n}`, 'pdb prevents eviction'),
      unconsolidatable(`node-${n}`, "Can't replace with a cheaper node"),
    ]);
    expect(await recorder.recordEach(batch)).toEqual(Array(8).fill('created'));
    expect(lists()).toHaveLength(2);
    expect(lists().map((r) => r.query.fieldSelector)).toEqual([
      'reason=DisruptionBlocked',
      'reason=Unconsolidatable',
    ]);
    expect(events('default')).toHaveLength(8);

    // The next run, nothing changed but one message: one new Event, still two reads.
    h.server.clearRequests();
    h.clock.advance(60_000);
    const next = batch.map((e) =>
      e.object.name === 'node-b' && e.reason === 'Unconsolidatable' ? { ...e, message: 'other' } : e,
    );
    const outcomes = await new EventRecorder(h.api, h.clock).recordEach(next);
    expect(outcomes.filter((o) => o === 'unchanged')).toHaveLength(7);
    expect(outcomes[3]).toBe('created');
    expect(lists()).toHaveLength(2);
    expect(events('default')).toHaveLength(9);
  });

  it('answers as record does one by one: counts identical recent events, including its own', async () => {
    const plain = { ...blocked('node-a', 'pdb'), once: false } as const;
    await recorder.record(plain);
    h.clock.advance(1_000);
    expect(await recorder.recordEach([plain, plain, { ...plain, object: nodeObject('node-b') }])).toEqual([
      'counted',
      'counted',
      'created',
    ]);
    expect(events('default').map((e) => e.count)).toEqual([3, 1]);
    const fresh = { ...plain, object: nodeObject('node-c') };
    expect(await recorder.recordEach([fresh, fresh])).toEqual(['created', 'counted']);
    // An Event about another object of the same name but a different uid is not this one's.
    const withUid = { ...plain, object: nodeObject('node-a', 'uid-2') };
    expect(await recorder.recordEach([{ ...withUid, once: true }])).toEqual(['created']);
  });

  it('goes on past an Event the API refuses, and lists afresh after a conflict', async () => {
    h.server.failNext('create', /^\/api\/v1\/namespaces\/default\/events$/, 403);
    const outcomes = await recorder.recordEach([blocked('node-a', 'x'), blocked('node-b', 'y')]);
    expect(outcomes[0]).toBeInstanceOf(Error);
    expect(String(outcomes[0])).toContain('DisruptionBlocked on Node node-a');
    expect(outcomes[1]).toBe('created');

    h.clock.advance(1_000);
    h.server.clearRequests();
    h.server.failNext('patch', /^\/api\/v1\/namespaces\/default\/events\//, 409);
    const again = { ...blocked('node-b', 'y'), once: false } as const;
    expect(await recorder.recordEach([again])).toEqual(['counted']);
    expect(lists()).toHaveLength(2);
    expect(
      events('default').find((e) => (e.involvedObject as { name: string }).name === 'node-b'),
    ).toMatchObject({
      count: 2,
    });
  });
});
