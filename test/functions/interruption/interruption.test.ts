import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeInterruptionHandler } from '../../../functions/interruption/handler';
import { runtimeOf } from '../../../functions/runtime';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { podManifest } from '../../../sim/world/builders';
import { lambdaContext, NODE, type ProvisionerWorld, withOneNode } from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/aws-events/${name}.json`, import.meta.url), 'utf8'));

/** A fixture's event about `instanceId` instead of the example instance. */
function about(name: string, instanceId: string): Json {
  const event = fixture(name);
  if (event.detail['instance-id']) event.detail['instance-id'] = instanceId;
  if (event.detail.affectedEntities) event.detail.affectedEntities = [{ entityValue: instanceId }];
  return event;
}

/** An SQS event whose records carry `bodies`, as the event source mapping delivers them. */
function sqsEvent(bodies: readonly Json[], ids = bodies.map((_, i) => `msg-${i}`)) {
  const template = fixture('sqs-lambda-event').Records[0];
  return {
    Records: bodies.map((body, i) => ({ ...template, messageId: ids[i], body: JSON.stringify(body) })),
  };
}

async function interruptionWorld(pods: readonly object[] = []) {
  const one = await withOneNode(pods, ['m5.large', 'm5.xlarge']);
  const seen = new RecordingObservability();
  const runtime = runtimeOf(
    'interruption',
    one.pw.world.ports,
    one.pw.world.time,
    seen.log,
    seen.metricsPort,
  );
  return { ...one, seen, handle: makeInterruptionHandler(() => runtime) };
}

const web = () =>
  podManifest({
    name: 'web-1',
    nodeName: NODE,
    ready: true,
    ownerKind: 'ReplicaSet',
    requests: { cpu: '1' },
  });
const claims = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[];
const running = (pw: ProvisionerWorld) =>
  pw.world.fakes.ec2
    .listInstances()
    .filter((i) => !['shutting-down', 'terminated'].includes(i.State?.Name ?? ''));

describe('interruption: a spot interruption warning', () => {
  it('cordons the node, launches a replacement for its pods at once, then deletes the NodeClaim', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const response = await t.handle(
      sqsEvent([about('spot-interruption-warning', t.instanceId)]),
      lambdaContext('i1'),
    );

    expect(response).toStrictEqual({ batchItemFailures: [] });
    const store = w.world.fakes.kube.store;
    expect((store.get('nodes', NODE) as Json).spec.taints).toContainEqual({
      key: 'karpenter.sh/disrupted',
      effect: 'NoSchedule',
    });
    const interrupted = store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    expect(interrupted.metadata.deletionTimestamp).toBeDefined();
    expect(JSON.parse(interrupted.metadata.annotations['podlift.dev/interruption']).kind).toBe(
      'spot-interruption',
    );
    const replacements = claims(w).filter((c) => c.metadata.name !== t.claimName);
    expect(replacements).toHaveLength(1);
    expect(running(w)).toHaveLength(2);
    const stored = await w.world.ports.lease.loadUnavailableOfferings();
    expect(stored.some((o) => o.instanceType === 'm5.large' && o.reason === 'spot-interruption')).toBe(true);
    expect(t.seen.total('InterruptionMessages', { kind: 'spot-interruption' })).toBe(1);
  });

  it('converges a duplicate warning and the state change that follows on one replacement', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const warning = about('spot-interruption-warning', t.instanceId);
    await t.handle(sqsEvent([warning, warning], ['a', 'b']), lambdaContext('i1'));
    await t.handle(sqsEvent([warning]), lambdaContext('i2'));
    await t.handle(sqsEvent([about('state-change-terminated', t.instanceId)]), lambdaContext('i3'));
    expect(claims(w).filter((c) => c.metadata.name !== t.claimName)).toHaveLength(1);
    expect(running(w)).toHaveLength(2);
  });

  it('gives the message back when the Lease is held elsewhere, having cordoned the node', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    await w.world.ports.lease.acquire('disruption/other', 120);
    const response = await t.handle(
      sqsEvent([about('spot-interruption-warning', t.instanceId)], ['m1']),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    const store = w.world.fakes.kube.store;
    expect((store.get('nodes', NODE) as Json).spec.taints).toContainEqual({
      key: 'karpenter.sh/disrupted',
      effect: 'NoSchedule',
    });
    expect(
      (store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata.deletionTimestamp,
    ).toBeUndefined();
  });
});

describe('interruption: other kinds', () => {
  it('replaces on an AWS Health scheduled change naming the instance, without marking the offering', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    await t.handle(sqsEvent([about('health-scheduled-change', t.instanceId)]), lambdaContext('i1'));
    expect(
      (w.world.fakes.kube.store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata
        .deletionTimestamp,
    ).toBeDefined();
    expect(claims(w)).toHaveLength(2);
    expect(await w.world.ports.lease.loadUnavailableOfferings()).toStrictEqual([]);
  });

  it('deletes the NodeClaim of a stopped instance without a replacement of its own', async () => {
    const t = await interruptionWorld();
    w = t.pw;
    await t.handle(sqsEvent([about('state-change-stopping', t.instanceId)]), lambdaContext('i1'));
    expect(
      (w.world.fakes.kube.store.get('nodeclaims.karpenter.sh', t.claimName) as Json).metadata
        .deletionTimestamp,
    ).toBeDefined();
    expect(claims(w)).toHaveLength(1);
  });

  it('records an Event for a rebalance recommendation on the NodeClaim and Node and changes nothing else', async () => {
    // Karpenter's actionForMessage gives a rebalance recommendation NoAction; notifyForMessage
    // records SpotRebalanceRecommendation (Normal) on both objects.
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const response = await t.handle(
      sqsEvent([about('rebalance-recommendation', t.instanceId)]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    const store = w.world.fakes.kube.store;
    const events = (store.list('events').items as Json[]).filter(
      (e) => e.reason === 'SpotRebalanceRecommendation',
    );
    expect(events.map((e) => [e.type, e.involvedObject.kind, e.involvedObject.name]).sort()).toStrictEqual([
      ['Normal', 'Node', NODE],
      ['Normal', 'NodeClaim', t.claimName],
    ]);
    const claim = store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    expect(claim.metadata.deletionTimestamp).toBeUndefined();
    expect(claim.metadata.annotations?.['podlift.dev/interruption']).toBeUndefined();
    expect((store.get('nodes', NODE) as Json).spec.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: 'karpenter.sh/disrupted' }),
    );
    expect(claims(w)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
    expect(await w.world.ports.lease.loadUnavailableOfferings()).toStrictEqual([]);
  });

  it('records the Event Karpenter records for each kind it acts on', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    await t.handle(sqsEvent([about('health-scheduled-change', t.instanceId)]), lambdaContext('i1'));
    const events = w.world.fakes.kube.store.list('events').items as Json[];
    expect(
      events
        .filter((e) => e.reason === 'InstanceUnhealthy')
        .map((e) => [e.type, e.involvedObject.kind])
        .sort(),
    ).toStrictEqual([
      ['Warning', 'Node'],
      ['Warning', 'NodeClaim'],
    ]);
  });

  it('acknowledges unknown kinds, malformed bodies and other clusters’ instances, counting each kind', async () => {
    const t = await interruptionWorld();
    w = t.pw;
    const response = await t.handle(
      sqsEvent([
        fixture('unknown-detail-type'),
        fixture('malformed-not-an-event'),
        fixture('spot-interruption-warning'),
        fixture('state-change-running'),
      ]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(t.seen.total('InterruptionMessages', { kind: 'unknown' })).toBe(2);
    expect(t.seen.total('InterruptionMessages', { kind: 'no-action' })).toBe(1);
    expect(claims(w)).toHaveLength(1);
    expect(await t.handle({ not: 'sqs' }, lambdaContext('i2'))).toStrictEqual({ batchItemFailures: [] });
  });

  it('fails only the record whose handling hit a transient error', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    w.world.fakes.kube.failNext('patch', `/api/v1/nodes/${NODE}`, 503, { times: 10 });
    const response = await t.handle(
      sqsEvent(
        [about('spot-interruption-warning', t.instanceId), fixture('unknown-detail-type')],
        ['bad', 'fine'],
      ),
      lambdaContext('i1'),
    );
    expect(response.batchItemFailures).toStrictEqual([{ itemIdentifier: 'bad' }]);
  });
});
