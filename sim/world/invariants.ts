import type { Instance } from '@aws-sdk/client-ec2';
import { durationMs } from '../../shared/core/model/duration';
import type { KubeObject, RecordedRequest } from '../fakes/kube';
import { BudgetInvariant, type ControllerRef, podsRemovedBy } from './budget-invariant';
import type { ClusterWorld } from './cluster-world';
import { quantityValue } from './kube-scheduler';
import type { KubeletStandIn } from './kubelet';

/** How long an instance of the cluster may run without a NodeClaim before it counts as an orphan. */
export const ORPHAN_BOUND_MS = 3 * 60_000;

// biome-ignore lint/suspicious/noExplicitAny: the checker reads the API server's untyped JSON
type Json = Record<string, any>;

interface InterruptionWatch {
  readonly instanceId: string;
  readonly node: string | undefined;
  /** The instance's NodeClaim (its `karpenter.sh/nodeclaim` tag), registered or not. */
  readonly claim: string | undefined;
  readonly warnedAt: number;
  readonly reclaimAt: number;
  /** Whether the node ran pods that need somewhere to go. */
  readonly hadPods: boolean;
  /** What announced the instance's end, for messages. */
  readonly cause: string;
  /** The controllers (`namespace/Kind/name`) of the pods the node ran when it was warned. */
  readonly controllers: ReadonlySet<string>;
  /**
   * The first check at which the node ran no more pods (none left terminating): its drain was
   * done, and its pods' replacements, created as each one was deleted, existed by then.
   */
  emptiedAt: number | undefined;
  checked: boolean;
}

/**
 * podlift's guarantees, checked after every step of the world rather than only at the end:
 * - no NodePool's instances exceed its `limits` (cpu, memory);
 * - no instance podlift terminates still runs non-DaemonSet pods that were not evicted, unless
 *   a terminationGracePeriod ran out (the termination function says so in its log) or the
 *   instance's NodeClaim is gone (garbage collection);
 * - no instance of the cluster runs without a NodeClaim longer than {@link ORPHAN_BOUND_MS};
 * - podlift terminates no instance that is not tagged for the cluster;
 * - a spot interruption (or an AWS Health scheduled change) of a node with pods gets a
 *   replacement NodeClaim initialized before the instance is reclaimed (or retired) when the
 *   interruption function launched one; when it launched none (the pods fit on existing capacity,
 *   or the cluster Lease was held and the provisioner's next run launches for them), no pod of the
 *   node's controllers whose creationTimestamp is at or before the first check that found the node
 *   empty (no pod left on it, terminating or not) is pending when the instance goes: those are its
 *   pods' replacements. One created later replaces a pod another node's drain evicted and is that
 *   node's to answer for; when the node never emptied (a drain held up), every pending pod of its
 *   controllers counts. Except while a waiver holds (capacity outages, crashes);
 * - a node running a `karpenter.sh/do-not-disrupt` pod is never tainted for voluntary disruption
 *   (an interrupted or expired node's is forceful);
 * - no voluntary disruption by podlift (an eviction, a pod deletion, an instance terminated)
 *   takes a PodDisruptionBudget's healthy pods below its desiredHealthy, minAvailable or
 *   maxUnavailable, integer or percentage ({@link BudgetInvariant}); involuntary losses do not count.
 * - the API server refuses no request of a function or the watcher with 403: manifests/ grants
 *   every right their code uses (the fake enforces its RBAC, kube-identities.ts).
 * Each violation is reported once, named, and kept in `violations`.
 */
