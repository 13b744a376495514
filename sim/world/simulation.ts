import type { Instance } from '@aws-sdk/client-ec2';
import { loadBundledCatalog } from '../../shared/core/catalog/bundled';
import type { FunctionName } from '../../shared/core/contracts/routing';
import { kubeListWatchSources } from '../../watcher/kube-list-watch';
import { Watcher } from '../../watcher/watcher';
import type { LoggedLine } from '../fakes/ports/recording-observability';
import type { ClusterSample, DecisionEntry } from '../report/record';
import { VirtualTime } from '../virtual-time';
import { AttachDetachStandIn } from './attach-detach';
import { REGION } from './aws/region';
import { Ec2EventSource } from './aws-events';
import { type ClusterWorld, clusterWorld } from './cluster-world';
import { FunctionRouter, type RoutingLatencies } from './function-router';
import { InvariantChecker } from './invariants';
import { WATCHER_IDENTITY } from './kube-identities';
import { allocatableOf, KubeSchedulerStandIn, podRequests } from './kube-scheduler';
import { KubeletStandIn, type KubeletTimings, kubeletEventMessage } from './kubelet';
import { decisionFromLine } from './log-lines';
import { seeded } from './seeded-random';
import { WorldTrace } from './trace';
import { ObservedSources } from './watched-sources';
import { WorkloadController } from './workloads';
import { WorldRecord } from './world-record';

/** Options of {@link Simulation.start}. */
export interface SimulationOptions {
  readonly instanceTypes?: readonly string[];
  /** Environment of the functions (e.g. `{ REBALANCE_ACTION: 'replace' }`). */
  readonly environment?: Readonly<Record<string, string>>;
  readonly kubelet?: KubeletTimings;
  readonly latencies?: RoutingLatencies;
  /** Virtual ms per world step. @default 1000 */
  readonly tickMs?: number;
  /** Called with every decision as it is made (the log). */
  readonly onDecision?: (entry: DecisionEntry) => void;
  /** Run the real watcher process against the API server. @default true */
  readonly watcher?: boolean;
  /** Seeds the world's randomness (uids, generated names, the watcher's backoff jitter). @default 0 */
  readonly seed?: number;
  /** Keep the trace's lines (not only its digest), to see where two runs part. @default false */
  readonly keepTrace?: boolean;
}

/**
 * The whole loop on one virtual timeline: the fake cluster and region of {@link clusterWorld}; the
 * kube-scheduler, kubelet and workload controller stand-ins; the real watcher reading the fake API
 * server through client-node and publishing to the fake EventBridge; the rules routing its events,
 * the EC2 events and the schedules to the real handlers ({@link FunctionRouter}); and an invariant
 * checker run after every step. It records samples and decisions for the summary and the report.
 */
export class Simulation {
  readonly decisions: DecisionEntry[] = [];
  readonly samples: ClusterSample[] = [];
  readonly timeToCapacityMs: number[] = [];
  readonly scheduler: KubeSchedulerStandIn;
  readonly kubelet: KubeletStandIn;
  readonly attachDetach: AttachDetachStandIn;
  readonly workloads: WorkloadController;
  readonly router: FunctionRouter;
  readonly ec2Events: Ec2EventSource;
  readonly invariants: InvariantChecker;
  /** The ordered log of writes, calls and invocations, and its digest: equal digests, equal runs. */
  readonly trace: WorldTrace;
  /** Events, NodeClaim deletions and do-not-disrupt pods podlift removed, for expectations. */
  readonly record: WorldRecord;
  readonly startedAt: number;
  private readonly podCreatedAt = new Map<string, number>();
  private readonly tickMs: number;
  private readonly prices: {
    onDemand: ReadonlyMap<string, number>;
    spot: ReadonlyMap<string, ReadonlyMap<string, number>>;
  };
  private lastSampleAt = Number.NEGATIVE_INFINITY;
  private lastInterruptedClaim: string | undefined;

