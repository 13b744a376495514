import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext, NODE, type ProvisionerWorld, scheduledEvent, settle } from '../provisioner/world';
import {
  about,
  claim,
  claims,
  interruptionWorld,
  type Json,
  replicaSetCopies,
  running,
  sqsEvent,
  web,
} from './world';

// Derived from aws/karpenter-provider-aws pkg/controllers/interruption/suite_test.go
// ("Processing Messages") and utils.go (handleNodeClaim, markUnavailableOfferings).

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const taints = (pw: ProvisionerWorld) =>
  ((pw.world.fakes.kube.store.get('nodes', NODE) as Json).spec.taints ?? []) as Json[];
const DISRUPTED = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
/** The pods the API server accepted an eviction of. */
const evicted = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.requests
    .filter((r) => r.method === 'POST' && r.status === 201 && r.path.endsWith('/eviction'))
    .map((r) => r.path.split('/').at(-2));
const drainedCondition = (pw: ProvisionerWorld, name: string) =>
  (claim(pw, name).status.conditions as Json[]).find((c) => c.type === 'Drained')?.status;
const marks = async (pw: ProvisionerWorld) =>
  (await pw.world.ports.lease.loadUnavailableOfferings()).map((o) => [
    o.instanceType,
    o.zone,
    o.capacityType,
    o.reason,
  ]);