export class InvariantChecker {
  readonly violations: string[] = [];
  private readonly reported = new Set<string>();
  private readonly interruptions: InterruptionWatch[] = [];
  private readonly previousState = new Map<string, string>();
  private readonly budgets = new BudgetInvariant();
  /** Requests of the API server's log already looked at (only podlift talks to it over HTTP). */
  private requestCursor = 0;
  /** The instances podlift asked EC2 to terminate (its TerminateInstances calls), and how far the call log was read. */
  private readonly terminatedByPodlift = new Set<string>();
  private callCursor = 0;
  /** Nodes whose pods podlift was allowed to force off (terminationGracePeriod ran out). */
  readonly forcedNodes = new Set<string>();
  /** Nodes an interruption tainted, where the do-not-disrupt guarantee does not apply. */
  readonly interruptedNodes = new Set<string>();
  survived = 0;
  /** NodeClaims the interruption function created, and when. */
  private readonly interruptionLaunches: { nodeClaim: string; interrupted: string }[] = [];
  /** Interruptions whose window overlaps a function crash are not held to the guarantee. */
  private readonly waivers: { from: number; until: number }[] = [];
  /**
   * When each NodeClaim became Initialized (its condition's lastTransitionTime), kept after the
   * NodeClaim is gone: a replacement that was ready before the reclaim met the guarantee even when
   * it was itself interrupted and deleted before the reclaim came.
   */
  private readonly initializedAt = new Map<string, number>();

  /**
   * @param scaleOf the scale of a pod's controller (a Deployment's replicas for its ReplicaSet),
   *   as the disruption controller's finders read it; undefined when no controller is known.
   */
  constructor(
    private readonly world: ClusterWorld,
    private readonly kubelet: KubeletStandIn,
    private readonly onViolation: (message: string) => void,
    private readonly scaleOf: (namespace: string, controller: ControllerRef) => number | undefined = () =>
      undefined,
  ) {}

  /**
   * Starts watching a spot interruption, or another notice of an instance's end (`cause`): a
   * replacement must be initialized before `reclaimAt`.
   */
  expectReplacementBefore(instanceId: string, reclaimAt: number, cause = 'spot interruption'): void {
    const node = this.kubelet.nodeOf(instanceId);
    const pods = node === undefined ? [] : this.podsOn(node);
    const hadPods = pods.length > 0;
    if (node) this.interruptedNodes.add(node);
    const claim = this.world.fakes.ec2
      .instance(instanceId)
      ?.Tags?.find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value;
    this.interruptions.push({
      instanceId,
      node,
      claim,
      warnedAt: this.world.time.now(),
      reclaimAt,
      hadPods,
      cause,
      controllers: new Set(pods.flatMap((p) => controllerKeys(p))),
      emptiedAt: undefined,
      checked: false,
    });
  }

  /**
   * Notes a NodeClaim the interruption function created to replace the `interrupted` NodeClaim's
   * capacity (to be ready before the reclaim).
   */
  noteInterruptionLaunch(nodeClaim: string, interrupted: string): void {
    this.interruptionLaunches.push({ nodeClaim, interrupted });
  }

  /**
   * From now until `until`, spot interruptions are not held to the replace-before-reclaim
   * guarantee (they still count as not survived): EC2 is refusing capacity, or a function crashed
   * and its cluster Lease may hold every loop back until it lapses.
   */
  waiveInterruptionsUntil(until: number): void {
    this.waivers.push({ from: this.world.time.now(), until });
  }

  /**
   * The NodeClaims launched to replace the `claim`'s capacity; when one of them was itself
   * interrupted before it was ready — registered or not — the replacements launched for it count
   * too (its pods moved on with them).
   */
  private replacementsOf(claim: string | undefined, seen = new Set<string>()): string[] {
    if (claim === undefined || seen.has(claim)) return [];
    seen.add(claim);
    return this.interruptionLaunches
      .filter((l) => l.interrupted === claim)
      .flatMap((l) => [l.nodeClaim, ...this.replacementsOf(l.nodeClaim, seen)]);
  }

  /** Checks every guarantee now. */
  check(): void {
    const store = this.world.fakes.kube.store;
    const instances = this.world.fakes.ec2.listInstances();
    this.checkTerminateCalls();
    const claims = store.list('nodeclaims.karpenter.sh').items as Json[];
    this.checkLimits(instances, store.list('nodepools.karpenter.sh').items as Json[]);
    this.checkTerminations(instances);
    this.checkOrphans(instances, new Set(claims.map((c) => c.metadata.name)));
    this.noteInitialized(claims);
    this.checkInterruptions();
    this.checkDoNotDisrupt(store.list('nodes').items as Json[], claims);
    this.checkBudgets();
  }

  private violate(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.violations.push(message);
    this.onViolation(message);
  }

