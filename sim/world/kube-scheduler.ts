import { parseQuantity, parseQuantityMilli } from '../../shared/core/model/quantity';
import type { Clock } from '../../shared/core/ports/time';
import type { KubeObject } from '../fakes/kube';
import type { KubeStore } from '../fakes/kube/store';
import { expressionHolds, type NodeInclusion, PodTopology } from './kube-scheduler-topology';

/**
 * A stand-in for kube-scheduler: binds pending pods to nodes where they fit and marks the rest
 * PodScheduled=False, reason Unschedulable, as kube-scheduler does. Its fit check is its own —
 * requests against allocatable minus what bound pods request, the pod count, nodeSelector,
 * required node affinity, taints against tolerations, cordons, required inter-pod affinity and
 * anti-affinity, topology spread constraints that say DoNotSchedule — and deliberately shares nothing
 * with podlift's scheduler in shared/core/scheduling, so a plan the core gets wrong shows up as
 * pods that stay pending in the world.
 *
 * Matched against kubernetes/kubernetes pkg/scheduler/framework/plugins: noderesources/fit.go
 * (`computePodResourceRequest`: max(sum of containers, each init container) + overhead),
 * nodeaffinity/node_affinity.go, tainttoleration/taint_toleration.go (NoSchedule and NoExecute
 * must be tolerated), nodeunschedulable/node_unschedulable.go, interpodaffinity/filtering.go and
 * podtopologyspread/filtering.go (see kube-scheduler-topology.ts). Scoring is two of the default
 * profile's score plugins, weighted as it weighs them: NodeResourcesFit's LeastAllocated, and
 * TaintToleration, which steers a pod off nodes with PreferNoSchedule taints it does not tolerate
 * when another node fits (see {@link mostPreferred}).
 */
export class KubeSchedulerStandIn {
  private downUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: KubeStore,
    private readonly clock: Clock,
  ) {}

  /**
   * kube-scheduler is down until `until` (a control-plane upgrade, a leader election that does
   * not settle): nothing is bound and no condition is written. Pods it marked Unschedulable before
   * keep that condition, so Karpenter still counts them as pending (pkg/utils/pod/scheduling.go
   * `IsProvisionable` needs it); pods created meanwhile have none, so Karpenter does not.
   */
  down(until: number): void {
    this.downUntil = until;
  }

  /** Whether kube-scheduler is down now. */
  get isDown(): boolean {
    return this.clock.now() < this.downUntil;
  }

  /**
   * One scheduling pass over every pending pod, oldest first. Returns the pods bound, as
   * `namespace/name → node`; none while kube-scheduler is down.
   */
  schedule(): Map<string, string> {
    if (this.isDown) return new Map();
    // Every Node is in kube-scheduler's snapshot, one being deleted too: its pods still count for
    // inter-pod affinity and topology spread, though the stand-in binds nothing to it.
    const allNodes = this.store.list('nodes').items;
    const nodes = allNodes.filter((n) => !n.metadata.deletionTimestamp);
    const nodesByName = new Map(allNodes.map((n) => [n.metadata.name ?? '', n]));
    const pods = this.store.list('pods').items;
    const used = new Map<string, Usage>(nodes.map((n) => [n.metadata.name ?? '', emptyUsage()]));
    const topology = new PodTopology(this.namespaceLabels());
    for (const pod of pods) {
      const nodeName = spec(pod).nodeName as string | undefined;
      if (!nodeName || isFinished(pod)) continue;
      const usage = used.get(nodeName);
      if (usage) addUsage(usage, podRequests(pod));
      const node = nodesByName.get(nodeName);
      if (node) topology.place(pod, node);
    }
    const bound = new Map<string, string>();
    const pending = pods
      .filter((p) => !spec(p).nodeName && !p.metadata.deletionTimestamp && !isFinished(p))
      .filter((p) => (spec(p).schedulerName ?? 'default-scheduler') === 'default-scheduler')
      .sort((a, b) =>
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
      );
    for (const pod of pending) {
      const requests = podRequests(pod);
      const reasons = new Map<string, number>();
      const topologyUnfit = topology.filterFor(pod, inclusionOf(pod), allNodes);
      const feasible: Feasible[] = [];
      for (const node of nodes) {
        const usage = used.get(node.metadata.name ?? '') ?? emptyUsage();
        const why = unfit(pod, requests, node, usage) ?? topologyUnfit(node);
        if (why) {
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
          continue;
        }
        const intolerableTaints = intolerablePreferNoScheduleTaints(pod, node);
        feasible.push({ node, intolerableTaints, ...leastAllocated(node, usage, requests) });
      }
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      const best = mostPreferred(feasible)?.node;
      if (best) {
        const nodeName = best.metadata.name ?? '';
        this.bind(pod, nodeName);
        addUsage(used.get(nodeName) ?? emptyUsage(), requests);
        topology.place(pod, best);
        bound.set(key, nodeName);
      } else this.markUnschedulable(pod, nodes.length, reasons);
    }
    return bound;
  }

  /** A namespace's labels for namespaceSelectors, with the `kubernetes.io/metadata.name` the API server sets. */
  private namespaceLabels(): (namespace: string) => Record<string, string> {
    const labels = new Map(
      this.store.list('namespaces').items.map((ns) => [ns.metadata.name ?? '', ns.metadata.labels ?? {}]),
    );
    return (namespace) => ({ ...labels.get(namespace), 'kubernetes.io/metadata.name': namespace });
  }

  private bind(pod: KubeObject, nodeName: string): void {
    const current = this.store.get('pods', pod.metadata.name ?? '', pod.metadata.namespace);
    const updated = this.store.update('pods', { ...current, spec: { ...spec(current), nodeName } });
    const conditions = withCondition(updated, { type: 'PodScheduled', status: 'True' });
    this.store.updateStatus('pods', { ...updated, status: { ...status(updated), conditions } });
  }

  private markUnschedulable(pod: KubeObject, nodeCount: number, reasons: Map<string, number>): void {
    const details = [...reasons].map(([why, count]) => `${count} ${why}`).sort();
    const message = `0/${nodeCount} nodes are available: ${details.length > 0 ? details.join(', ') : 'no nodes'}.`;
    const existing = conditionsOf(pod).find((c) => c.type === 'PodScheduled');
    // kube-scheduler writes the condition only when it changes (util.PatchPodStatus after
    // podutil.UpdatePodCondition reports a change), so a pod waiting for capacity is not rewritten.
    if (existing?.status === 'False' && existing.reason === 'Unschedulable') return;
    const conditions = withCondition(pod, {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
    });
    this.store.updateStatus('pods', { ...pod, status: { ...status(pod), conditions } });
  }
}