describe('interruption: a spot interruption warning', () => {
  it('deletes the NodeClaim, cordons the node, marks its spot offering and launches a replacement elsewhere', async () => {
    // suite_test.go "should mark the ICE cache for the offering when getting a spot interruption warning"
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    const interrupted = claim(w, t.claimName);
    const type = interrupted.metadata.labels['node.kubernetes.io/instance-type'];
    const zone = interrupted.metadata.labels['topology.kubernetes.io/zone'];
    expect(interrupted.metadata.labels['karpenter.sh/capacity-type']).toBe('spot');

    const response = await t.handle(
      sqsEvent([about('spot-interruption-warning', t.instanceId)]),
      lambdaContext('i1'),
    );

    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(taints(w)).toContainEqual(DISRUPTED);
    const deleted = claim(w, t.claimName);
    expect(deleted.metadata.deletionTimestamp).toBeDefined();
    expect(JSON.parse(deleted.metadata.annotations['podlift.dev/interruption']).kind).toBe(
      'spot-interruption',
    );
    expect(await marks(w)).toStrictEqual([[type, zone, 'spot', 'spot-interruption']]);
    const replacements = claims(w).filter((c) => c.metadata.name !== t.claimName);
    expect(replacements).toHaveLength(1);
    const labels = replacements[0]?.metadata.labels;
    expect([
      labels['node.kubernetes.io/instance-type'],
      labels['topology.kubernetes.io/zone'],
    ]).not.toStrictEqual([type, zone]);
    expect(running(w)).toHaveLength(2);
    expect(t.seen.total('InterruptionMessages', { kind: 'spot-interruption' })).toBe(1);
    // The drain began in the same invocation, after the launch (termination carries it on).
    expect(evicted(w)).toStrictEqual(['web-1']);
    expect(drainedCondition(w, t.claimName)).toBe('Unknown');
    expect(t.seen.total('PodsEvicted')).toBe(1);
  });

  it('begins the drain of a NodeClaim already deleting whose drain has not begun, as on a redelivered warning', async () => {
    // An invocation that deleted the NodeClaim and then died: the record comes back, the NodeClaim
    // is deleting (nothing more to delete, Karpenter's deleteNodeClaim), and nobody drained it yet.
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    await w.world.ports.cluster.deleteNodeClaim(t.claimName);
    expect(evicted(w)).toStrictEqual([]);
    await t.handle(sqsEvent([about('spot-interruption-warning', t.instanceId)]), lambdaContext('i1'));
    expect(evicted(w)).toStrictEqual(['web-1']);
    expect(drainedCondition(w, t.claimName)).toBe('Unknown');

    // Delivered again once the drain has begun, it leaves the drain to termination.
    const before = w.world.fakes.kube.requests.length;
    await t.handle(sqsEvent([about('spot-interruption-warning', t.instanceId)]), lambdaContext('i2'));
    expect(
      w.world.fakes.kube.requests.slice(before).filter((r) => r.path.endsWith('/eviction')),
    ).toStrictEqual([]);
  });

  it('leaves the drain to termination when it cannot begin it, and still acknowledges the record', async () => {
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    w.world.fakes.kube.failNext('create', /\/eviction$/, 500);
    const response = await t.handle(
      sqsEvent([about('spot-interruption-warning', t.instanceId)]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(evicted(w)).toStrictEqual([]);
    expect(t.seen.linesSaying("starting the drain failed; termination's next run drains")).toHaveLength(1);
  });

  it('marks the spot offering, not the node`s own, when it names an on-demand node, and drains and replaces it', async () => {
    // markUnavailableOfferings marks the spot offering of the type and zone; the on-demand one stays.
    const t = await interruptionWorld([web()], 'on-demand');
    w = t.pw;
    const interrupted = claim(w, t.claimName);
    const type = interrupted.metadata.labels['node.kubernetes.io/instance-type'];
    const zone = interrupted.metadata.labels['topology.kubernetes.io/zone'];
    await t.handle(sqsEvent([about('spot-interruption-warning', t.instanceId)]), lambdaContext('i1'));
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(await marks(w)).toStrictEqual([[type, zone, 'spot', 'spot-interruption']]);
    expect(claims(w)).toHaveLength(2);
  });

  it('deletes, cordons and drains at once while another run holds the Lease, and launches once the hold lapses', async () => {
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    replicaSetCopies(w);
    const world = w.world;
    // A run that crashed holding the Lease: its hold lapses 15 s later.
    await world.ports.lease.acquire('provisioner/crashed', 15);
    const start = world.time.now();
    const response = await settle(
      world,
      t.handle(sqsEvent([about('spot-interruption-warning', t.instanceId)], ['m1']), lambdaContext('i1')),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    // Deleted within the first second (kube timestamps have whole seconds), 15 s before the launch.
    const deletedAt = Date.parse(claim(w, t.claimName).metadata.deletionTimestamp);
    expect(deletedAt - Math.floor(start / 1000) * 1000).toBeLessThanOrEqual(1_000);
    expect(taints(w)).toContainEqual(DISRUPTED);
    expect(evicted(w)).toStrictEqual(['web-1']);
    // The function waited for the hold to lapse and launched for web-1's copy itself.
    expect(world.time.now() - start).toBeGreaterThanOrEqual(15_000);
    expect(claims(w).filter((c) => c.metadata.name !== t.claimName)).toHaveLength(1);
  });

  it('leaves the replacement to the provisioner when the Lease stays held past what the invocation can wait', async () => {
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    replicaSetCopies(w);
    await w.world.ports.lease.acquire('disruption/other', 120);
    const message = sqsEvent([about('spot-interruption-warning', t.instanceId)], ['m1']);
    const start = w.world.time.now();
    const response = await settle(w.world, t.handle(message, lambdaContext('i1')));

    // Acknowledged: a redelivery would find the NodeClaim deleting and do nothing more.
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w)).toHaveLength(1);
    // The mark is kept on the Lease object without holding the Lease.
    expect((await marks(w)).map((m) => m[2])).toStrictEqual(['spot']);
    // lambdaContext gives 60 s: 5 s margin, 10 s kept for the run, so it stopped trying by 45 s.
    expect(w.world.time.now() - start).toBeLessThanOrEqual(45_000);
    expect(
      t.seen.linesSaying(
        "replacement capacity is left to the provisioner's next run: the Lease is held elsewhere",
      ),
    ).toHaveLength(1);

    // The provisioner's next run finds web-1's copy pending and launches for it.
    await w.world.ports.lease.release('disruption/other');
    await w.handler(scheduledEvent('p3'), lambdaContext('p3'));
    expect(claims(w).filter((c) => c.metadata.name !== t.claimName)).toHaveLength(1);
    // Delivered again, the warning changes nothing.
    expect(await t.handle(message, lambdaContext('i2'))).toStrictEqual({ batchItemFailures: [] });
    expect(claims(w)).toHaveLength(2);
    expect(running(w)).toHaveLength(2);
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
});

describe('interruption: other kinds', () => {
  it('deletes and replaces on a capacity-reservation warning, marking no offering', async () => {
    // suite_test.go "should delete the NodeClaim when receiving a capacity reservation interruption
    // warning"; Karpenter marks only the reservation, and podlift launches into none yet.
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const response = await t.handle(
      sqsEvent([about('capacity-reservation-interruption-warning', t.instanceId)]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w)).toHaveLength(2);
    expect(await marks(w)).toStrictEqual([]);
    expect(t.seen.total('InterruptionMessages', { kind: 'capacity-reservation-interruption' })).toBe(1);
  });

  it('replaces on an AWS Health scheduled change naming the instance, without marking the offering', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    await t.handle(sqsEvent([about('health-scheduled-change', t.instanceId)]), lambdaContext('i1'));
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w)).toHaveLength(2);
    expect(await marks(w)).toStrictEqual([]);
  });

  it('deletes the NodeClaim of a stopped instance without a replacement of its own', async () => {
    const t = await interruptionWorld();
    w = t.pw;
    await t.handle(sqsEvent([about('state-change-stopping', t.instanceId)]), lambdaContext('i1'));
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w)).toHaveLength(1);
  });

  it('leaves the NodeClaim alone on a state change to running', async () => {
    // suite_test.go "should delete a state change message when the state isn't in accepted states"
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const response = await t.handle(
      sqsEvent([about('state-change-running', t.instanceId)]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();
    expect(t.seen.total('InterruptionMessages', { kind: 'no-action' })).toBe(1);
  });

  it('records an Event for a rebalance recommendation on the NodeClaim and Node and changes nothing else', async () => {
    // Karpenter's actionForMessage gives a rebalance recommendation NoAction; notifyForMessage
    // records SpotRebalanceRecommendation (Normal) on both objects.
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    const requestsBefore = w.world.fakes.kube.requests.length;
    const response = await t.handle(
      sqsEvent([about('rebalance-recommendation', t.instanceId)]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    // Nothing to drain: the cluster's pods are not even read.
    const read = w.world.fakes.kube.requests.slice(requestsBefore).map((r) => r.path);
    expect(read.filter((path) => path.endsWith('/pods'))).toStrictEqual([]);
    const store = w.world.fakes.kube.store;
    const events = (store.list('events').items as Json[]).filter(
      (e) => e.reason === 'SpotRebalanceRecommendation',
    );
    expect(events.map((e) => [e.type, e.involvedObject.kind, e.involvedObject.name]).sort()).toStrictEqual([
      ['Normal', 'Node', NODE],
      ['Normal', 'NodeClaim', t.claimName],
    ]);
    const unchanged = claim(w, t.claimName);
    expect(unchanged.metadata.deletionTimestamp).toBeUndefined();
    expect(unchanged.metadata.annotations?.['podlift.dev/interruption']).toBeUndefined();
    expect(taints(w)).not.toContainEqual(expect.objectContaining({ key: 'karpenter.sh/disrupted' }));
    expect(claims(w)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
    expect(await marks(w)).toStrictEqual([]);
  });

  // utils.go `deleteNodeClaim`: TerminatingOnInterruption once the delete went through, and
  // nothing for a NodeClaim already being deleted.
  it('records TerminatingOnInterruption on the NodeClaim and its Node once it deletes the NodeClaim, once', async () => {
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    const store = t.pw.world.fakes.kube.store;
    const terminating = () =>
      (store.list('events').items as Json[])
        .filter((e) => e.reason === 'TerminatingOnInterruption')
        .map((e) => [e.type, e.involvedObject.kind, e.involvedObject.name, e.message, e.count]);
    await t.handle(sqsEvent([about('rebalance-recommendation', t.instanceId)]), lambdaContext('i0'));
    expect(terminating()).toEqual([]);
    const warning = sqsEvent([about('spot-interruption-warning', t.instanceId)]);
    await t.handle(warning, lambdaContext('i1'));
    const once = [
      ['Warning', 'NodeClaim', t.claimName, 'Interruption triggered termination for the NodeClaim', 1],
      ['Warning', 'Node', NODE, 'Interruption triggered termination for the Node', 1],
    ];
    expect(terminating()).toEqual(once);
    await t.handle(warning, lambdaContext('i2'));
    expect(terminating()).toEqual(once);
  });

  it('records no TerminatingOnInterruption when the NodeClaim was gone by the time it deleted it', async () => {
    const t = await interruptionWorld([web()], 'spot');
    w = t.pw;
    // Termination finished it between the function's read and its delete.
    const { cluster } = w.world.ports;
    const { store } = w.world.fakes.kube;
    const deleteNodeClaim = cluster.deleteNodeClaim.bind(cluster);
    vi.spyOn(cluster, 'deleteNodeClaim').mockImplementationOnce(async (name) => {
      const stored = store.get('nodeclaims.karpenter.sh', name) as Json;
      store.update('nodeclaims.karpenter.sh', {
        ...stored,
        metadata: { ...stored.metadata, finalizers: [] },
      });
      store.delete('nodeclaims.karpenter.sh', name);
      return deleteNodeClaim(name);
    });
    await t.handle(sqsEvent([about('spot-interruption-warning', t.instanceId)]), lambdaContext('i1'));
    const reasons = (store.list('events').items as Json[]).map((e) => e.reason);
    expect(reasons).toContain('SpotInterrupted');
    expect(reasons).not.toContain('TerminatingOnInterruption');
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
});