  private constructor(
    readonly world: ClusterWorld,
    private readonly options: SimulationOptions,
    private readonly watcher: Watcher | undefined,
    private readonly observed: ObservedSources | undefined,
  ) {
    const store = world.fakes.kube.store;
    const time = world.time;
    this.startedAt = time.now();
    this.tickMs = options.tickMs ?? 1000;
    this.scheduler = new KubeSchedulerStandIn(store, time);
    this.kubelet = new KubeletStandIn(store, world.fakes.ec2, time, options.kubelet);
    this.workloads = new WorkloadController(store, time);
    this.attachDetach = new AttachDetachStandIn(store, time);
    this.ec2Events = new Ec2EventSource(world.fakes.ec2, time);
    this.router = new FunctionRouter(world, (fn, line) => this.onLine(fn, line), options.latencies);
    this.invariants = new InvariantChecker(
      world,
      this.kubelet,
      (v) => this.decide('invariant', 'violation', v),
      (namespace, controller) => this.workloads.scaleOf(namespace, controller.kind, controller.name),
    );
    this.record = new WorldRecord(world);
    this.trace = new WorldTrace(
      time,
      store,
      {
        aws: { ec2: world.fakes.ec2.calls, events: world.fakes.eventBridge.calls },
        invocations: () => this.router.invocations,
      },
      { keepLines: options.keepTrace },
    );
    const catalog = loadBundledCatalog(REGION);
    this.prices = { onDemand: catalog.prices.onDemand, spot: catalog.prices.spot };
    store.subscribe((event) => {
      if (event.resource.plural !== 'pods') return;
      const uid = event.object.metadata.uid ?? '';
      if (event.type === 'ADDED') this.podCreatedAt.set(uid, time.now());
      const phase = (event.object.status as { phase?: string } | undefined)?.phase;
      const created = this.podCreatedAt.get(uid);
      if (phase === 'Running' && created !== undefined) {
        this.timeToCapacityMs.push(time.now() - created);
        this.podCreatedAt.delete(uid);
      }
      if (event.type === 'DELETED') this.podCreatedAt.delete(uid);
    });
  }

  /** Builds the world (its randomness drawn from `seed`), creates no objects, and starts the watcher. */
  static async start(options: SimulationOptions = {}): Promise<Simulation> {
    const seed = options.seed ?? 0;
    const world = await clusterWorld({
      time: new VirtualTime(),
      instanceTypes: options.instanceTypes,
      environment: options.environment,
      loop: 'simulator',
      seed,
    });
    let watcher: Watcher | undefined;
    let observed: ObservedSources | undefined;
    if (options.watcher !== false) {
      observed = new ObservedSources(
        kubeListWatchSources(world.io.kubeConfig(world.fakes.kube.kubeConfig(WATCHER_IDENTITY.token))),
        world.fakes.kube.store,
      );
      watcher = new Watcher({
        cluster: world.config.clusterName,
        sources: observed.sources,
        // The watcher's own role: its Pod Identity role may only put events on the cluster's bus.
        publisher: world.composeAgain('watcher').publisher,
        clock: world.time,
        timers: world.time,
        // The watcher's own defaults (watcher/watcher.ts), with the jitter drawn from the seed.
        watchBackoff: { initialMs: 1000, maxMs: 30_000, jitter: 0.2, random: seeded(seed + 1) },
        publishBackoff: { initialMs: 1000, maxMs: 60_000, jitter: 0.2, random: seeded(seed + 2) },
      });
    }
    const sim = new Simulation(world, options, watcher, observed);
    if (observed) world.io.quietWhen(() => observed.caughtUp());
    watcher?.start();
    await world.io.idle();
    return sim;
  }

  /** Virtual ms since the start. */
  get elapsed(): number {
    return this.world.time.now() - this.startedAt;
  }

  /** Records something the world or the scenario did. */
  decide(
    actor: string,
    kind: string,
    message: string,
    figures: Pick<DecisionEntry, 'savedDollarsPerHour' | 'disruptedNodes'> = {},
  ): void {
    const entry: DecisionEntry = { at: this.elapsed, actor, kind, message, ...figures };
    this.decisions.push(entry);
    this.options.onDecision?.(entry);
  }

  /** Spot-reclaims an instance: the warning goes to the default bus now, the instance goes in two minutes. */
  interrupt(instanceId: string): void {
    const event = this.ec2Events.interrupt(instanceId);
    this.router.putDefaultBusEvent(event);
    this.invariants.expectReplacementBefore(instanceId, this.world.time.now() + 120_000);
    this.decide(
      'ec2',
      'interruption-warning',
      `spot interruption warning for ${instanceId} (${this.kubelet.nodeOf(instanceId) ?? 'no node'}), reclaimed in 2m`,
    );
  }

  /**
   * EC2 recommends rebalancing a spot instance: the recommendation goes to the default bus now;
   * nothing happens to the instance (EC2 may or may not interrupt it later).
   */
  rebalance(instanceId: string): void {
    this.router.putDefaultBusEvent(this.ec2Events.rebalance(instanceId));
    this.decide(
      'ec2',
      'rebalance-recommendation',
      `rebalance recommendation for ${instanceId} (${this.kubelet.nodeOf(instanceId) ?? 'no node'})`,
    );
  }