/** Resource amounts in milli-units (cpu) or units (everything else). */
type Usage = Map<string, number>;

const emptyUsage = (): Usage => new Map([['pods', 0]]);

function addUsage(usage: Usage, requests: Usage): void {
  for (const [resource, value] of requests) usage.set(resource, (usage.get(resource) ?? 0) + value);
}

// biome-ignore lint/suspicious/noExplicitAny: the stand-in reads the API server's untyped JSON
type Json = Record<string, any>;
const spec = (o: KubeObject): Json => (o.spec ?? {}) as Json;
const status = (o: KubeObject): Json => (o.status ?? {}) as Json;
const conditionsOf = (o: KubeObject): Json[] => (status(o).conditions ?? []) as Json[];
const isFinished = (pod: KubeObject) => ['Succeeded', 'Failed'].includes(status(pod).phase);

function withCondition(o: KubeObject, condition: Json): Json[] {
  return [...conditionsOf(o).filter((c) => c.type !== condition.type), condition];
}

/** A quantity as a number: milli-units for cpu, units otherwise. */
export function quantityValue(resource: string, text: string | number): number {
  return resource === 'cpu' ? Number(parseQuantityMilli(String(text))) : Number(parseQuantity(String(text)));
}

function sumRequests(containers: readonly Json[]): Usage {
  const total: Usage = new Map();
  for (const c of containers)
    for (const [resource, q] of Object.entries((c.resources?.requests ?? {}) as Json))
      total.set(resource, (total.get(resource) ?? 0) + quantityValue(resource, q));
  return total;
}

/** What a pod asks of a node: max(sum of containers, each init container) + overhead, and one pod slot. */
export function podRequests(pod: KubeObject): Usage {
  const requests = sumRequests(spec(pod).containers ?? []);
  for (const init of (spec(pod).initContainers ?? []) as Json[])
    for (const [resource, value] of sumRequests([init]))
      requests.set(resource, Math.max(requests.get(resource) ?? 0, value));
  for (const [resource, q] of Object.entries((spec(pod).overhead ?? {}) as Json))
    requests.set(resource, (requests.get(resource) ?? 0) + quantityValue(resource, q));
  requests.set('pods', 1);
  return requests;
}

