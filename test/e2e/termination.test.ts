import { afterEach, describe, expect, it } from 'vitest';
import type { Simulation } from '../../sim/world/simulation';
import { allRunning, claims, deploy, e2eWorld, type Json, ON_DEMAND_POOL } from './world';

// Termination over the cluster world, derived from kubernetes-sigs/karpenter
// pkg/controllers/node/termination/controller.go `finalize` and pkg/utils/pod/scheduling.go
// `IsStuckTerminating`. Each test holds whether the fake API server removes a deleted pod at
// once or keeps it Terminating until its kubelet confirms: the pods made stuck here carry a
// finalizer nobody removes, and a dead kubelet confirms nothing either way.

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const store = (s: Simulation) => s.world.fakes.kube.store;
const pods = (s: Simulation, app: string) =>
  (store(s).list('pods').items as Json[]).filter((p) => p.metadata.labels?.app === app);
/** The NodeClaim whose Node runs `pod`. */
function claimOf(s: Simulation, pod: Json): Json | undefined {
  const node = store(s).find('nodes', pod.spec.nodeName) as Json | undefined;
  return claims(s).find((c) => c.status?.providerID === node?.spec.providerID);
}
const gone = (s: Simulation, claim: string) => !claims(s).some((c) => c.metadata.name === claim);
const eventReasons = (s: Simulation, name: string) =>
  (store(s).list('events').items as Json[])
    .filter((e) => e.involvedObject?.name === name)
    .map((e) => e.reason as string);

describe('e2e: termination', () => {
  it('finalizes a deleted NodeClaim whose Node keeps a pod stuck Terminating (a finalizer nobody removes)', async () => {
    sim = await e2eWorld({ pool: ON_DEMAND_POOL });
    deploy(sim, 'held', 1);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const [pod] = pods(sim, 'held');
    const claim = claimOf(sim, pod);
    expect(claim).toBeDefined();
    store(sim).update('pods', { ...pod, metadata: { ...pod.metadata, finalizers: ['example.com/hold'] } });
    store(sim).delete('pods', pod.metadata.name);
    store(sim).delete('nodeclaims.karpenter.sh', claim?.metadata.name);

    // Not before the pod is a minute past its deletionTimestamp (IsStuckTerminating)…
    await sim.advance(50_000);
    expect(gone(sim, claim?.metadata.name)).toBe(false);
    // …but then, not forever.
    expect(await sim.until(() => gone(sim as Simulation, claim?.metadata.name), 600_000)).toBe(true);
    expect(store(sim).find('nodes', pod.spec.nodeName)).toBeUndefined();
    const left = store(sim).find('pods', pod.metadata.name) as Json | undefined;
    expect(left?.metadata.deletionTimestamp).toBeDefined();
    // The held pod went down with its instance; it was deleted before the drain began, not left undrained.
    expect(sim.invariants.violations.filter((v) => !v.includes(pod.metadata.name))).toEqual([]);
  }, 120_000);

  it('finalizes a NodeClaim whose kubelet died mid-drain once its instance is gone, without waiting for its pods', async () => {
    sim = await e2eWorld({ pool: ON_DEMAND_POOL });
    // A do-not-disrupt duration (from a start time the kubelet stand-in does not report: in force)
    // holds the drain until something else ends it.
    deploy(sim, 'pinned', 1, { annotations: { 'karpenter.sh/do-not-disrupt': '1h' } });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const [pod] = pods(sim, 'pinned');
    const claim = claimOf(sim, pod) as Json;
    const instanceId = String(claim.status.providerID).split('/').pop() ?? '';
    store(sim).delete('nodeclaims.karpenter.sh', claim.metadata.name);
    await sim.advance(180_000);
    expect(gone(sim, claim.metadata.name)).toBe(false);
    expect(eventReasons(sim, pod.spec.nodeName)).toContain('FailedDraining');
    expect(sim.world.fakes.kube.requests.some((r) => r.path.endsWith(`/${pod.metadata.name}/eviction`))).toBe(
      false,
    );

    // The instance dies behind podlift's back: its kubelet with it.
    sim.world.fakes.ec2.terminateInstances({ InstanceIds: [instanceId] });
    expect(await sim.until(() => gone(sim as Simulation, claim.metadata.name), 300_000)).toBe(true);
    expect(store(sim).find('nodes', pod.spec.nodeName)).toBeUndefined();
    expect(sim.invariants.violations).toEqual([]);
  }, 120_000);

  it('deletes a do-not-disrupt pod only when the terminationGracePeriod requires it, and finishes by then', async () => {
    const pool = {
      ...ON_DEMAND_POOL,
      template: { spec: { ...ON_DEMAND_POOL.template.spec, terminationGracePeriod: '3m' } },
    };
    sim = await e2eWorld({ pool });
    deploy(sim, 'pinned', 1, {
      annotations: { 'karpenter.sh/do-not-disrupt': '1h' },
      terminationGracePeriodSeconds: 60,
    });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const [pod] = pods(sim, 'pinned');
    const claim = claimOf(sim, pod) as Json;
    const deletedAt = sim.world.time.now();
    store(sim).delete('nodeclaims.karpenter.sh', claim.metadata.name);

    await sim.advance(100_000); // 80 s left of 180: more than the pod's 60 s grace
    const kept = store(sim).find('pods', pod.metadata.name) as Json | undefined;
    expect(kept?.metadata.deletionTimestamp).toBeUndefined();
    expect(eventReasons(sim, claim.metadata.name)).toContain('TerminationGracePeriodExpiring');

    expect(await sim.until(() => gone(sim as Simulation, claim.metadata.name), 300_000)).toBe(true);
    expect(sim.world.time.now() - deletedAt).toBeLessThan(180_000 + 120_000);
    expect(eventReasons(sim, pod.metadata.name)).toContain('Disrupted');
    expect(sim.world.fakes.kube.requests.some((r) => r.path.endsWith(`/${pod.metadata.name}/eviction`))).toBe(
      false,
    );
    expect(sim.invariants.violations).toEqual([]);
  }, 120_000);
});
