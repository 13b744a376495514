import type { Instance } from '@aws-sdk/client-ec2';
import { durationMs } from '../../shared/core/model/duration';
import type { RecordedRequest } from '../fakes/kube';
import { BudgetInvariant, type ControllerRef, podsRemovedBy } from './budget-invariant';
import type { ClusterWorld } from './cluster-world';
import { InterruptionInvariant, podsOn } from './interruption-invariant';
import { quantityValue } from './kube-scheduler';
import type { KubeletStandIn } from './kubelet';
import { NodeBudgetInvariant } from './node-budget-invariant';

/** How long an instance of the cluster may run without a NodeClaim before it counts as an orphan. */
export const ORPHAN_BOUND_MS = 3 * 60_000;

// biome-ignore lint/suspicious/noExplicitAny: the checker reads the API server's untyped JSON
type Json = Record<string, any>;

/**
 * podlift's guarantees, checked after every step of the world rather than only at the end:
 * - no NodePool's instances exceed its `limits` (cpu, memory);
 * - no instance podlift terminates still runs non-DaemonSet pods that were not evicted, unless
 *   a terminationGracePeriod ran out (the termination function says so in its log) or the
 *   instance's NodeClaim is gone (garbage collection);
 * - no instance of the cluster runs without a NodeClaim longer than {@link ORPHAN_BOUND_MS};
 * - podlift terminates no instance that is not tagged for the cluster;
 * - a spot interruption (or an AWS Health scheduled change) of a node with pods leaves none of
 *   them without somewhere to run when the instance goes ({@link InterruptionInvariant});
 * - a node running a `karpenter.sh/do-not-disrupt` pod is never tainted for voluntary disruption
 *   (an interrupted or expired node's is forceful);
 * - no voluntary disruption by podlift (an eviction, a pod deletion, an instance terminated)
 *   takes a PodDisruptionBudget's healthy pods below its desiredHealthy, minAvailable or
 *   maxUnavailable, integer or percentage ({@link BudgetInvariant}); involuntary losses do not count.
 * - no disruption command takes more of a NodePool's nodes at once than its disruption budgets
 *   allow ({@link NodeBudgetInvariant});
 * - the API server refuses no request of a function or the watcher with 403: manifests/ grants
 *   every right their code uses (the fake enforces its RBAC, kube-identities.ts).
 * Each violation is reported once, named, and kept in `violations`.
 */
export class InvariantChecker {
  readonly violations: string[] = [];
  private readonly reported = new Set<string>();
  private readonly previousState = new Map<string, string>();
  private readonly budgets = new BudgetInvariant();
  private readonly nodeBudgets = new NodeBudgetInvariant();
  private readonly interruptions: InterruptionInvariant;
  /** Requests of the API server's log already looked at (only podlift talks to it over HTTP). */
  private requestCursor = 0;
  /** The instances podlift asked EC2 to terminate (its TerminateInstances calls), and how far the call log was read. */
  private readonly terminatedByPodlift = new Set<string>();
  private callCursor = 0;
  /** Nodes whose pods podlift was allowed to force off (terminationGracePeriod ran out). */
  readonly forcedNodes = new Set<string>();

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
  ) {
    this.interruptions = new InterruptionInvariant(world, kubelet, (key, message) =>
      this.violate(key, message),
    );
  }

  /** Starts watching an instance's announced end: see {@link InterruptionInvariant.expect}. */
  expectReplacementBefore(instanceId: string, reclaimAt: number, cause = 'spot interruption'): void {
    this.interruptions.expect(instanceId, reclaimAt, cause);
  }

  /** See {@link InterruptionInvariant.noteLaunch}. */
  noteInterruptionLaunch(nodeClaim: string, interrupted: string): void {
    this.interruptions.noteLaunch(nodeClaim, interrupted);
  }

  /** See {@link InterruptionInvariant.waiveUntil}. */
  waiveInterruptionsUntil(until: number): void {
    this.interruptions.waiveUntil(until);
  }

  /** Interruptions whose replace-before-reclaim guarantee held. */
  get survived(): number {
    return this.interruptions.survived;
  }

  /** Checks every guarantee now. */
  check(): void {
    const store = this.world.fakes.kube.store;
    const instances = this.world.fakes.ec2.listInstances();
    this.checkTerminateCalls();
    const claims = store.list('nodeclaims.karpenter.sh').items as Json[];
    const pools = store.list('nodepools.karpenter.sh').items as Json[];
    const nodes = store.list('nodes').items as Json[];
    this.checkLimits(instances, pools);
    for (const message of this.nodeBudgets.check({
      nodeClaims: claims,
      nodes,
      nodePools: pools,
      now: this.world.time.now(),
    }))
      this.violate(`node-budget/${message}`, message);
    this.checkTerminations(instances);
    this.checkOrphans(instances, new Set(claims.map((c) => c.metadata.name)));
    this.interruptions.check(claims);
    this.checkDoNotDisrupt(nodes, claims);
    this.checkBudgets();
  }

  private violate(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.violations.push(message);
    this.onViolation(message);
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
      const left = podsOn(node, this.world.fakes.kube.store.list('pods').items).filter(
        (p) => !p.metadata.deletionTimestamp,
      );
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
      if (this.interruptions.interruptedNodes.has(name) || expired.has(id) || eventual.has(id)) continue;
      const tainted = (node.spec?.taints ?? []).some((t: Json) => t.key === 'karpenter.sh/disrupted');
      if (!tainted) continue;
      const holder = podsOn(name, pods).find(
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