/** A node's allocatable as numbers. */
export function allocatableOf(node: KubeObject): Usage {
  const out: Usage = new Map();
  for (const [resource, q] of Object.entries((status(node).allocatable ?? {}) as Json))
    out.set(resource, quantityValue(resource, q));
  return out;
}

/** Why `pod` cannot go on `node` (kube-scheduler's reason wording), or undefined when it fits. */
function unfit(pod: KubeObject, requests: Usage, node: KubeObject, usage: Usage): string | undefined {
  const tolerations = (spec(pod).tolerations ?? []) as Json[];
  if (spec(node).unschedulable && !tolerations.some((t) => tolerates(t, UNSCHEDULABLE_TAINT)))
    return 'node(s) were unschedulable';
  if (!matchesNodeAffinity(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  const untolerated = untoleratedTaint(pod, node);
  if (untolerated) return `node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`;
  const allocatable = allocatableOf(node);
  for (const [resource, value] of requests) {
    if (value === 0) continue;
    if ((usage.get(resource) ?? 0) + value > (allocatable.get(resource) ?? 0))
      return resource === 'pods' ? 'Too many pods' : `Insufficient ${resource}`;
  }
  return undefined;
}

/** nodeSelector and required node affinity (nodeaffinity/node_affinity.go). */
function matchesNodeAffinity(pod: KubeObject, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  const selector = (spec(pod).nodeSelector ?? {}) as Record<string, string>;
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) return false;
  const terms = (spec(pod).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms ?? []) as Json[];
  return terms.length === 0 || terms.some((term) => termMatches(term, labels));
}

/** The first NoSchedule or NoExecute taint of `node` that `pod` does not tolerate. */
function untoleratedTaint(pod: KubeObject, node: KubeObject): Json | undefined {
  const tolerations = (spec(pod).tolerations ?? []) as Json[];
  const taints = ((spec(node).taints ?? []) as Json[]).filter((t) => t.effect !== 'PreferNoSchedule');
  return taints.find((taint) => !tolerations.some((t) => tolerates(t, taint)));
}

/** The NodeInclusionPolicies of a pod's topology spread constraints, in the stand-in's own checks. */
function inclusionOf(pod: KubeObject): NodeInclusion {
  return {
    matchesNodeAffinity: (node) => matchesNodeAffinity(pod, node),
    toleratesTaints: (node) => untoleratedTaint(pod, node) === undefined,
  };
}

const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** v1 toleration semantics (k8s.io/api core/v1 toleration.go `ToleratesTaint`). */
function tolerates(toleration: Json, taint: Json): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key === undefined || toleration.key === '') return toleration.operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** A nodeSelectorTerm: every matchExpression holds (component-helpers nodeaffinity). */
function termMatches(term: Json, labels: Record<string, string>): boolean {
  const expressions = (term.matchExpressions ?? []) as Json[];
  if (expressions.length === 0 && (term.matchFields ?? []).length === 0) return false;
  return expressions.every((e) => {
    if (e.operator !== 'Gt' && e.operator !== 'Lt') return expressionHolds(e, labels);
    // Node selectors also compare numbers (Gt, Lt); label selectors do not.
    const value = labels[e.key];
    const bound = Number(((e.values ?? []) as string[])[0]);
    if (value === undefined) return false;
    return e.operator === 'Gt' ? Number(value) > bound : Number(value) < bound;
  });
}

/** A node that passes every filter for the pod, with what its scores are made of. */
interface Feasible {
  readonly node: KubeObject;
  /** LeastAllocated as an exact fraction in [0, 1]: the stand-in's ranking and tie-breaker. */
  readonly fraction: number;
  /** NodeResourcesFit's LeastAllocated score, an integer 0..100. */
  readonly fitScore: number;
  /** TaintToleration's raw score: PreferNoSchedule taints the pod does not tolerate. */
  readonly intolerableTaints: number;
}

