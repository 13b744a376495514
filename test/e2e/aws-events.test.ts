import { afterEach, describe, expect, it } from 'vitest';
import { functionIdentity } from '../../sim/world/kube-identities';
import type { Simulation } from '../../sim/world/simulation';
import { allRunning, claims, deploy, e2eWorld, type Json, liveInstances, livePods } from './world';

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const events = (s: Simulation, reason: string) =>
  (s.world.fakes.kube.store.list('events').items as Json[]).filter((e) => e.reason === reason);
const claimOf = (s: Simulation, instanceId: string) =>
  claims(s).find((c) => String(c.status?.providerID ?? '').endsWith(`/${instanceId}`));
const evictionsOf = (s: Simulation, pods: readonly string[]) =>
  s.world.fakes.kube.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.status === 201 &&
      pods.some((name) => r.path.endsWith(`/pods/${name}/eviction`)),
  );

/** The names of the live pods bound to `node`. */
const podNamesOn = (s: Simulation, node: string | undefined) =>
  livePods(s)
    .filter((p) => p.spec.nodeName === node)
    .map((p) => p.metadata.name as string);

/** Nothing left to consolidate or drift: what changes is the event's doing alone. */
const still = { disruption: { consolidateAfter: 'Never' } };

describe('e2e: AWS Health scheduled change', () => {
  it('replaces and drains the node before the event’s start time', async () => {
    sim = await e2eWorld({ pool: still });
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const [target] = liveInstances(sim);
    const id = target.InstanceId ?? '';
    const node = sim.kubelet.nodeOf(id);
    const claim = claimOf(sim, id)?.metadata.name;
    const podsOnNode = livePods(sim)
      .filter((p) => p.spec.nodeName === node)
      .map((p) => p.metadata.name);
    expect(podsOnNode.length).toBeGreaterThan(0);
    const startTime = sim.world.time.now() + 10 * 60_000;
    sim.scheduledChange([id], 10 * 60_000);

    // podlift, not the retirement, takes the instance down, and well before the start time.
    const terminatedByPodlift = () =>
      sim?.world.fakes.ec2.instance(id)?.StateReason?.Code === 'Client.UserInitiatedShutdown';
    expect(await sim.until(terminatedByPodlift, 10 * 60_000 - 1000)).toBe(true);
    expect(sim.world.time.now()).toBeLessThan(startTime);
    // Drained through the eviction API: every pod the node ran was evicted.
    expect(evictionsOf(sim, podsOnNode).length).toBeGreaterThanOrEqual(podsOnNode.length);
    // Replaced: the interruption function launched capacity, and the pods run elsewhere.
    expect(sim.decisions.some((d) => d.actor === 'interruption' && d.kind === 'nodeclaim-created')).toBe(
      true,
    );
    const retired = claims(sim).find((c) => c.metadata.name === claim);
    expect(retired === undefined || retired.metadata.deletionTimestamp !== undefined).toBe(true);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    expect(livePods(sim).every((p) => p.spec.nodeName !== node)).toBe(true);
    expect(
      events(sim, 'InstanceUnhealthy')
        .map((e) => e.involvedObject.kind)
        .sort(),
    ).toStrictEqual(['Node', 'NodeClaim']);

    // Past the start time the checker holds the replacement to it, and it was ready.
    await sim.advance(Math.max(0, startTime - sim.world.time.now()) + 120_000);
    expect(sim.interruptionsSurvived).toBe(1);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: spot rebalance recommendation', () => {
  it('records Karpenter’s Event and does nothing more', async () => {
    sim = await e2eWorld({ pool: still });
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const spot = liveInstances(sim).find((i) => i.InstanceLifecycle === 'spot');
    expect(spot).toBeDefined();
    const id = spot?.InstanceId ?? '';
    const node = sim.kubelet.nodeOf(id);
    const claim = claimOf(sim, id)?.metadata.name;
    const before = {
      claims: claims(sim).map((c) => c.metadata.name),
      instances: liveInstances(sim).map((i) => i.InstanceId),
      pods: livePods(sim).map((p) => `${p.metadata.name}@${p.spec.nodeName}`),
    };
    const requestsBefore = sim.world.fakes.kube.requests.length;
    const at = sim.world.time.now();

    sim.rebalance(id);
    await sim.advance(5 * 60_000);

    // The message reached the interruption function and was acknowledged.
    expect(
      sim.router.invocations.filter((i) => i.fn === 'interruption' && i.at >= at && i.outcome === 'ok')
        .length,
    ).toBe(1);
    expect(sim.router.queue.depth).toBe(0);
    // Karpenter's notifyForMessage: SpotRebalanceRecommendation, Normal, on the NodeClaim and the Node.
    expect(
      events(sim, 'SpotRebalanceRecommendation')
        .map((e) => [e.type, e.involvedObject.kind, e.involvedObject.name])
        .sort(),
    ).toStrictEqual([
      ['Normal', 'Node', node],
      ['Normal', 'NodeClaim', claim],
    ]);
    // actionForMessage: NoAction — nothing cordoned, deleted, launched, evicted or marked unavailable.
    expect(claims(sim).map((c) => c.metadata.name)).toStrictEqual(before.claims);
    expect(claims(sim).every((c) => !c.metadata.deletionTimestamp)).toBe(true);
    expect(liveInstances(sim).map((i) => i.InstanceId)).toStrictEqual(before.instances);
    expect(livePods(sim).map((p) => `${p.metadata.name}@${p.spec.nodeName}`)).toStrictEqual(before.pods);
    const nodeObject = sim.world.fakes.kube.store.get('nodes', node ?? '') as Json;
    expect((nodeObject.spec.taints ?? []).map((t: Json) => t.key)).not.toContain('karpenter.sh/disrupted');
    expect(nodeObject.spec.unschedulable).toBeFalsy();
    const writes = sim.world.fakes.kube.requests
      .slice(requestsBefore)
      .filter((r) => ['create', 'update', 'patch', 'delete'].includes(r.verb ?? ''))
      .filter((r) => /\/(nodes|nodeclaims|pods)(\/|$)/.test(r.path));
    expect(writes.map((r) => `${r.method} ${r.path}`)).toStrictEqual([]);
    expect(await sim.world.ports.lease.loadUnavailableOfferings()).toStrictEqual([]);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: spot interruption while another run holds the cluster Lease', () => {
  it('deletes the NodeClaim at once and has the pods running elsewhere before the reclaim', async () => {
    // Karpenter's interruption controller deletes the NodeClaim on the warning and leaves the pods
    // to its provisioner (pkg/controllers/interruption/utils.go handleNodeClaim): neither the
    // deletion nor the drain waits for the Lease, only the replacement launch does.
    sim = await e2eWorld({ pool: still });
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const spot = liveInstances(sim).find((i) => i.InstanceLifecycle === 'spot');
    const id = spot?.InstanceId ?? '';
    const node = sim.kubelet.nodeOf(id);
    const claim = claimOf(sim, id)?.metadata.name;
    const onNode = podNamesOn(sim, node);
    expect(onNode.length).toBeGreaterThan(0);
    // Away from the one-minute schedules, so that the provisioner's scheduled run cannot be the
    // one that launches once the hold lapses.
    await sim.advance(20_000);
    // A run that crashed holding the Lease: it lapses 15 s later (the Lease's duration).
    expect((await sim.world.ports.lease.acquire('provisioner/crashed', 15)).acquired).toBe(true);
    const warnedAt = sim.world.time.now();
    const before = sim.decisions.length;

    sim.interrupt(id);

    const deleting = () =>
      claims(sim as Simulation).some((c) => c.metadata.name === claim && c.metadata.deletionTimestamp);
    expect(await sim.until(deleting, 30_000)).toBe(true);
    const deletedAt = Date.parse(claimOf(sim, id)?.metadata.deletionTimestamp);
    expect(deletedAt - Math.floor(warnedAt / 1000) * 1000).toBeLessThanOrEqual(2_000);
    // The interruption function evicted the node's pods before it waited for the Lease.
    const drained = sim.decisions.slice(before).find((d) => d.kind === 'drained');
    expect(drained?.actor).toBe('interruption');
    expect((drained?.at ?? Number.POSITIVE_INFINITY) - warnedAt).toBeLessThanOrEqual(2_000);
    expect(evictionsOf(sim, onNode).map((r) => r.user)).toStrictEqual(
      onNode.map(() => functionIdentity('interruption').user.name),
    );
    // The pods run elsewhere before EC2 takes the instance.
    const movedBeforeReclaim = await sim.until(
      () =>
        allRunning(sim as Simulation) && livePods(sim as Simulation).every((p) => p.spec.nodeName !== node),
      warnedAt + 120_000 - sim.world.time.now(),
    );
    expect(movedBeforeReclaim).toBe(true);
    // Launched once the crashed run's hold lapsed, rather than at the provisioner's next scheduled
    // run: by the provisioner on the evicted pods' copies. (The world stands still while an
    // invocation waits, so their ReplicaSet creates the copies only once the interruption function
    // returns; test/functions/interruption has it launch for pods it finds.)
    const since = sim.decisions.slice(before);
    const warned = since.find((d) => d.kind === 'interruption-warning');
    const launch = since.find((d) => d.kind === 'nodeclaim-created');
    expect((launch?.at ?? Number.POSITIVE_INFINITY) - (warned?.at ?? 0)).toBeLessThan(20_000);
    await sim.advance(150_000);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: spot interruption with every hint lost', () => {
  it('begins the drain in the warning’s own invocation, not at termination’s next run', async () => {
    // Karpenter's termination controller drains a deleted NodeClaim's Node as soon as its watch sees
    // the deletion (node/termination/controller.go finalize). podlift's termination runs on the
    // watcher's hint; lost, it would wait for its one-minute schedule, a minute of the two the
    // warning gives. The interruption function begins the drain itself (interruption/drain.ts).
    sim = await e2eWorld({ pool: still });
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const id = liveInstances(sim).find((i) => i.InstanceLifecycle === 'spot')?.InstanceId ?? '';
    const node = sim.kubelet.nodeOf(id);
    const onNode = podNamesOn(sim, node);
    expect(onNode.length).toBeGreaterThan(0);
    sim.router.faults = { drop: 1, random: () => 0 };
    const requestsBefore = sim.world.fakes.kube.requests.length;
    const warnedAt = sim.world.time.now();

    sim.interrupt(id);
    const evictions = () =>
      (sim as Simulation).world.fakes.kube.requests
        .slice(requestsBefore)
        .filter((r) => r.method === 'POST' && r.status === 201 && r.path.endsWith('/eviction'));
    expect(await sim.until(() => evictions().length >= onNode.length, 10_000)).toBe(true);
    // The hints flow again: the replacement's registration is not this test's concern.
    sim.router.faults = undefined;

    // Each of the node's pods evicted once, by the interruption function, within seconds of the warning.
    expect(
      evictions()
        .map((r) => r.path.split('/').at(-2))
        .sort(),
    ).toStrictEqual([...onNode].sort());
    expect(new Set(evictions().map((r) => r.user))).toStrictEqual(
      new Set([functionIdentity('interruption').user.name]),
    );
    const claim = claimOf(sim, id);
    expect(claim?.status?.conditions?.find((c: Json) => c.type === 'Drained')?.status).toBe('Unknown');
    // Termination's runs (its schedule) finish what the interruption function began.
    await sim.advance(warnedAt + 150_000 - sim.world.time.now());
    expect(allRunning(sim)).toBe(true);
    expect(claims(sim).some((c) => String(c.status?.providerID ?? '').endsWith(`/${id}`))).toBe(false);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: the replace-before-reclaim guarantee follows the pods', () => {
  it('is broken when no run could launch for them before the instance went', async () => {
    // The interruption function launched nothing (the Lease stayed held past the reclaim), so no
    // replacement of its own can be checked: the node's pods, left pending when EC2 takes the
    // instance, are what break the guarantee.
    sim = await e2eWorld({ pool: still });
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const id = liveInstances(sim).find((i) => i.InstanceLifecycle === 'spot')?.InstanceId ?? '';
    expect((await sim.world.ports.lease.acquire('provisioner/stuck', 600)).acquired).toBe(true);
    const launchesBefore = sim.decisions.filter((d) => d.kind === 'nodeclaim-created').length;

    sim.interrupt(id);
    await sim.advance(150_000);

    expect(sim.decisions.filter((d) => d.kind === 'nodeclaim-created').length).toBe(launchesBefore);
    expect(sim.invariants.violations).toEqual([
      `spot interruption of ${id}: no replacement initialized before the instance went`,
    ]);
    expect(sim.interruptionsSurvived).toBe(0);
  }, 90_000);

  it('is kept when the pods moved onto existing capacity, whatever a later interruption of it leaves pending', async () => {
    // The first node's pod fits on the second node (it has room), so the interruption function
    // launches nothing for it. Within its two minutes the second node is interrupted too, with the
    // Lease held so nothing launches for that one: its drain's pods, the first node's controller's
    // among them, are pending at the first node's reclaim. Those are the second node's to answer
    // for; the first node's pod had been running elsewhere since well before.
    sim = await e2eWorld({ pool: still, instanceTypes: ['m5.large', 'm5.2xlarge'] });
    deploy(sim, 'api', 1);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const first = liveInstances(sim)[0]?.InstanceId ?? '';
    deploy(sim, 'web', 1, { requests: { cpu: '3' } });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const second = liveInstances(sim).find((i) => i.InstanceId !== first)?.InstanceId ?? '';
    const firstNode = sim.kubelet.nodeOf(first);
    const secondNode = sim.kubelet.nodeOf(second);
    expect(
      livePods(sim)
        .map((p) => `${p.metadata.name.split('-')[0]}@${p.spec.nodeName}`)
        .sort(),
    ).toStrictEqual([`api@${firstNode}`, `web@${secondNode}`]);
    // An m5.2xlarge for the 3-cpu pod: room left for the api pod.
    expect(claimOf(sim, second)?.status?.capacity?.cpu).toBe('8');
    const launchesBefore = sim.decisions.filter((d) => d.kind === 'nodeclaim-created').length;

    sim.interrupt(first);
    const firstReclaimAt = sim.world.time.now() + 120_000;
    const movedToSecond = () =>
      livePods(sim as Simulation).every(
        (p) => p.status?.phase === 'Running' && p.spec.nodeName === secondNode,
      );
    expect(await sim.until(movedToSecond, 60_000)).toBe(true);
    expect(sim.decisions.filter((d) => d.kind === 'nodeclaim-created').length).toBe(launchesBefore);

    expect((await sim.world.ports.lease.acquire('provisioner/stuck', 600)).acquired).toBe(true);
    expect(sim.world.time.now()).toBeLessThan(firstReclaimAt - 60_000);
    sim.interrupt(second);
    await sim.advance(firstReclaimAt - sim.world.time.now() - 1000);
    // The second node's drain evicted the api pod again, and its replacement has nowhere to go
    // when the first instance is reclaimed.
    const pendingApi = livePods(sim).filter((p) => p.metadata.name.startsWith('api-') && !p.spec.nodeName);
    expect(pendingApi).toHaveLength(1);
    await sim.advance(150_000);

    expect(sim.decisions.filter((d) => d.kind === 'nodeclaim-created').length).toBe(launchesBefore);
    expect(sim.invariants.violations).toEqual([
      `spot interruption of ${second}: no replacement initialized before the instance went`,
    ]);
    expect(sim.interruptionsSurvived).toBe(1);
  }, 90_000);
});