  /**
   * AWS Health announces that EC2 retires `instanceIds` in `inMs` (virtual ms from now): the
   * event goes to the default bus now and the instances shut down at its start time. Each one
   * is held to the interruption guarantee with the start time as its deadline.
   */
  scheduledChange(instanceIds: readonly string[], inMs: number, eventTypeCode?: string): void {
    const startTime = this.world.time.now() + inMs;
    const event = this.ec2Events.scheduledChange(instanceIds, {
      startTime,
      ...(eventTypeCode ? { eventTypeCode } : {}),
    });
    this.router.putDefaultBusEvent(event);
    for (const id of instanceIds)
      this.invariants.expectReplacementBefore(id, startTime, 'AWS Health scheduled change');
    const nodes = instanceIds.map((id) => `${id} (${this.kubelet.nodeOf(id) ?? 'no node'})`).join(', ');
    this.decide(
      'health',
      'scheduled-change',
      `AWS Health: ${String(event.detail.eventTypeCode)} for ${nodes}, starting in ${Math.round(inMs / 1000)}s`,
    );
  }

  /**
   * Kills the kubelet on `instanceId`: no more heartbeats, no pod deletion confirmed. Throws
   * naming the instance when the world runs none by that id.
   */
  killKubelet(instanceId: string): void {
    if (!this.kubelet.killKubelet(instanceId))
      throw new Error(`no running instance ${instanceId} with a kubelet`);
  }

  /** Spot interruptions whose replacement was initialized before the reclaim (or that needed none). */
  get interruptionsSurvived(): number {
    return this.invariants.survived;
  }

  /** Runs the world for `ms` of virtual time. `onTick` is called after each step (progress lines). */
  async advance(ms: number, onTick?: () => void): Promise<void> {
    const end = this.world.time.now() + ms;
    while (this.world.time.now() < end) {
      await this.step();
      onTick?.();
      const now = this.world.time.now();
      // A quiet world jumps to its next due invocation or timer (whole ticks, so steps stay aligned).
      const next = this.busy()
        ? now + this.tickMs
        : Math.min(
            this.router.nextDue(),
            this.kubelet.nextDue(),
            this.attachDetach.nextDue(),
            now + (this.world.time.delays()[0] ?? Number.POSITIVE_INFINITY),
          );
      const ticks = Math.max(1, Math.floor((next - now) / this.tickMs));
      const step = Math.min(ticks * this.tickMs, end - now);
      this.sampleQuietSpan(step);
      if (step > 0) await this.world.time.advanceAsync(step);
    }
  }

  /** Runs until `done` holds (checked after each step) or `maxMs` passes; returns whether it held. */
  async until(done: () => boolean, maxMs: number): Promise<boolean> {
    const end = this.world.time.now() + maxMs;
    while (this.world.time.now() < end) {
      await this.advance(this.tickMs);
      if (done()) return true;
    }
    return done();
  }

  /** One step of the world at the current instant. */
  async step(): Promise<void> {
    await this.world.io.idle();
    for (const change of this.workloads.step())
      this.decide(
        'controller',
        'scaled',
        `${change.workload}: ${change.created > 0 ? `created ${change.created}` : ''}${change.created > 0 && change.deleted > 0 ? ', ' : ''}${change.deleted > 0 ? `deleted ${change.deleted}` : ''} pod(s)`,
      );
    const bound = this.scheduler.schedule();
    const byNode = new Map<string, number>();
    for (const node of bound.values()) byNode.set(node, (byNode.get(node) ?? 0) + 1);
    for (const [node, count] of byNode)
      this.decide('kube-scheduler', 'bound', `bound ${count} pod(s) to ${node}`);
    for (const event of this.kubelet.step()) {
      if (event.kind === 'pod-running' || event.kind === 'pod-terminated') continue;
      this.decide('kubelet', event.kind, kubeletEventMessage(event));
    }
    for (const name of this.attachDetach.step())
      this.decide('attach-detach', 'detached', `VolumeAttachment ${name} detached and deleted`);
    for (const event of this.ec2Events.stateChanges()) this.router.putDefaultBusEvent(event);
    this.invariants.check();
    await this.world.io.idle();
    this.router.drainClusterBus();
    await this.router.runDue();
    this.invariants.check();
    this.record.poll();
    this.sample();
  }