/** framework.MaxNodeScore. */
const MAX_NODE_SCORE = 100;
/** The default profile's score plugin weights (pkg/scheduler/apis/config/v1/default_plugins.go `getDefaultPlugins`). */
const TAINT_TOLERATION_WEIGHT = 3;
const NODE_RESOURCES_FIT_WEIGHT = 1;

/**
 * The feasible node the default profile's TaintToleration and NodeResourcesFit scores put first.
 * TaintToleration normalizes its counts with helper.DefaultNormalizeScore(MaxNodeScore, reverse)
 * (tainttoleration/taint_toleration.go `NormalizeScore`): 100 on every node when none has an
 * intolerable PreferNoSchedule taint, else 100 − 100 × count / the largest count, in integer
 * division; the total is 3 × that + 1 × LeastAllocated.
 *
 * While the TaintToleration score is the same on every feasible node — always so when none has a
 * PreferNoSchedule taint the pod does not tolerate — it adds the same to every total, and the
 * stand-in ranks by the exact LeastAllocated fraction as it did before it scored taints: the
 * integer score would turn near-ties into ties and move pods. Otherwise it ranks by the weighted
 * integer total, ties to the higher fraction. kube-scheduler breaks the ties left at random
 * (schedule_one.go `selectHost`); the stand-in takes the first node, so runs replay.
 */
function mostPreferred(feasible: readonly Feasible[]): Feasible | undefined {
  const maxCount = feasible.reduce((max, f) => Math.max(max, f.intolerableTaints), 0);
  const scored = feasible.map((f) => {
    const taintScore =
      maxCount === 0
        ? MAX_NODE_SCORE
        : MAX_NODE_SCORE - Math.trunc((MAX_NODE_SCORE * f.intolerableTaints) / maxCount);
    return {
      ...f,
      taintScore,
      total: TAINT_TOLERATION_WEIGHT * taintScore + NODE_RESOURCES_FIT_WEIGHT * f.fitScore,
    };
  });
  const taintDecides = scored.some((f) => f.taintScore !== scored[0]?.taintScore);
  type Scored = (typeof scored)[number];
  const ahead = (f: Scored, of: Scored) =>
    taintDecides && f.total !== of.total ? f.total > of.total : f.fraction > of.fraction;
  let best: Scored | undefined;
  for (const f of scored) if (!best || ahead(f, best)) best = f;
  return best;
}

/**
 * The node's PreferNoSchedule taints the pod does not tolerate (tainttoleration/taint_toleration.go
 * `countIntolerableTaintsPreferNoSchedule`, over the tolerations `getAllTolerationPreferNoSchedule`
 * keeps: those with no effect or PreferNoSchedule).
 */
function intolerablePreferNoScheduleTaints(pod: KubeObject, node: KubeObject): number {
  const tolerations = ((spec(pod).tolerations ?? []) as Json[]).filter(
    (t) => !t.effect || t.effect === 'PreferNoSchedule',
  );
  const taints = ((spec(node).taints ?? []) as Json[]).filter((t) => t.effect === 'PreferNoSchedule');
  return taints.filter((taint) => !tolerations.some((t) => tolerates(t, taint))).length;
}

/**
 * LeastAllocated after placing the pod, two ways. `fraction` is the mean free fraction of cpu and
 * memory, the stand-in's own. `fitScore` is NodeResourcesFit's (noderesources/least_allocated.go
 * `leastResourceScorer`, `leastRequestedScore`): per resource (allocatable − requested) × 100 /
 * allocatable in integer division, 0 when over, averaged over cpu and memory at weight 1 each in
 * integer division; a resource with no allocatable is left out.
 */
function leastAllocated(
  node: KubeObject,
  usage: Usage,
  requests: Usage,
): { fraction: number; fitScore: number } {
  const allocatable = allocatableOf(node);
  let freeFractions = 0;
  let score = 0;
  let weights = 0;
  for (const resource of ['cpu', 'memory']) {
    const total = allocatable.get(resource) ?? 0;
    if (total <= 0) continue;
    const requested = (usage.get(resource) ?? 0) + (requests.get(resource) ?? 0);
    freeFractions += (total - requested) / total;
    score += requested > total ? 0 : Math.trunc(((total - requested) * MAX_NODE_SCORE) / total);
    weights += 1;
  }
  return { fraction: freeFractions / 2, fitScore: weights === 0 ? 0 : Math.trunc(score / weights) };
}
