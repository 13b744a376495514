import { loadBundledCatalog } from '../../shared/core/catalog/bundled';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { KubeObject } from '../fakes/kube';
import { applyManifest } from '../scenario/run';
import { ROLE } from '../world/aws/node-class-world';
import { REGION, ZONES } from '../world/aws/region';
import { ec2NodeClassManifest } from '../world/builders/karpenter-manifests';
import { podDisruptionBudgetManifest } from '../world/builders/pdb-manifests';
import { CLUSTER_WORLD_TYPES } from '../world/cluster-world';
import { seeded } from '../world/seeded-random';
import { Simulation } from '../world/simulation';
import { type BoundPoint, boundPoint } from './bound';
import { type CostReport, costReport, settleWindowMs } from './cost-report';
import { PodEventClock, sunkInstanceIds } from './floor';
import { allocationPremium } from './premium';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  readonly seed: number;
  readonly steps: number;
  /** Each line of the soak's own log (steps taken, faults injected). */
  readonly onLine?: (line: string) => void;
  /** Keep the trace's lines and return them, to compare two runs line by line. @default false */
  readonly keepTrace?: boolean;
  /**
   * The functions' `FEATURE_GATES` (e.g. `GlobalConsolidation=true`), so one seed can be played
   * with each consolidation strategy. @default the functions' defaults (Karpenter's)
   */
  readonly featureGates?: string;
  /**
   * The NodePool's disruption budget (`nodes`, e.g. `30%`), so a strategy that moves several
   * nodes at once can be measured. @default Karpenter's default, `10%`
   */
  readonly budget?: string;
  /**
   * The NodePool's `podlift.dev/global-consolidation-k`, the k of global consolidation's
   * threshold. @default none (Balanced's 2)
   */
  readonly globalConsolidationK?: number;
  /**
   * The NodePool's `podlift.dev/launch-price-band` (e.g. `25%`): its NodeClaims keep only the
   * options priced within it above their cheapest. @default none (every option, as Karpenter)
   */
  readonly launchPriceBand?: string;
}

/** What a soak found. */
export interface SoakResult {
  readonly seed: number;
  readonly steps: number;
  /** The `FEATURE_GATES` the functions ran with, when set. */
  readonly featureGates?: string;
  readonly simulatedMs: number;
  readonly violations: readonly string[];
  /** Pods of the final Deployments that are not running after the quiet period. */
  readonly podsLost: number;
  /** Instances running without a NodeClaim at the end (the checker also flags them during the run). */
  readonly orphans: number;
  /**
   * NodeClaims whose deletion was asked for more than {@link FINALIZE_WITHIN_MS} before the end
   * and that are still there: every deleted NodeClaim must be finalized.
   */
  readonly notFinalized: readonly string[];
  readonly invocationsFailed: number;
  /**
   * $/h against the configuration-LP lower bound every {@link BOUND_EVERY} steps, at the end of
   * each quiet spell and after the quiet period.
   */
  readonly costOverTime: readonly BoundPoint[];
  /** The cost by phase (settling, settled) and the evictions the run's disruption cost. */
  readonly cost: CostReport;
  /** SHA-256 of the world's trace (every write, EC2 and EventBridge call, invocation, step). */
  readonly digest: string;
  /** Entries in the trace. */
  readonly traceEntries: number;
  /** The trace's lines, when asked for with `keepTrace`. */
  readonly trace?: readonly string[];
}

/** Steps between two cost-versus-bound points (each is one LP solve, 0.1–1 s of wall time). */
export const BOUND_EVERY = 10;
/**
 * Steps between two quiet spells: {@link QUIET_SPELL_MS} with no step at all, then a point, so the
 * run has settled phases to measure (a cluster between bursts of change), not only settling ones.
 */
export const QUIET_EVERY = 20;
export const QUIET_SPELL_MS = 8 * 60_000;
/**
 * How long a deleted NodeClaim may take to be finalized: drained (stuck pods let go a minute past
 * their deletionTimestamp), its instance terminated and gone, then its finalizer removed.
 */
export const FINALIZE_WITHIN_MS = 10 * 60_000;
/** Wall-time cap of one point's LP, so a hard snapshot never stalls the soak. */
const BOUND_MAX_MS = 5_000;