  /**
   * Pods of `controllers` that are not bound to a node (nor finished, nor leaving), created no
   * later than `createdBy` (virtual ms). A creationTimestamp has whole seconds, cut down: a pod
   * created in the same second as `createdBy`, before or after it, counts.
   */
  private pendingOf(controllers: ReadonlySet<string>, createdBy: number): KubeObject[] {
    return this.world.fakes.kube.store
      .list('pods')
      .items.filter(
        (p) =>
          !(p.spec as Json)?.nodeName &&
          !p.metadata.deletionTimestamp &&
          !['Succeeded', 'Failed'].includes((p.status as Json)?.phase) &&
          controllerKeys(p).some((k) => controllers.has(k)) &&
          createdNoLaterThan(p, createdBy),
      );
  }

  private podsOn(
    node: string,
    pods: KubeObject[] = this.world.fakes.kube.store.list('pods').items,
  ): KubeObject[] {
    return pods.filter(
      (p) =>
        (p.spec as Json)?.nodeName === node &&
        !((p.metadata.ownerReferences ?? []) as Json[]).some(
          (o) => o.kind === 'DaemonSet' || o.kind === 'Node',
        ) &&
        !['Succeeded', 'Failed'].includes((p.status as Json)?.phase),
    );
  }

  private checkLimits(instances: Instance[], pools: Json[]): void {
    for (const pool of pools) {
      const limits = (pool.spec?.limits ?? {}) as Record<string, string>;
      if (limits.cpu === undefined) continue;
      const name = pool.metadata.name;
      let vcpus = 0;
      for (const i of instances) {
        if (!['pending', 'running'].includes(i.State?.Name ?? '')) continue;
        if (!(i.Tags ?? []).some((t) => t.Key === 'karpenter.sh/nodepool' && t.Value === name)) continue;
        const info = this.world.fakes.ec2.describeInstanceTypes({ InstanceTypes: [i.InstanceType as never] })
          .InstanceTypes?.[0];
        vcpus += (info?.VCpuInfo?.DefaultVCpus ?? 0) * 1000;
      }
      if (vcpus > quantityValue('cpu', limits.cpu))
        this.violate(
          `limits/${name}/${vcpus}`,
          `NodePool ${name}: instances have ${vcpus / 1000} vCPU, over limits.cpu ${limits.cpu}`,
        );
    }
  }

  private checkTerminations(instances: Instance[]): void {
    for (const i of instances) {
      const id = i.InstanceId ?? '';
      const state = i.State?.Name ?? '';
      const before = this.previousState.get(id);
      this.previousState.set(id, state);
      if (before === undefined || before === state || state !== 'shutting-down') continue;
      // Only podlift's own TerminateInstances count: one made behind its back is not its drain.
      if (i.StateReason?.Code !== 'Client.UserInitiatedShutdown' || !this.terminatedByPodlift.has(id))
        continue;
      const node = this.kubelet.nodeOf(id);
      if (!node || this.forcedNodes.has(node)) continue;
      // Garbage collection of an instance whose NodeClaim is gone does not drain, as Karpenter's
      // nodeclaim garbagecollection controller does not: there is no NodeClaim to drain through.
      const claim = (i.Tags ?? []).find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value;
      if (claim !== undefined && !this.world.fakes.kube.store.find('nodeclaims.karpenter.sh', claim))
        continue;
      // A pod being deleted (evicted, or by the taint eviction controller) is on its way out.
      const left = this.podsOn(node).filter((p) => !p.metadata.deletionTimestamp);
      if (left.length > 0)
        this.violate(
          `drain/${id}`,
          `instance ${id} (node ${node}) terminated with ${left.length} pod(s) not evicted: ${left.map((p) => p.metadata.name).join(', ')}`,
        );
    }
  }

