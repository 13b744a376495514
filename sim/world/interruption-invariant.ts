import type { KubeObject } from '../fakes/kube';
import type { ClusterWorld } from './cluster-world';
import type { KubeletStandIn } from './kubelet';

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
 * The replace-before-reclaim guarantee of the invariant checker (invariants.ts): a spot
 * interruption (or an AWS Health scheduled change) of a node with pods gets a replacement NodeClaim
 * initialized before the instance is reclaimed (or retired) when the interruption function
 * launched one; when it launched none (the pods fit on existing capacity, or the cluster Lease was
 * held and the provisioner's next run launches for them), no pod of the node's controllers whose
 * creationTimestamp is at or before the first check that found the node empty (no pod left on it,
 * terminating or not) is pending when the instance goes: those are its pods' replacements. One
 * created later replaces a pod another node's drain evicted and is that node's to answer for; when
 * the node never emptied (a drain held up), every pending pod of its controllers counts. Except
 * while a waiver holds: an EC2 capacity outage (the soak's and the scenarios' `unavailable`
 * steps). A crashed invocation is not waived: the queue gives its record back after the
 * visibility timeout, within the notice.
 */
export class InterruptionInvariant {
  /** Nodes an interruption tainted, where the do-not-disrupt guarantee does not apply. */
  readonly interruptedNodes = new Set<string>();
  /** Interruptions whose guarantee held (or whose node had no pods). */
  survived = 0;
  /** NodeClaims the interruption function created, and when. */
  private readonly interruptionLaunches: { nodeClaim: string; interrupted: string }[] = [];
  /** Interruptions whose window overlaps a capacity outage are not held to the guarantee. */
  private readonly waivers: { from: number; until: number }[] = [];
  /**
   * When each NodeClaim became Initialized (its condition's lastTransitionTime), kept after the
   * NodeClaim is gone: a replacement that was ready before the reclaim met the guarantee even when
   * it was itself interrupted and deleted before the reclaim came.
   */
  private readonly initializedAt = new Map<string, number>();
  private readonly watches: InterruptionWatch[] = [];

  constructor(
    private readonly world: ClusterWorld,
    private readonly kubelet: KubeletStandIn,
    private readonly violate: (key: string, message: string) => void,
  ) {}

  /**
   * Starts watching a spot interruption, or another notice of an instance's end (`cause`): a
   * replacement must be initialized before `reclaimAt`.
   */
  expect(instanceId: string, reclaimAt: number, cause = 'spot interruption'): void {
    const node = this.kubelet.nodeOf(instanceId);
    const pods = node === undefined ? [] : podsOn(node, this.world.fakes.kube.store.list('pods').items);
    const hadPods = pods.length > 0;
    if (node) this.interruptedNodes.add(node);
    const claim = this.world.fakes.ec2
      .instance(instanceId)
      ?.Tags?.find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value;
    this.watches.push({
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
  noteLaunch(nodeClaim: string, interrupted: string): void {
    this.interruptionLaunches.push({ nodeClaim, interrupted });
  }

  /**
   * From now until `until`, spot interruptions are not held to the replace-before-reclaim
   * guarantee (they still count as not survived): EC2 is refusing capacity.
   */
  waiveUntil(until: number): void {
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

  /** Checks the watches whose instance went by now; `claims` are the NodeClaims as they are now. */
  check(claims: Json[]): void {
    this.noteInitialized(claims);
    const now = this.world.time.now();
    let pods: KubeObject[] | undefined;
    for (const watch of this.watches) {
      if (watch.checked) continue;
      if (watch.node !== undefined && watch.emptiedAt === undefined) {
        pods ??= this.world.fakes.kube.store.list('pods').items;
        if (podsOn(watch.node, pods).length === 0) watch.emptiedAt = now;
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
}

/** The pods on `node` that need somewhere to go: not DaemonSet or static pods, not finished. */
export function podsOn(node: string, pods: readonly KubeObject[]): KubeObject[] {
  return pods.filter(
    (p) =>
      (p.spec as Json)?.nodeName === node &&
      !((p.metadata.ownerReferences ?? []) as Json[]).some(
        (o) => o.kind === 'DaemonSet' || o.kind === 'Node',
      ) &&
      !['Succeeded', 'Failed'].includes((p.status as Json)?.phase),
  );
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
