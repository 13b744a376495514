import type { KubeObject } from '../../sim/fakes/kube';
import { percentile } from '../../sim/scenario/expectations';
import { applyManifest } from '../../sim/scenario/run';
import { ROLE } from '../../sim/world/aws/node-class-world';
import { ec2NodeClassManifest } from '../../sim/world/builders/karpenter-manifests';
import { allocatableOf, podRequests } from '../../sim/world/kube-scheduler';
import { Simulation } from '../../sim/world/simulation';
import { formatTable, num } from '../table';

/**
 * Figures measured in the simulator, with its modelled latencies (watcher batch window, 0.5 s
 * EventBridge → Lambda, instance pending 15 s, kubelet registration 20 s, Ready 8 s):
 * - pending pod → CreateFleet: for bursts of pods that need new capacity, the virtual time from
 *   kube-scheduler marking a pod Unschedulable to the first CreateFleet call after it, p50/p99;
 * - a scale-out of one Deployment: virtual time until every pod runs, and requested ÷ allocatable
 *   cpu and memory over the nodes afterwards.
 */

/** Targets from the issue, and Karpenter's own bounds beside them. */
export const SIM_TARGETS = {
  /** Pending pod → CreateFleet p50 (Karpenter batches 1–10 s). */
  pendingToFleetP50Ms: 2_000,
  pendingToFleetP99Ms: 5_000,
  /** Karpenter's e2e bound for its scale-out test. */
  scaleOutMs: 120_000,
  /** requested ÷ allocatable after the scale-out, cpu and memory. */
  utilisation: 0.85,
  /** What Karpenter's suite asserts. */
  karpenterCpu: 0.53,
  karpenterMemory: 0.65,
} as const;

/** Pending pod → first CreateFleet after it, in virtual ms. */
export interface PendingToFleet {
  readonly bursts: number;
  readonly delaysMs: readonly number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The scale-out of `pods` pods of 500m / 1Gi. */
export interface ScaleOut {
  readonly pods: number;
  readonly running: number;
  /** Virtual ms until every pod ran (or the 15-minute cap). */
  readonly simulatedMs: number;
  readonly wallMs: number;
  readonly nodes: number;
  readonly cpu: number;
  readonly memory: number;
  readonly dollarsPerHour: number;
}

/** Prefix of the result line `bench/sim/run.ts --json` prints for `npm run bench`. */
export const SIM_RESULT_MARKER = 'BENCH-SIM-RESULT ';

/** Both simulator figures. */
export interface SimFigures {
  readonly pendingToFleet: PendingToFleet;
  readonly scaleOut: ScaleOut;
}

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
export async function pendingToCreateFleet(bursts: number): Promise<PendingToFleet> {
  const sim = await world('1000');
  const marked = new Map<string, number>();
  sim.world.fakes.kube.store.subscribe((e) => {
    if (e.resource.plural !== 'pods' || marked.has(e.object.metadata.uid ?? '')) return;
    const conditions =
      (e.object.status as { conditions?: { type: string; reason?: string }[] })?.conditions ?? [];
    if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'))
      marked.set(e.object.metadata.uid ?? '', sim.world.time.now());
  });
  const delaysMs: number[] = [];
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
      if (fleet !== undefined) delaysMs.push(fleet - at);
    }
  }
  await sim.close();
  return { bursts, delaysMs, p50Ms: percentile(delaysMs, 50), p99Ms: percentile(delaysMs, 99) };
}

/** `pods` pods of one Deployment at once (500m, 1Gi each). */
export async function scaleOut(pods: number): Promise<ScaleOut> {
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
  const simulatedMs = sim.elapsed;
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
  const result: ScaleOut = {
    pods,
    running: running(),
    simulatedMs,
    wallMs: Date.now() - started,
    nodes: nodes.length,
    cpu: cpuTotal > 0 ? cpu / cpuTotal : 0,
    memory: memoryTotal > 0 ? memory / memoryTotal : 0,
    dollarsPerHour: sim.dollarsPerHour(),
  };
  await sim.close();
  return result;
}

/** Both figures, one world each, one after the other. */
export async function measureSimFigures(options: { pods: number; bursts: number }): Promise<SimFigures> {
  return {
    pendingToFleet: await pendingToCreateFleet(options.bursts),
    scaleOut: await scaleOut(options.pods),
  };
}

const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
const seconds = (ms: number, digits = 1) => `${num(ms / 1000, digits)} s`;

/** The figures as the table section `npm run bench` prints. */
export function formatSimFigures(f: SimFigures): string[] {
  const p = f.pendingToFleet;
  const s = f.scaleOut;
  const T = SIM_TARGETS;
  const allRan = s.running === s.pods;
  return [
    '',
    '7. Simulator — the real watcher, handlers and SDK clients against the fakes, modelled latencies, virtual time (bench/sim)',
    formatTable(
      ['figure', 'measured', 'target', 'met', 'Karpenter'],
      [
        [
          `pending pod → CreateFleet p50 (${num(p.delaysMs.length)} pods, ${p.bursts} bursts)`,
          seconds(p.p50Ms),
          `≤ ${seconds(T.pendingToFleetP50Ms, 0)}`,
          met(p.delaysMs.length > 0 && p.p50Ms <= T.pendingToFleetP50Ms),
          'batches 1–10 s',
        ],
        [
          'pending pod → CreateFleet p99',
          seconds(p.p99Ms),
          `≤ ${seconds(T.pendingToFleetP99Ms, 0)}`,
          met(p.delaysMs.length > 0 && p.p99Ms <= T.pendingToFleetP99Ms),
          '',
        ],
        [
          `${num(s.pods)} pods (500m, 1Gi): all running after`,
          `${seconds(s.simulatedMs, 0)}${allRan ? '' : ` (${num(s.running)} ran)`}`,
          `≤ ${seconds(T.scaleOutMs, 0)}`,
          met(allRan && s.simulatedMs <= T.scaleOutMs),
          `e2e bound ${seconds(T.scaleOutMs, 0)}`,
        ],
        [
          `requested ÷ allocatable cpu (${num(s.nodes)} nodes)`,
          num(s.cpu, 2),
          `≥ ${T.utilisation}`,
          met(s.cpu >= T.utilisation),
          `suite ≥ ${T.karpenterCpu}`,
        ],
        [
          'requested ÷ allocatable memory',
          num(s.memory, 2),
          `≥ ${T.utilisation}`,
          met(s.memory >= T.utilisation),
          `suite ≥ ${T.karpenterMemory}`,
        ],
      ],
    ),
    `  simulated time; the scale-out took ${seconds(s.wallMs)} wall and ends at $${num(s.dollarsPerHour, 2)}/h. ` +
      'pending → CreateFleet: from kube-scheduler marking the pod Unschedulable to the first CreateFleet after it.',
  ];
}
