import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../sim/fakes/kube';
import { applyManifest } from '../../sim/scenario/run';
import { podDisruptionBudgetManifest } from '../../sim/world/builders/pdb-manifests';
import type { Simulation } from '../../sim/world/simulation';
import {
  allRunning,
  claims,
  deploy,
  e2eWorld,
  liveInstances,
  livePods,
  nodePool,
  ON_DEMAND_POOL,
} from './world';

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('e2e: PodDisruptionBudgets under voluntary disruption', () => {
  it('drains drifted nodes without taking a maxUnavailable 25% or a minAvailable 75% budget below it', async () => {
    sim = await e2eWorld({ pool: ON_DEMAND_POOL });
    deploy(sim, 'web', 4, { requests: { cpu: '250m' } });
    deploy(sim, 'api', 4, { requests: { cpu: '250m' } });
    applyManifest(sim, podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: '25%' }));
    applyManifest(sim, podDisruptionBudgetManifest({ name: 'api', app: 'api', minAvailable: '75%' }));
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    // Nodes hold several pods of one budget, so draining one is up to the budget alone.
    const perNode = new Map<string, number>();
    for (const p of livePods(sim)) {
      const key = `${p.spec.nodeName}/${p.metadata.labels.app}`;
      perNode.set(key, (perNode.get(key) ?? 0) + 1);
    }
    expect(Math.max(...perNode.values())).toBeGreaterThanOrEqual(2);
    const original = new Set(claims(sim).map((c) => c.metadata.name));
    const requestsBefore = sim.world.fakes.kube.requests.length;
    applyManifest(
      sim,
      nodePool({
        ...ON_DEMAND_POOL,
        template: { ...ON_DEMAND_POOL.template, metadata: { labels: { team: 'a' } } },
      }) as unknown as KubeObject,
    );
    const replaced = () =>
      claims(sim as Simulation).every((c) => !original.has(c.metadata.name)) && allRunning(sim as Simulation);
    expect(await sim.until(replaced, 1_200_000)).toBe(true);
    expect(sim.invariants.violations).toEqual([]);
    // The pods moved through the eviction API.
    const evictions = sim.world.fakes.kube.requests
      .slice(requestsBefore)
      .filter((r) => r.method === 'POST' && r.path.endsWith('/eviction'));
    expect(evictions.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('does not count a spot reclaim against a budget that allows no eviction', async () => {
    sim = await e2eWorld();
    deploy(sim, 'web', 3, { requests: { cpu: '1' } });
    applyManifest(sim, podDisruptionBudgetManifest({ name: 'web', app: 'web', maxUnavailable: 0 }));
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const spot = liveInstances(sim).find(
      (i) =>
        i.InstanceLifecycle === 'spot' &&
        livePods(sim as Simulation).some((p) => p.spec.nodeName === sim?.kubelet.nodeOf(i.InstanceId ?? '')),
    );
    expect(spot).toBeDefined();
    const node = sim.kubelet.nodeOf(spot?.InstanceId ?? '');
    const lost = livePods(sim).filter((p) => p.spec.nodeName === node).length;
    sim.interrupt(spot?.InstanceId ?? '');
    await sim.advance(150_000);
    // The budget refused every eviction; EC2 took the pods with the instance, which is not podlift's doing.
    expect(sim.world.fakes.ec2.instance(spot?.InstanceId ?? '')?.StateReason?.Code).toBe(
      'Server.SpotInstanceTermination',
    );
    expect(lost).toBeGreaterThan(0);
    // Kubernetes lets the pods go only once the Node is gone: NotReady after the node-monitor
    // grace period, its finalizer released by podlift (the instance is gone), then podgc.
    const gone = () => !livePods(sim as Simulation).some((p) => p.spec.nodeName === node);
    expect(await sim.until(gone, 300_000)).toBe(true);
    expect(sim.invariants.violations).toEqual([]);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
  }, 90_000);
});