  /**
   * Whether anything in the world moves on its own before the next invocation: pods starting,
   * nodes coming up, instances changing state, queued messages, running Jobs. (A Node being
   * deleted waits for the termination function, which is an invocation; a Terminating pod for
   * its kubelet, whose confirmation {@link KubeletStandIn.nextDue} names.)
   */
  private busy(): boolean {
    if (this.kubelet.settling || this.router.queue.depth > 0) return true;
    const store = this.world.fakes.kube.store;
    if (
      store
        .list('pods')
        .items.some(
          (p) => (p.status as { phase?: string })?.phase === 'Pending' && !p.metadata.deletionTimestamp,
        )
    )
      return true;
    if (
      this.world.fakes.ec2
        .listInstances()
        .some((i) => ['pending', 'shutting-down'].includes(i.State?.Name ?? ''))
    )
      return true;
    return this.workloads.list().some((w) => w.kind === 'Job');
  }

  /** Stops the watcher and the API server. */
  async close(): Promise<void> {
    this.trace.close();
    await this.watcher?.stop();
    this.observed?.close();
    await this.world.close();
  }

  /** $/hour of the instances EC2 is running now, or of those of them `only` keeps. */
  dollarsPerHour(only?: (instance: Instance) => boolean): number {
    let total = 0;
    for (const i of this.world.fakes.ec2.listInstances()) {
      const state = i.State?.Name;
      if ((state !== 'pending' && state !== 'running') || (only && !only(i))) continue;
      const type = i.InstanceType ?? '';
      const spot = i.InstanceLifecycle === 'spot';
      total +=
        (spot ? this.prices.spot.get(type)?.get(i.Placement?.AvailabilityZone ?? '') : undefined) ??
        this.prices.onDemand.get(type) ??
        0;
    }
    return total;
  }

  /** A quiet jump keeps the cluster as it is: its samples repeat the last one, every 10 s. */
  private sampleQuietSpan(ms: number): void {
    const last = this.samples.at(-1);
    if (!last) return;
    for (let at = this.lastSampleAt + 10_000; at < this.elapsed + ms; at += 10_000) {
      this.samples.push({ ...last, at });
      this.lastSampleAt = at;
    }
  }

  private sample(): void {
    const now = this.elapsed;
    if (now - this.lastSampleAt < 10_000) return;
    this.lastSampleAt = now;
    const store = this.world.fakes.kube.store;
    const nodesByType: Record<string, number> = {};
    for (const i of this.world.fakes.ec2.listInstances()) {
      if (i.State?.Name !== 'pending' && i.State?.Name !== 'running') continue;
      nodesByType[i.InstanceType ?? ''] = (nodesByType[i.InstanceType ?? ''] ?? 0) + 1;
    }
    const pods = store.list('pods').items;
    const initialized = new Map(
      store
        .list('nodes')
        .items.filter((n) => n.metadata.labels?.['karpenter.sh/initialized'] === 'true')
        .map((n) => [n.metadata.name ?? '', n]),
    );
    let cpu = 0;
    let memory = 0;
    for (const pod of pods) {
      const nodeName = (pod.spec as { nodeName?: string })?.nodeName;
      if (!nodeName || !initialized.has(nodeName)) continue;
      const r = podRequests(pod);
      cpu += r.get('cpu') ?? 0;
      memory += r.get('memory') ?? 0;
    }
    let cpuTotal = 0;
    let memoryTotal = 0;
    for (const node of initialized.values()) {
      const a = allocatableOf(node);
      cpuTotal += a.get('cpu') ?? 0;
      memoryTotal += a.get('memory') ?? 0;
    }
    this.samples.push({
      at: now,
      nodesByType,
      pendingPods: pods.filter((p) => !(p.spec as { nodeName?: string })?.nodeName).length,
      runningPods: pods.filter((p) => (p.status as { phase?: string })?.phase === 'Running').length,
      dollarsPerHour: this.dollarsPerHour(),
      cpuUtilisation: cpuTotal > 0 ? cpu / cpuTotal : 0,
      memoryUtilisation: memoryTotal > 0 ? memory / memoryTotal : 0,
    });
  }

  private onLine(fn: FunctionName, line: LoggedLine): void {
    const decision = decisionFromLine(line);
    if (!decision) return;
    // The interruption function logs the NodeClaim it handles, then the NodeClaims it creates for it.
    const fields = line.fields as { nodeClaim?: string };
    if (fn === 'interruption' && line.message === 'interruption')
      this.lastInterruptedClaim = fields.nodeClaim;
    if (fn === 'interruption' && line.message === 'created NodeClaim' && this.lastInterruptedClaim)
      this.invariants.noteInterruptionLaunch(String(fields.nodeClaim), this.lastInterruptedClaim);
    if (decision.kind === 'forced')
      this.invariants.forcedNodes.add(String((line.fields as { node?: string }).node));
    const { kind, message, ...figures } = decision;
    this.decide(fn, kind, message, figures);
  }
}
