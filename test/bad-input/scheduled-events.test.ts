import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDisruptionHandler } from '../../functions/disruption/handler';
import { makeProvisionerHandler } from '../../functions/provisioner/handler';
import { runtimeOf } from '../../functions/runtime';
import { makeTerminationHandler } from '../../functions/termination/handler';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { nodeManifest } from '../../sim/world/builders';
import { claim, type Json, running, web } from '../functions/interruption/world';
import { lambdaContext, NODE, type ProvisionerWorld, withOneNode } from '../functions/provisioner/world';

// Garbage on the EventBridge targets of the three scheduled loops (issue 20, item 7). An event
// is only a hint (functions/trigger.ts): one the loop does not know is logged and acknowledged,
// never thrown back for EventBridge to retry; one it knows makes the loop re-read the cluster.
// Either way nothing podlift does not own is touched, whatever the event names, and the loop
// keeps running. One world per handler, shared by its twenty events.

const FOREIGN_NODE = 'ip-10-9-9-9.ec2.internal';

const envelope = (detailType: unknown, detail: unknown, source: unknown = 'podlift.watcher') => ({
  version: '0',
  id: 'evt',
  'detail-type': detailType,
  source,
  account: '111122223333',
  time: '2026-01-01T00:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
});

/** Twenty events no scheduled loop should act on beyond a normal, level-triggered run. */
const GARBAGE: readonly { readonly what: string; readonly event: unknown }[] = [
  { what: 'undefined', event: undefined },
  { what: 'null', event: null },
  { what: 'a number', event: 42 },
  { what: 'a string', event: 'Scheduled Event' },
  { what: 'an array', event: [{ source: 'aws.events', 'detail-type': 'Scheduled Event' }] },
  { what: 'an empty object', event: {} },
  {
    what: 'an id that is not a string',
    event: { ...envelope('Scheduled Event', {}, 'aws.events'), id: { $ne: 1 } },
  },
  { what: 'PodsPending without detail', event: envelope('PodsPending', undefined) },
  { what: 'PodsPending with a string detail', event: envelope('PodsPending', 'pods') },
  {
    what: 'PodsPending of an unknown schema version',
    event: envelope('PodsPending', { schemaVersion: 999, cluster: 'demo', pods: [] }),
  },
  {
    what: 'PodsPending naming 50,000 pods that do not exist',
    event: envelope('PodsPending', {
      schemaVersion: 1,
      cluster: 'demo',
      pods: Array.from({ length: 50_000 }, (_, i) => ({
        namespace: 'kube-system',
        name: `ghost-${i}`,
        uid: `u-${i}`,
      })),
      total: 50_000,
      truncated: false,
    }),
  },
  {
    what: 'PodsPending of another cluster',
    event: envelope('PodsPending', {
      schemaVersion: 1,
      cluster: 'other',
      pods: [],
      total: 0,
      truncated: false,
    }),
  },
  {
    what: 'CapacityChanged naming a foreign Node',
    event: envelope('CapacityChanged', { schemaVersion: 1, cluster: 'demo', nodes: [FOREIGN_NODE] }),
  },
  { what: 'an unknown detail-type', event: envelope('NodeDeleted', { node: FOREIGN_NODE }) },
  { what: 'a numeric detail-type', event: envelope(7, {}) },
  { what: 'a 100,000-character detail-type', event: envelope('x'.repeat(100_000), {}) },
  { what: 'a detail nested 10,000 levels', event: envelope('PodsPending', deep(10_000)) },
  { what: 'a schedule of another source', event: envelope('Scheduled Event', {}, 'evil.events') },
  {
    what: 'a __proto__ key',
    event: JSON.parse(
      '{"__proto__": {"polluted": true}, "source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}',
    ),
  },
  {
    what: 'an EC2 spot warning sent to the wrong target',
    event: { ...envelope('EC2 Spot Instance Interruption Warning', { 'instance-id': 'i-0' }, 'aws.ec2') },
  },
];

function deep(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { detail: value };
  return value;
}

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;
const HANDLERS = {
  provisioner: makeProvisionerHandler,
  disruption: makeDisruptionHandler,
  termination: makeTerminationHandler,
} as const;

describe.each(Object.keys(HANDLERS) as (keyof typeof HANDLERS)[])(
  '%s: garbage EventBridge events',
  (loop) => {
    let pw: ProvisionerWorld;
    let handler: Handler;
    let foreign = '';
    let foreignBefore: Json;
    let owned: { claimName: string; instanceId: string };
    const seen = new RecordingObservability();
    const outcomes = new Map<string, unknown>();

    beforeAll(async () => {
      const one = await withOneNode([web()]);
      pw = one.pw;
      owned = { claimName: one.claimName, instanceId: one.instanceId };
      const { ec2, kube } = pw.world.fakes;
      foreign = ec2.launchOutside({ instanceType: 'm5.large', tags: [{ Key: 'team', Value: 'other' }] });
      const node = nodeManifest({ name: FOREIGN_NODE, ready: true });
      const zone = ec2.instance(foreign)?.Placement?.AvailabilityZone;
      kube.store.seed('nodes', { ...node, spec: { ...node.spec, providerID: `aws:///${zone}/${foreign}` } });
      foreignBefore = kube.store.get('nodes', FOREIGN_NODE) as Json;
      const runtime = runtimeOf(loop, pw.world.ports, pw.world.time, seen.log, seen.metricsPort);
      handler = HANDLERS[loop](() => runtime) as Handler;
      for (const { what, event } of GARBAGE) {
        try {
          outcomes.set(what, { returned: await handler(event, lambdaContext(what.slice(0, 40))) });
        } catch (error) {
          outcomes.set(what, { threw: error instanceof Error ? error.message : String(error) });
        }
      }
    }, 120_000);

    afterAll(async () => {
      await pw?.world.close();
    });

    it.each(GARBAGE)('answers $what without throwing: acknowledged, or a normal run', ({ what }) => {
      const outcome = outcomes.get(what) as { returned?: unknown; threw?: string };
      expect(outcome.threw).toBeUndefined();
      if (outcome.returned !== undefined) expect(outcome.returned).toMatchObject({});
    });

    it('touches no instance or Node it does not own, and leaves its own node alone', () => {
      const { kube } = pw.world.fakes;
      expect(running(pw).map((i) => i.InstanceId)).toEqual(
        expect.arrayContaining([foreign, owned.instanceId]),
      );
      const after = kube.store.get('nodes', FOREIGN_NODE) as Json;
      expect(after.metadata.resourceVersion).toBe(foreignBefore.metadata.resourceVersion);
      expect((kube.store.get('nodes', NODE) as Json).spec.taints ?? []).toEqual([]);
      expect(claim(pw, owned.claimName).metadata.deletionTimestamp).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(seen.lines.filter((l) => l.level === 'error')).toEqual([]);
    });
  },
);
