import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../sim/fakes/kube';
import { applyManifest } from '../../sim/scenario/run';
import type { Simulation } from '../../sim/world/simulation';
import {
  allRunning,
  claims,
  deploy,
  e2eWorld,
  type Json,
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

const disruptedNodes = (s: Simulation) =>
  (s.world.fakes.kube.store.list('nodes').items as Json[]).filter((n) =>
    (n.spec.taints ?? []).some((t: Json) => t.key === 'karpenter.sh/disrupted'),
  );

describe('e2e: interruption', () => {
  it('has a spot node’s replacement initialized before EC2 reclaims it', async () => {
    sim = await e2eWorld();
    deploy(sim, 'inflate', 3);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const spot = liveInstances(sim).find((i) => i.InstanceLifecycle === 'spot');
    expect(spot).toBeDefined();
    sim.interrupt(spot?.InstanceId ?? '');
    await sim.advance(150_000);
    expect(sim.interruptionsSurvived).toBe(1);
    // Survived with a replacement the interruption function launched, not capacity left lying around.
    expect(sim.decisions.some((d) => d.actor === 'interruption' && d.kind === 'nodeclaim-created')).toBe(
      true,
    );
    expect(sim.world.fakes.ec2.instance(spot?.InstanceId ?? '')?.State?.Name).not.toBe('running');
    expect(await sim.until(() => allRunning(sim as Simulation), 60_000)).toBe(true);
    expect(sim.invariants.violations).toEqual([]);
  }, 60_000);
});

/**
 * Runs three pods, interrupts the spot instance under them, moves `afterMs` on and returns the
 * NodeClaim the interruption launched in its place with its instance.
 */
async function replacementOfInterruptedSpot(s: Simulation, afterMs: number) {
  deploy(s, 'inflate', 3);
  expect(await s.until(() => allRunning(s), 120_000)).toBe(true);
  const first = liveInstances(s).find((i) => i.InstanceLifecycle === 'spot');
  const before = new Set(claims(s).map((c) => c.metadata.name));
  s.interrupt(first?.InstanceId ?? '');
  await s.advance(afterMs);
  const replacement = claims(s).find((c) => !before.has(c.metadata.name));
  const instance = liveInstances(s).find((i) =>
    i.Tags?.some((t) => t.Key === 'karpenter.sh/nodeclaim' && t.Value === replacement?.metadata.name),
  );
  return { replacement, instance };
}

describe('e2e: interruption chains', () => {
  it('credits a replacement that was ready before the reclaim, though it was itself reclaimed and gone by then', async () => {
    sim = await e2eWorld();
    const { replacement, instance } = await replacementOfInterruptedSpot(sim, 80_000);
    expect(
      replacement?.status?.conditions?.some((k: Json) => k.type === 'Initialized' && k.status === 'True'),
    ).toBe(true);
    // The replacement is reclaimed in turn, 80 s into the first notice: it is gone before the first
    // reclaim, and its own replacement comes up only after it.
    sim.interrupt(instance?.InstanceId ?? '');
    await sim.advance(45_000);
    expect(claims(sim).some((c) => c.metadata.name === replacement?.metadata.name)).toBe(false);
    await sim.advance(150_000);
    expect(sim.invariants.violations).toEqual([]);
    expect(sim.interruptionsSurvived).toBe(2);
  }, 60_000);

  it('credits the replacement of a replacement that was reclaimed before it registered', async () => {
    sim = await e2eWorld();
    // 15 s on, the first node's own instance-terminated messages are handled, so the second
    // warning comes in a batch of its own.
    const { replacement, instance } = await replacementOfInterruptedSpot(sim, 15_000);
    expect(replacement?.status?.nodeName).toBeUndefined();
    // Its instance is still booting, no Node yet, when it is reclaimed in turn; its own
    // replacement carries the first node's pods and is ready before the first reclaim.
    expect(instance).toBeDefined();
    sim.interrupt(instance?.InstanceId ?? '');
    await sim.advance(240_000);
    expect(sim.invariants.violations).toEqual([]);
    expect(sim.interruptionsSurvived).toBe(2);
    expect(await sim.until(() => allRunning(sim as Simulation), 60_000)).toBe(true);
  }, 60_000);
});

describe('e2e: consolidation', () => {
  it('removes empty nodes only after consolidateAfter', async () => {
    sim = await e2eWorld({ pool: { disruption: { consolidateAfter: '2m' } } });
    deploy(sim, 'inflate', 2);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    sim.workloads.scale('default', 'inflate', 0);
    const emptiedAt = sim.elapsed;
    expect(await sim.until(() => liveInstances(sim as Simulation).length === 0, 600_000)).toBe(true);
    const first = sim.decisions.find((d) => d.kind === 'consolidated' && d.at >= emptiedAt);
    expect(first?.message).toMatch(/emptiness/);
    expect((first?.at ?? 0) - emptiedAt).toBeGreaterThanOrEqual(120_000);
    expect(sim.invariants.violations).toEqual([]);
  }, 60_000);

  it('replaces an underutilized node with a cheaper one and says what it saves', async () => {
    sim = await e2eWorld({ pool: ON_DEMAND_POOL });
    deploy(sim, 'big', 1, { requests: { cpu: '3' } });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    deploy(sim, 'small', 1, { requests: { cpu: '500m' } });
    expect(
      await sim.until(
        () => allRunning(sim as Simulation) && livePods(sim as Simulation).length === 2,
        60_000,
      ),
    ).toBe(true);
    const [bigNode] = liveInstances(sim);
    expect(liveInstances(sim)).toHaveLength(1); // the small pod joined the big pod's node
    const before = sim.dollarsPerHour();
    sim.workloads.scale('default', 'big', 0);
    const replaced = () =>
      sim?.decisions.find((d) => d.kind === 'consolidated' && /with a replacement/.test(d.message));
    expect(await sim.until(() => replaced() !== undefined, 600_000)).toBe(true);
    expect(replaced()?.savedDollarsPerHour).toBeGreaterThan(0);
    await sim.until(
      () => liveInstances(sim as Simulation).length === 1 && allRunning(sim as Simulation),
      300_000,
    );
    expect(liveInstances(sim)[0].InstanceId).not.toBe(bigNode.InstanceId);
    expect(sim.dollarsPerHour()).toBeLessThan(before);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: consolidateAfter', () => {
  // Karpenter's consolidation e2e ("should wait for consolidateAfter before consolidating"): the
  // Consolidatable condition gates every method, counted from the last pod event on the node.
  it('replaces an under-used node only consolidateAfter after its pods changed, not at the scale-down', async () => {
    sim = await e2eWorld({ pool: { ...ON_DEMAND_POOL, disruption: { consolidateAfter: '5m' } } });
    deploy(sim, 'big', 1, { requests: { cpu: '3' } });
    deploy(sim, 'small', 1, { requests: { cpu: '500m' } });
    expect(
      await sim.until(
        () => allRunning(sim as Simulation) && livePods(sim as Simulation).length === 2,
        120_000,
      ),
    ).toBe(true);
    // Long past initialization: only the pod event can hold consolidation back.
    await sim.advance(600_000);
    sim.workloads.scale('default', 'big', 0);
    const scaledAt = sim.elapsed;
    const consolidated = () => sim?.decisions.find((d) => d.kind === 'consolidated' && d.at >= scaledAt);
    expect(await sim.until(() => consolidated() !== undefined, 900_000)).toBe(true);
    expect((consolidated()?.at ?? 0) - scaledAt).toBeGreaterThanOrEqual(300_000);
    const claimsNow = claims(sim);
    expect(claimsNow.some((c) => c.status?.lastPodEventTime)).toBe(true);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});

describe('e2e: a replacement that never initializes', () => {
  // queue_test.go "should untaint nodes when a command times out": the command gives up after
  // waitOrTerminate's 10 minutes; podlift also deletes the replacement a startup taint holds.
  it('times out after 10 minutes: the replacement goes, the old node is untainted and keeps its pod', async () => {
    // The agent that would lift the new startup taint never runs.
    sim = await e2eWorld({ pool: ON_DEMAND_POOL, kubelet: { startupTaintsAfterMs: 24 * 3_600_000 } });
    deploy(sim, 'big', 1, { requests: { cpu: '3' } });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const [original] = claims(sim).map((c) => c.metadata.name as string);
    const pod = livePods(sim)[0].metadata.name;
    const startupTaint = { key: 'example.com/agent-not-ready', effect: 'NoSchedule' };
    applyManifest(
      sim,
      nodePool({
        ...ON_DEMAND_POOL,
        template: { spec: { ...ON_DEMAND_POOL.template.spec, startupTaints: [startupTaint] } },
      }) as unknown as KubeObject,
    );
    const failed = () =>
      ((sim as Simulation).world.fakes.kube.store.list('events').items as Json[]).find(
        (e) => e.reason === 'DisruptionFailed' && e.involvedObject.name === original,
      );
    let tainted = false;
    let replacement: string | undefined;
    const end = sim.elapsed + 900_000;
    while (!failed() && sim.elapsed < end) {
      await sim.advance(1000);
      tainted ||= disruptedNodes(sim).length > 0;
      replacement ??= claims(sim as Simulation).find((c) => c.metadata.annotations?.['podlift.dev/replaces'])
        ?.metadata.name;
    }
    expect(tainted).toBe(true);
    // The candidate is untainted; the deleted replacement's own Node is tainted by its drain.
    const originalNode = claims(sim).find((c) => c.metadata.name === original)?.status.nodeName;
    expect(disruptedNodes(sim).map((n) => n.metadata.name)).not.toContain(originalNode);
    expect(originalNode).toBeDefined();
    expect(failed()?.type).toBe('Warning');
    expect(failed()?.message).toContain(`deleted ${replacement}, which never initialized`);
    expect(
      await sim.until(() => !claims(sim as Simulation).some((c) => c.metadata.name === replacement), 120_000),
    ).toBe(true);
    expect(claims(sim).some((c) => c.metadata.name === original)).toBe(true);
    expect(livePods(sim).map((p) => [p.metadata.name, p.status.phase])).toEqual([[pod, 'Running']]);
    expect(sim.invariants.violations).toEqual([]);
  }, 120_000);
});

describe('e2e: drift and what blocks disruption', () => {
  it('replaces drifted nodes one at a time under a budget of one node', async () => {
    sim = await e2eWorld({ pool: { ...ON_DEMAND_POOL, disruption: { budgets: [{ nodes: '1' }] } } });
    deploy(sim, 'big', 3, { requests: { cpu: '3' } });
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const original = new Set(claims(sim).map((c) => c.metadata.name));
    expect(original.size).toBe(3);
    applyManifest(
      sim,
      nodePool({
        ...ON_DEMAND_POOL,
        template: { ...ON_DEMAND_POOL.template, metadata: { labels: { team: 'a' } } },
        disruption: { budgets: [{ nodes: '1' }] },
      }) as unknown as KubeObject,
    );
    let most = 0;
    // The original NodeClaims that `kubectl get nodeclaim -o yaml` showed Drifted=True (NodePoolDrifted).
    const markedDrifted = new Set<string>();
    const replaced = () => claims(sim as Simulation).every((c) => !original.has(c.metadata.name));
    const end = sim.elapsed + 1_200_000;
    while (!replaced() && sim.elapsed < end) {
      await sim.advance(1000);
      most = Math.max(most, disruptedNodes(sim).length);
      for (const c of claims(sim))
        if (
          (c.status?.conditions ?? []).some(
            (k: Json) => k.type === 'Drifted' && k.status === 'True' && k.reason === 'NodePoolDrifted',
          )
        )
          markedDrifted.add(c.metadata.name);
    }
    expect(replaced()).toBe(true);
    expect(most).toBe(1);
    expect(markedDrifted).toEqual(original);
    // Their replacements were made from the new template: none is marked.
    expect(
      claims(sim).filter((c) => (c.status?.conditions ?? []).some((k: Json) => k.type === 'Drifted')),
    ).toEqual([]);
    expect(claims(sim).every((c) => c.metadata.labels.team === 'a')).toBe(true);
    expect(sim.invariants.violations).toEqual([]);
  }, 120_000);

  it('leaves nodes running do-not-disrupt pods, and keeps PodDisruptionBudgets whole', async () => {
    sim = await e2eWorld({ pool: ON_DEMAND_POOL });
    deploy(sim, 'batch', 1, {
      requests: { cpu: '3' },
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    });
    deploy(sim, 'web', 2, { requests: { cpu: '3' } });
    applyManifest(sim, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
    } as unknown as KubeObject);
    expect(await sim.until(() => allRunning(sim as Simulation), 120_000)).toBe(true);
    const batchNode = livePods(sim).find((p) => p.metadata.labels.app === 'batch')?.spec.nodeName;
    applyManifest(
      sim,
      nodePool({
        ...ON_DEMAND_POOL,
        template: { ...ON_DEMAND_POOL.template, metadata: { labels: { team: 'a' } } },
      }) as unknown as KubeObject,
    );
    let tainted = 0;
    for (let t = 0; t < 600; t++) {
      await sim.advance(1000);
      tainted = Math.max(tainted, disruptedNodes(sim).length);
    }
    // Every node is drifted, and every one is held: by the do-not-disrupt pod or by the budget.
    expect(tainted).toBe(0);
    const blocked = (sim.world.fakes.kube.store.list('events').items as Json[])
      .filter((e) => e.reason === 'DisruptionBlocked')
      .map((e) => `${e.involvedObject.name}: ${e.message}`);
    expect(blocked.some((m) => m.startsWith(`${batchNode}:`) && m.includes('do-not-disrupt'))).toBe(true);
    expect(blocked.some((m) => m.includes('PodDisruptionBudget default/web'))).toBe(true);
    const healthyWeb = livePods(sim).filter(
      (p) => p.metadata.labels.app === 'web' && p.status.phase === 'Running',
    );
    expect(healthyWeb).toHaveLength(2);
    expect(sim.invariants.violations).toEqual([]);
  }, 90_000);
});