  /**
   * Reads podlift's new TerminateInstances calls: each must name only instances tagged for the
   * cluster (`kubernetes.io/cluster/<cluster>: owned` and a `karpenter.sh/nodepool` tag), the
   * ones it launched; anything else (a managed node group's, another cluster's) is not its to end.
   */
  private checkTerminateCalls(): void {
    const { ec2 } = this.world.fakes;
    const calls = ec2.calls;
    const cluster = `kubernetes.io/cluster/${this.world.config.clusterName}`;
    for (const call of calls.slice(this.callCursor)) {
      if (call.operation !== 'TerminateInstances') continue;
      for (const id of ((call.input as { InstanceIds?: string[] }).InstanceIds ?? []) as string[]) {
        if (!call.error) this.terminatedByPodlift.add(id);
        const tags = ec2.instance(id)?.Tags ?? [];
        const owned =
          tags.some((t) => t.Key === cluster && t.Value === 'owned') &&
          tags.some((t) => t.Key === 'karpenter.sh/nodepool');
        if (!owned)
          this.violate(
            `foreign/${id}`,
            `podlift terminated instance ${id}, which is not tagged for the cluster`,
          );
      }
    }
    this.callCursor = calls.length;
  }

  private checkOrphans(instances: Instance[], claims: Set<string>): void {
    const now = this.world.time.now();
    for (const i of instances) {
      if (!['pending', 'running'].includes(i.State?.Name ?? '')) continue;
      const claim = (i.Tags ?? []).find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value;
      if (claim === undefined || claims.has(claim)) continue;
      const age = now - (i.LaunchTime?.getTime() ?? now);
      if (age > ORPHAN_BOUND_MS)
        this.violate(
          `orphan/${i.InstanceId}`,
          `instance ${i.InstanceId} has run ${Math.round(age / 1000)}s without its NodeClaim ${claim}`,
        );
    }
  }

  private noteInitialized(claims: Json[]): void {
    for (const c of claims) {
      if (this.initializedAt.has(c.metadata.name)) continue;
      const initialized = (c.status?.conditions ?? []).find(
        (k: Json) => k.type === 'Initialized' && k.status === 'True',
      );
      if (!initialized) continue;
      const at = Date.parse(initialized.lastTransitionTime);
      this.initializedAt.set(c.metadata.name, Number.isNaN(at) ? this.world.time.now() : at);
    }
  }

  private checkInterruptions(): void {
    const now = this.world.time.now();
    let pods: KubeObject[] | undefined;
    for (const watch of this.interruptions) {
      if (watch.checked) continue;
      if (watch.node !== undefined && watch.emptiedAt === undefined) {
        pods ??= this.world.fakes.kube.store.list('pods').items;
        if (this.podsOn(watch.node, pods).length === 0) watch.emptiedAt = now;
      }
      if (now < watch.reclaimAt) continue;
      watch.checked = true;
      if (!watch.hadPods) {
        this.survived++;
        continue;
      }
      // The interruption function launches what the node's pods need. When it launched nothing
      // (they fit on capacity already there, or the provisioner launches for them because the
      // Lease was held), the pods themselves are followed: their replacements must not be left
      // pending when the instance goes. Those are the controllers' pods that existed when the node
      // emptied; one created later replaces a pod another node's drain evicted, whose own watch
      // answers for it. Until the node empties (a drain held up), any of them may be its pods'.
      const launched = this.replacementsOf(watch.claim);
      const replaced =
        launched.length === 0
          ? this.pendingOf(
              watch.controllers,
              (watch.emptiedAt ?? Number.POSITIVE_INFINITY) + REPLACEMENT_SLACK_MS,
            ).length === 0
          : launched.some(
              (name) => (this.initializedAt.get(name) ?? Number.POSITIVE_INFINITY) <= watch.reclaimAt,
            );
      if (replaced) this.survived++;
      else if (!this.waivers.some((w) => w.from <= watch.reclaimAt && w.until >= watch.warnedAt))
        this.violate(
          `interruption/${watch.instanceId}`,
          `${watch.cause} of ${watch.instanceId}: no replacement initialized before the instance went`,
        );
    }
  }