const NODE_CLASS = ec2NodeClassManifest({ role: ROLE });
/** The soak NodePool's consolidateAfter. */
const CONSOLIDATE_AFTER_MS = 60_000;

const NODE_POOL = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
        ],
      },
    },
    limits: { cpu: '64' },
    disruption: {
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: `${CONSOLIDATE_AFTER_MS / 60_000}m`,
    },
  },
};

const DEPLOYMENTS = [
  { name: 'web', cpu: '500m', memory: '512Mi', budget: { maxUnavailable: '25%' } },
  { name: 'api', cpu: '1', memory: '2Gi', budget: { minAvailable: '50%' } },
  { name: 'batch', cpu: '2', memory: '4Gi' },
];

/**
 * Seeded random steps against the whole loop with faults injected between them — Deployments
 * scaled, spot instances reclaimed, rebalance recommendations and AWS Health scheduled
 * retirements, offerings out of capacity, CreateFleet throttled, functions
 * crashing mid-invocation, cluster-bus events duplicated, dropped and reordered, watches dropped,
 * API-server 409s and 5xx, kubelets that die (heartbeats stop, no pod deletion confirmed) and
 * pods given a finalizer nobody removes — each followed by 10–90 s of cluster time, and every
 * {@link QUIET_EVERY} steps a quiet spell with no step, so settled phases can be measured; then ten
 * quiet minutes without faults, after which every pod must run, no instance may lack its
 * NodeClaim and every NodeClaim deleted must be finalized. The invariant checker runs
 * throughout. The same seed and step count replay the same run.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const random = seeded(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const sim = await Simulation.start({
    seed: options.seed,
    keepTrace: options.keepTrace,
    ...(options.featureGates !== undefined ? { environment: { FEATURE_GATES: options.featureGates } } : {}),
  });
  const log = (line: string) => {
    sim.trace.record('soak', line);
    options.onLine?.(line);
  };
  try {
    applyManifest(sim, NODE_CLASS);
    const annotations = {
      ...(options.globalConsolidationK !== undefined
        ? { [ANNOTATIONS.globalConsolidationK]: String(options.globalConsolidationK) }
        : {}),
      ...(options.launchPriceBand !== undefined
        ? { [ANNOTATIONS.launchPriceBand]: options.launchPriceBand }
        : {}),
    };
    const nodePool = {
      ...NODE_POOL,
      metadata:
        Object.keys(annotations).length === 0 ? NODE_POOL.metadata : { ...NODE_POOL.metadata, annotations },
      spec:
        options.budget === undefined
          ? NODE_POOL.spec
          : {
              ...NODE_POOL.spec,
              disruption: { ...NODE_POOL.spec.disruption, budgets: [{ nodes: options.budget }] },
            },
    };
    applyManifest(sim, nodePool as unknown as KubeObject);
    for (const d of DEPLOYMENTS)
      sim.workloads.apply({
        kind: 'Deployment',
        name: d.name,
        namespace: 'default',
        replicas: 0,
        template: { labels: { app: d.name }, requests: { cpu: d.cpu, memory: d.memory } },
      });
    // Two of the three Deployments have a PodDisruptionBudget (one of each form), so every
    // consolidation, drift and drain of the run is held to them by the invariant checker.
    for (const d of DEPLOYMENTS)
      if (d.budget)
        applyManifest(sim, podDisruptionBudgetManifest({ name: d.name, app: d.name, ...d.budget }));
    // Delivery faults draw from their own stream, so the steps a seed takes do not depend on
    // how many events the world happened to route.
    sim.router.faults = { duplicate: 0.1, drop: 0.1, jitterMs: 5000, random: seeded(options.seed ^ 0x5eed) };
    const { ec2, kube } = sim.world.fakes;
    const catalog = loadBundledCatalog(REGION);
    const costOverTime: BoundPoint[] = [];
    // Pod events as Karpenter's podevents controller sees them, for the floor under each point.
    const podEvents = new PodEventClock();
    kube.store.subscribe((event) => podEvents.observe(event, sim.world.time.now()));
    const sunk = () => {
      const ids = sunkInstanceIds({
        instanceIds: ec2.listInstances().map((i) => i.InstanceId ?? ''),
        nodeClaims: kube.store.list('nodeclaims.karpenter.sh').items,
        pods: kube.store.list('pods').items,
        podDisruptionBudgets: kube.store.list('poddisruptionbudgets.policy').items,
        podEvents,
        nowMs: sim.world.time.now(),
        consolidateAfterMs: CONSOLIDATE_AFTER_MS,
      });
      return sim.dollarsPerHour((i) => ids.has(i.InstanceId ?? ''));
    };
    const measure = async () =>
      costOverTime.push({
        ...(await boundPoint(
          {
            catalog,
            instanceTypes: CLUSTER_WORLD_TYPES,
            zones: ZONES,
            nodePool: nodePool as unknown as KubeObject,
            nodeClass: NODE_CLASS,
            pods: kube.store.list('pods').items,
          },
          sim.elapsed,
          sim.dollarsPerHour(),
          BOUND_MAX_MS,
        )),
        sunk: sunk(),
        premium: allocationPremium(
          ec2.listInstances(),
          kube.store.list('nodeclaims.karpenter.sh').items,
          catalog.prices,
        ),
      });
    // When each step that changed something ran (a plain wait changes nothing).
    const changesMs: number[] = [];
    for (let step = 0; step < options.steps; step++) {
      if (step > 0 && step % BOUND_EVERY === 0) await measure();
      if (step > 0 && step % QUIET_EVERY === 0) {
        log(`quiet spell: ${QUIET_SPELL_MS / 60_000}m without a step`);
        await sim.advance(QUIET_SPELL_MS);
        await measure();
      }
      const roll = random();
      let what: string;
      if (roll < 0.4) {
        const d = pick(DEPLOYMENTS);
        const replicas = Math.floor(random() * 12);
        sim.workloads.scale('default', d.name, replicas);
        what = `scale ${d.name} to ${replicas}`;
      } else if (roll < 0.5) {
        const spot = ec2
          .listInstances()
          .filter(
            (i) =>
              i.InstanceLifecycle === 'spot' &&
              i.State?.Name === 'running' &&
              sim.kubelet.nodeOf(i.InstanceId ?? ''),
          );
        if (spot.length > 0) {
          const id = pick(spot).InstanceId ?? '';
          sim.interrupt(id);
          what = `interrupt ${id}`;
        } else what = 'interrupt: no spot instance';
      } else if (roll < 0.58) {
        const zone = pick(['us-east-1a', 'us-east-1b', 'us-east-1c']);
        ec2.capacity.setCapacity({ availabilityZone: zone, capacityType: 'spot' }, 0);
        sim.invariants.waiveInterruptionsUntil(sim.world.time.now() + 180_000);
        sim.world.time.setTimeout(() => {
          ec2.capacity.setCapacity(
            { availabilityZone: zone, capacityType: 'spot' },
            Number.POSITIVE_INFINITY,
          );
        }, 180_000);
        what = `no spot capacity in ${zone} for 3m`;
      } else if (roll < 0.66) {
        ec2.throttle('CreateFleet', 1 + Math.floor(random() * 3));
        what = 'throttle CreateFleet';
      } else if (roll < 0.74) {
        const fn = pick(['provisioner', 'disruption', 'termination', 'interruption'] as const);
        sim.router.crashNext.add(fn);
        what = `crash ${fn}`;
      } else if (roll < 0.8) {
        kube.dropWatches({ abrupt: random() < 0.5 });
        what = 'drop watches';
      } else if (roll < 0.9) {
        const code = pick([409, 500, 503]);
        kube.failNext(pick(['update', 'patch', 'create'] as const), '*', code, {
          times: 1 + Math.floor(random() * 3),
        });
        what = `API server answers ${code}`;
      } else if (roll < 0.95) {
        const live = ec2
          .listInstances()
          .filter((i) => i.State?.Name === 'running' && sim.kubelet.nodeOf(i.InstanceId ?? ''));
        const spot = live.filter((i) => i.InstanceLifecycle === 'spot');
        if (random() < 0.5 && spot.length > 0) {
          const id = pick(spot).InstanceId ?? '';
          sim.rebalance(id);
          what = `rebalance recommendation for ${id}`;
        } else if (live.length > 0) {
          const id = pick(live).InstanceId ?? '';
          const inMs = 180_000 + Math.floor(random() * 420_000);
          sim.scheduledChange([id], inMs);
          what = `scheduled retirement of ${id} in ${Math.round(inMs / 1000)}s`;
        } else what = 'rebalance / scheduled change: no instance';
      } else if (roll < 0.97) {
        const live = ec2
          .listInstances()
          .filter((i) => i.State?.Name === 'running' && sim.kubelet.nodeOf(i.InstanceId ?? ''))
          .filter((i) => !sim.kubelet.isDead(sim.kubelet.nodeOf(i.InstanceId ?? '') ?? ''));
        if (live.length > 0) {
          const id = pick(live).InstanceId ?? '';
          sim.killKubelet(id);
          what = `kubelet of ${id} dies`;
        } else what = 'kubelet dies: no instance';
      } else if (roll < 0.99) {
        const running = kube.store
          .list('pods')
          .items.filter(
            (p) =>
              (p.status as { phase?: string } | undefined)?.phase === 'Running' &&
              !p.metadata.deletionTimestamp,
          );
        if (running.length > 0) {
          const pod = pick(running);
          kube.store.update('pods', {
            ...pod,
            metadata: {
              ...pod.metadata,
              finalizers: [...(pod.metadata.finalizers ?? []), 'sim.podlift.dev/stuck'],
            },
          });
          what = `stuck finalizer on ${pod.metadata.name}`;
        } else what = 'stuck finalizer: no running pod';
      } else what = 'wait';
      const waitMs = 10_000 + Math.floor(random() * 80_000);
      if (what !== 'wait') changesMs.push(sim.elapsed);
      log(`step ${step}: ${what}, then ${Math.round(waitMs / 1000)}s`);
      await sim.advance(waitMs);
    }
    sim.router.faults = undefined;
    kube.clearFaults();
    ec2.clearFailures();
    sim.router.crashNext.clear();
    log('quiet period: 10m without faults');
    await sim.advance(600_000);
    await measure();
    const pods = sim.world.fakes.kube.store.list('pods').items;
    const wanted = sim.workloads.list().reduce((sum, w) => sum + w.replicas, 0);
    // A Terminating pod (stuck behind a finalizer, or on a dead kubelet) is not one the Deployment counts.
    const running = pods.filter(
      (p) =>
        (p.status as { phase?: string } | undefined)?.phase === 'Running' && !p.metadata.deletionTimestamp,
    ).length;
    const claims = new Set(
      sim.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items.map((c) => c.metadata.name),
    );
    const orphans = ec2
      .listInstances()
      .filter((i) => ['pending', 'running'].includes(i.State?.Name ?? ''))
      .filter(
        (i) => !claims.has((i.Tags ?? []).find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value ?? ''),
      ).length;
    return {
      seed: options.seed,
      steps: options.steps,
      ...(options.featureGates !== undefined ? { featureGates: options.featureGates } : {}),
      simulatedMs: sim.elapsed,
      violations: [...sim.invariants.violations],
      podsLost: Math.max(0, wanted - running),
      orphans,
      notFinalized: sim.record.unfinalized(FINALIZE_WITHIN_MS).map((d) => d.name),
      invocationsFailed: sim.router.invocations.filter((i) => i.outcome === 'threw').length,
      costOverTime,
      cost: costReport({
        points: costOverTime,
        changesMs,
        windowMs: settleWindowMs(CONSOLIDATE_AFTER_MS),
        simulatedMs: sim.elapsed,
        evictions: kube.requests.filter(
          (r) => r.method === 'POST' && r.status === 201 && r.path.endsWith('/eviction'),
        ).length,
        disruptedNodes: sim.decisions.reduce((n, d) => n + (d.disruptedNodes ?? 0), 0),
        savedDollarsPerHour: sim.decisions.reduce((sum, d) => sum + (d.savedDollarsPerHour ?? 0), 0),
      }),
      digest: sim.trace.digest(),
      traceEntries: sim.trace.count,
      ...(options.keepTrace ? { trace: sim.trace.lines } : {}),
    };
  } finally {
    await sim.close();
  }
}
