import type { KubeObject } from '../../sim/fakes/kube';
import { percentile } from '../../sim/scenario/expectations';
import { applyManifest } from '../../sim/scenario/run';
import { ROLE } from '../../sim/world/aws/node-class-world';
import { ec2NodeClassManifest } from '../../sim/world/builders/karpenter-manifests';
import { allocatableOf, podRequests } from '../../sim/world/kube-scheduler';
import { Simulation } from '../../sim/world/simulation';

/**
 * `npm run bench:sim`: figures measured in the simulator, with its modelled latencies (watcher
 * batch window 1 s idle / 10 s max, 0.5 s EventBridge → Lambda, instance pending 15 s, kubelet
 * registration 20 s, Ready 8 s):
 * - pending pod → CreateFleet: for bursts of pods that need new capacity, the virtual time from
 *   kube-scheduler marking a pod Unschedulable to the first CreateFleet call after it, p50/p99;
 * - a 1,000-pod scale-out: virtual time until every pod runs, and requested ÷ allocatable cpu and
 *   memory over the nodes afterwards (Karpenter's e2e bound: 2 minutes; its suite asserts ≥ 0.53 / 0.65).
 * Prints figures; never fails on a missed target.
 */

const NODE_CLASS = ec2NodeClassManifest({ role: ROLE });
const nodePool = (limit: string) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    },
    limits: { cpu: limit },
    disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '10m' },
  },
});

async function world(limit: string): Promise<Simulation> {
  const sim = await Simulation.start({});
  applyManifest(sim, NODE_CLASS);
  applyManifest(sim, nodePool(limit) as unknown as KubeObject);
  return sim;
}

/**
 * Bursts of 5 pods, about 3 minutes apart, each needing a new node: unschedulable mark → first
 * CreateFleet. The gaps are uneven so bursts fall at different points of the one-minute schedule
 * (a burst at the schedule's own instant is served by the scheduled run at once).
 */
async function pendingToCreateFleet(bursts: number): Promise<number[]> {
  const sim = await world('1000');
  const marked = new Map<string, number>();
  sim.world.fakes.kube.store.subscribe((e) => {
    if (e.resource.plural !== 'pods' || marked.has(e.object.metadata.uid ?? '')) return;
    const conditions =
      (e.object.status as { conditions?: { type: string; reason?: string }[] })?.conditions ?? [];
    if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'))
      marked.set(e.object.metadata.uid ?? '', sim.world.time.now());
  });
  const delays: number[] = [];
  for (let b = 0; b < bursts; b++) {
    const before = new Set(marked.keys());
    sim.workloads.apply({
      kind: 'Deployment',
      name: `burst-${b}`,
      namespace: 'default',
      replicas: 5,
      template: { requests: { cpu: '1', memory: '1Gi' } },
    });
    await sim.advance(180_000 + [13, 29, 41, 7, 53, 21][b % 6] * 1000);
    const fleets = sim.world.fakes.ec2.calls.filter((c) => c.operation === 'CreateFleet').map((c) => c.at);
    for (const [uid, at] of marked) {
      if (before.has(uid)) continue;
      const fleet = fleets.find((f) => f >= at);
      if (fleet !== undefined) delays.push(fleet - at);
    }
  }
  await sim.close();
  return delays;
}

/** 1,000 pods of one Deployment at once. */
async function scaleOut(pods: number) {
  const sim = await world('100000');
  const started = Date.now();
  sim.workloads.apply({
    kind: 'Deployment',
    name: 'inflate',
    namespace: 'default',
    replicas: pods,
    template: { requests: { cpu: '500m', memory: '1Gi' } },
  });
  const store = sim.world.fakes.kube.store;
  const running = () =>
    store.list('pods').items.filter((p) => (p.status as { phase?: string })?.phase === 'Running').length;
  await sim.until(() => running() === pods, 900_000);
  const simulated = sim.elapsed;
  const nodes = store.list('nodes').items;
  let cpu = 0;
  let memory = 0;
  let cpuTotal = 0;
  let memoryTotal = 0;
  for (const p of store.list('pods').items) {
    const r = podRequests(p);
    cpu += r.get('cpu') ?? 0;
    memory += r.get('memory') ?? 0;
  }
  for (const n of nodes) {
    const a = allocatableOf(n);
    cpuTotal += a.get('cpu') ?? 0;
    memoryTotal += a.get('memory') ?? 0;
  }
  const result = {
    running: running(),
    simulated,
    wall: Date.now() - started,
    nodes: nodes.length,
    cpu: cpu / cpuTotal,
    memory: memory / memoryTotal,
    dollarsPerHour: sim.dollarsPerHour(),
  };
  await sim.close();
  return result;
}

const args = process.argv.slice(2);
const pods = Number(args[args.indexOf('--pods') + 1] ?? 1000) || 1000;
const delays = await pendingToCreateFleet(6);
process.stdout.write(
  `pending pod → CreateFleet (${delays.length} pods in 6 bursts): p50 ${(percentile(delays, 50) / 1000).toFixed(2)} s, p99 ${(percentile(delays, 99) / 1000).toFixed(2)} s (target p50 ≤ 2 s, p99 ≤ 5 s)\n`,
);
const out = await scaleOut(pods);
process.stdout.write(
  `scale-out of ${pods} pods (500m, 1Gi): ${out.running} running after ${(out.simulated / 1000).toFixed(0)} s simulated (${(out.wall / 1000).toFixed(1)} s wall), ${out.nodes} nodes, $${out.dollarsPerHour.toFixed(2)}/h, requested ÷ allocatable cpu ${out.cpu.toFixed(2)}, memory ${out.memory.toFixed(2)} (Karpenter: ≤ 120 s, ≥ 0.53 / 0.65; target ≥ 0.85)\n`,
);