  /**
   * Karpenter's voluntary disruption (drift, consolidation, emptiness) passes over nodes with
   * do-not-disrupt pods; forceful disruption does not wait to taint: an interruption, or an
   * expired NodeClaim (expiration is forceful since v1, its drain held only until
   * terminationGracePeriod; kubernetes-sigs/karpenter pkg/controllers/nodeclaim/expiration); and
   * drift is eventual: with the NodeClaim's terminationGracePeriod set it takes such nodes too
   * (pkg/controllers/disruption/types.go `NewCandidate`), the drain holding the pods until then.
   */
  private checkDoNotDisrupt(nodes: Json[], claims: Json[]): void {
    const pods = this.world.fakes.kube.store.list('pods').items;
    const now = this.world.time.now();
    const expired = new Set(
      claims
        .filter((c) => {
          const ttl = typeof c.spec?.expireAfter === 'string' ? durationMs(c.spec.expireAfter) : undefined;
          return ttl !== undefined && Date.parse(c.metadata.creationTimestamp) + ttl <= now;
        })
        .map((c) => c.status?.providerID),
    );
    const eventual = new Set(
      claims
        .filter((c) => {
          const command = c.metadata.annotations?.['podlift.dev/disruption-command'];
          return c.spec?.terminationGracePeriod && /"method":"drift"/.test(command ?? '');
        })
        .map((c) => c.status?.providerID),
    );
    for (const node of nodes) {
      const name = node.metadata.name;
      const id = node.spec?.providerID;
      if (this.interruptedNodes.has(name) || expired.has(id) || eventual.has(id)) continue;
      const tainted = (node.spec?.taints ?? []).some((t: Json) => t.key === 'karpenter.sh/disrupted');
      if (!tainted) continue;
      const holder = this.podsOn(name, pods).find(
        (p) =>
          p.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true' &&
          (p.status as Json)?.phase === 'Running',
      );
      if (holder)
        this.violate(
          `dnd/${name}`,
          `node ${name} tainted for disruption while running do-not-disrupt pod ${holder.metadata.name}`,
        );
    }
  }

  private checkBudgets(): void {
    const { kube } = this.world.fakes;
    const requests = kube.requests;
    if (this.requestCursor > requests.length) this.requestCursor = 0;
    const fresh = requests.slice(this.requestCursor);
    this.requestCursor = requests.length;
    this.checkAccess(fresh);
    const removedByPodlift = podsRemovedBy(fresh);
    const budgets = kube.store.list('poddisruptionbudgets.policy').items;
    // Without budgets there is nothing to hold, and no pod list to copy at every step.
    const found = this.budgets.check({
      pods: budgets.length > 0 ? kube.store.list('pods').items : [],
      budgets,
      nodes: budgets.length > 0 ? kube.store.list('nodes').items : [],
      removedByPodlift,
      terminatedByPodlift: (id) => this.terminatedByPodlift.has(id),
      forcedNodes: this.forcedNodes,
      scaleOf: this.scaleOf,
    });
    for (const message of found) this.violate(`pdb/${this.world.time.now()}/${message}`, message);
  }

  /** A 403 means a grant missing from manifests/: the loop that met it could not do its work. */
  private checkAccess(requests: readonly RecordedRequest[]): void {
    for (const r of requests) {
      if (r.status !== 403) continue;
      const what = `${r.user ?? 'an unknown user'} ${r.method} ${r.path}`;
      this.violate(
        `rbac/${what}`,
        `the API server refused ${what} (403 Forbidden): manifests/ does not grant it`,
      );
    }
  }
}

/**
 * How long after a node emptied its last pod's replacement may still be created: a pod deleted
 * at once (grace 0, a terminationGracePeriod run out) leaves the store in the same tick, and the
 * ReplicaSet stand-in creates its replacement at the next (the simulation's default tick, 1 s).
 */
const REPLACEMENT_SLACK_MS = 1_000;

/** Whether `pod` was created at or before `at` (virtual ms); one without a creationTimestamp was. */
function createdNoLaterThan(pod: KubeObject, at: number): boolean {
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  return Number.isNaN(created) || created <= at;
}

/** A pod's controllers as `namespace/Kind/name` (a ReplicaSet's pods keep their owner when recreated). */
function controllerKeys(pod: KubeObject): string[] {
  return ((pod.metadata.ownerReferences ?? []) as Json[])
    .filter((o) => o.controller === true)
    .map((o) => `${pod.metadata.namespace}/${o.kind}/${o.name}`);
}
