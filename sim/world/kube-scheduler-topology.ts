import type { KubeObject } from '../fakes/kube';

// biome-ignore lint/suspicious/noExplicitAny: the stand-in reads the API server's untyped JSON
type Json = Record<string, any>;
type Labels = Record<string, string>;

/** kube-scheduler's reasons (kubernetes pkg/scheduler/framework/plugins, v1.35). */
export const AFFINITY_REASON = "node(s) didn't match pod affinity rules";
export const ANTI_AFFINITY_REASON = "node(s) didn't match pod anti-affinity rules";
export const EXISTING_ANTI_AFFINITY_REASON = "node(s) didn't satisfy existing pods anti-affinity rules";
export const SPREAD_REASON = "node(s) didn't match pod topology spread constraints";
export const SPREAD_LABEL_REASON = `${SPREAD_REASON} (missing required label)`;

/** A pod kube-scheduler's cache holds on a Node: the pod and its node's labels. */
interface PlacedPod {
  readonly pod: KubeObject;
  readonly nodeName: string;
  readonly nodeLabels: Labels;
}

/** What the NodeInclusionPolicies of a spread constraint ask of a node, supplied by the stand-in. */
export interface NodeInclusion {
  /** The node matches the pod's nodeSelector and required node affinity. */
  matchesNodeAffinity(node: KubeObject): boolean;
  /** Every NoSchedule/NoExecute taint of the node is tolerated by the pod. */
  toleratesTaints(node: KubeObject): boolean;
}

/** Filters a node for one pending pod: the reason it is refused, or undefined. */
export type TopologyFilter = (node: KubeObject) => string | undefined;

const spec = (o: KubeObject): Json => (o.spec ?? {}) as Json;
const labelsOf = (o: KubeObject): Labels => (o.metadata.labels ?? {}) as Labels;

/**
 * The inter-pod affinity and topology spread filters of kube-scheduler over the pods placed so far
 * (bound before the pass, and bound earlier in it through `place`). Counts are taken per pending
 * pod, as each plugin's PreFilter does, then each node is filtered against them.
 */
export class PodTopology {
  private readonly placed: PlacedPod[] = [];
  /** The placed pods with required anti-affinity, which every pending pod is checked against. */
  private readonly placedWithAntiAffinity: PlacedPod[] = [];

  /**
   * @param namespaceLabels a namespace's labels (with `kubernetes.io/metadata.name`, which the API
   *   server sets on every namespace), for namespaceSelectors
   */
  constructor(private readonly namespaceLabels: (namespace: string) => Labels) {}

  /** Counts `pod` as running on `node` from now on. */
  place(pod: KubeObject, node: KubeObject): void {
    const placed = { pod, nodeName: node.metadata.name ?? '', nodeLabels: labelsOf(node) };
    this.placed.push(placed);
    if (requiredTerms(spec(pod).affinity?.podAntiAffinity).length > 0)
      this.placedWithAntiAffinity.push(placed);
  }

  /** The filter for `pod`, built once per pod (PreFilter), applied per node (Filter). */
  filterFor(pod: KubeObject, inclusion: NodeInclusion, allNodes: readonly KubeObject[]): TopologyFilter {
    const spread = this.spreadFilter(pod, inclusion, allNodes);
    const interPod = this.interPodFilter(pod);
    return (node) => spread(node) ?? interPod(node);
  }

  /**
   * kubernetes pkg/scheduler/framework/plugins/interpodaffinity/filtering.go: `PreFilter` counts
   * topology pairs (`getExistingAntiAffinityCounts`, `getIncomingAffinityAntiAffinityCounts`),
   * `Filter` checks `satisfyPodAffinity`, `satisfyPodAntiAffinity`, `satisfyExistingPodsAntiAffinity`
   * in that order. Terminating pods count: the plugin does not skip them.
   */
  private interPodFilter(pod: KubeObject): TopologyFilter {
    const affinityTerms = requiredTerms(spec(pod).affinity?.podAffinity);
    const antiAffinityTerms = requiredTerms(spec(pod).affinity?.podAntiAffinity);
    const ownNamespaceLabels = this.namespaceLabels(pod.metadata.namespace ?? 'default');
    const affinityCounts = new Map<string, number>();
    const antiAffinityCounts = new Map<string, number>();
    const existingAntiAffinityCounts = new Map<string, number>();
    // getExistingAntiAffinityCounts: an existing pod's anti-affinity term that matches the incoming pod.
    for (const { pod: existing, nodeLabels } of this.placedWithAntiAffinity)
      for (const term of requiredTerms(spec(existing).affinity?.podAntiAffinity))
        if (termMatches(term, existing, pod, ownNamespaceLabels))
          count(existingAntiAffinityCounts, term.topologyKey, nodeLabels);
    const incoming = affinityTerms.length > 0 || antiAffinityTerms.length > 0;
    for (const { pod: existing, nodeLabels } of incoming ? this.placed : []) {
      const existingNamespaceLabels = this.namespaceLabels(existing.metadata.namespace ?? 'default');
      // updateWithAffinityTerms: only an existing pod matching ALL affinity terms counts, for each term.
      if (
        affinityTerms.length > 0 &&
        affinityTerms.every((t) => termMatches(t, pod, existing, existingNamespaceLabels))
      )
        for (const term of affinityTerms) count(affinityCounts, term.topologyKey, nodeLabels);
      // updateWithAntiAffinityTerms: each anti-affinity term the existing pod matches counts.
      for (const term of antiAffinityTerms)
        if (termMatches(term, pod, existing, existingNamespaceLabels))
          count(antiAffinityCounts, term.topologyKey, nodeLabels);
    }
    // satisfyPodAffinity: "the first pod in a series that have affinity to themselves" may go
    // anywhere that has the topology keys, when no pod in the cluster matches and it matches itself.
    const firstOfGroup =
      affinityCounts.size === 0 && affinityTerms.every((t) => termMatches(t, pod, pod, ownNamespaceLabels));
    return (node) => {
      const labels = labelsOf(node);
      if (affinityTerms.length > 0) {
        if (affinityTerms.some((t) => labels[t.topologyKey] === undefined)) return AFFINITY_REASON;
        const podsExist = affinityTerms.every(
          (t) => (affinityCounts.get(pair(t.topologyKey, labels)) ?? 0) > 0,
        );
        if (!podsExist && !firstOfGroup) return AFFINITY_REASON;
      }
      if (
        antiAffinityTerms.some(
          (t) =>
            labels[t.topologyKey] !== undefined &&
            (antiAffinityCounts.get(pair(t.topologyKey, labels)) ?? 0) > 0,
        )
      )
        return ANTI_AFFINITY_REASON;
      if (Object.keys(labels).some((key) => (existingAntiAffinityCounts.get(pair(key, labels)) ?? 0) > 0))
        return EXISTING_ANTI_AFFINITY_REASON;
      return undefined;
    };
  }

  /**
   * kubernetes pkg/scheduler/framework/plugins/podtopologyspread/filtering.go: `calPreFilterState`
   * counts, per DoNotSchedule constraint, the matching pods of the pod's namespace that are not
   * terminating (common.go `countPodsMatchSelector`) on every node that has all the constraints'
   * topology keys and passes the constraint's NodeInclusionPolicies (nodeAffinityPolicy Honor and
   * nodeTaintsPolicy Ignore by default); `Filter` refuses a node where matchNum + self − minMatchNum
   * exceeds maxSkew, minMatchNum being 0 while fewer than minDomains domains exist.
   */
  private spreadFilter(
    pod: KubeObject,
    inclusion: NodeInclusion,
    allNodes: readonly KubeObject[],
  ): TopologyFilter {
    const constraints = ((spec(pod).topologySpreadConstraints ?? []) as Json[])
      .filter((c) => c.whenUnsatisfiable === 'DoNotSchedule')
      .map((c) => spreadConstraint(c, labelsOf(pod)));
    if (constraints.length === 0) return () => undefined;
    const namespace = pod.metadata.namespace ?? 'default';
    const byNode = new Map<string, KubeObject[]>();
    for (const { pod: existing, nodeName } of this.placed) {
      if (existing.metadata.deletionTimestamp || (existing.metadata.namespace ?? 'default') !== namespace)
        continue;
      const onNode = byNode.get(nodeName);
      if (onNode) onNode.push(existing);
      else byNode.set(nodeName, [existing]);
    }
    const domains = constraints.map(() => new Map<string, number>());
    for (const node of allNodes) {
      const labels = labelsOf(node);
      if (constraints.some((c) => labels[c.topologyKey] === undefined)) continue;
      const pods = byNode.get(node.metadata.name ?? '') ?? [];
      constraints.forEach((c, i) => {
        if (c.nodeAffinityPolicy === 'Honor' && !inclusion.matchesNodeAffinity(node)) return;
        if (c.nodeTaintsPolicy === 'Honor' && !inclusion.toleratesTaints(node)) return;
        const matching = c.selector.empty ? 0 : pods.filter((p) => c.selector.matches(labelsOf(p))).length;
        const value = labels[c.topologyKey] ?? '';
        domains[i]?.set(value, (domains[i]?.get(value) ?? 0) + matching);
      });
    }
    return (node) => {
      const labels = labelsOf(node);
      for (const [i, c] of constraints.entries()) {
        const value = labels[c.topologyKey];
        if (value === undefined) return SPREAD_LABEL_REASON;
        const counts = domains[i] ?? new Map<string, number>();
        const minMatch = counts.size < c.minDomains ? 0 : Math.min(...counts.values());
        const self = c.selector.matches(labelsOf(pod)) ? 1 : 0;
        if ((counts.get(value) ?? 0) + self - minMatch > c.maxSkew) return SPREAD_REASON;
      }
      return undefined;
    };
  }
}

/** Counts one more matching pod in the topology domain of `nodeLabels`, if the node has the key. */
function count(counts: Map<string, number>, topologyKey: string, nodeLabels: Labels): void {
  if (nodeLabels[topologyKey] === undefined) return;
  const key = pair(topologyKey, nodeLabels);
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const pair = (topologyKey: string, labels: Labels) => `${topologyKey}=${labels[topologyKey]}`;

const requiredTerms = (affinity: Json | undefined): Json[] =>
  (affinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Json[];

/**
 * Whether `target` matches a PodAffinityTerm of `owner` (kubernetes pkg/scheduler/framework
 * types.go `AffinityTerm.Matches`): its namespace is listed, or matches the namespaceSelector, and
 * its labels match the labelSelector. No namespaces and no namespaceSelector mean the owner's own
 * namespace (`getNamespacesFromPodAffinityTerm`); an empty namespaceSelector means every namespace.
 */
function termMatches(
  term: Json,
  owner: KubeObject,
  target: KubeObject,
  targetNamespaceLabels: Labels,
): boolean {
  const namespace = target.metadata.namespace ?? 'default';
  const listed = (term.namespaces ?? []) as string[];
  const inNamespace =
    listed.length === 0 && term.namespaceSelector == null
      ? namespace === (owner.metadata.namespace ?? 'default')
      : listed.includes(namespace) ||
        (term.namespaceSelector != null &&
          labelSelector(term.namespaceSelector).matches(targetNamespaceLabels));
  return inNamespace && labelSelector(term.labelSelector).matches(labelsOf(target));
}

interface Selector {
  /** The selector has no requirements (`labels.Everything()`). */
  readonly empty: boolean;
  matches(labels: Labels): boolean;
}

/**
 * A metav1.LabelSelector as apimachinery's `LabelSelectorAsSelector` reads it: absent selects
 * nothing (and `extra` is not added to it, as podtopologyspread `mergeLabelSetWithSelector` leaves
 * `labels.Nothing()` alone), `{}` selects everything, otherwise every matchLabels entry and
 * matchExpression holds.
 */
function labelSelector(selector: Json | undefined | null, extra: Json[] = []): Selector {
  if (selector == null) return { empty: false, matches: () => false };
  const expressions = [
    ...Object.entries((selector?.matchLabels ?? {}) as Labels).map(([key, value]) => ({
      key,
      operator: 'In',
      values: [value],
    })),
    ...((selector?.matchExpressions ?? []) as Json[]),
    ...extra,
  ];
  return {
    empty: expressions.length === 0,
    matches: (labels) => expressions.every((e) => expressionHolds(e, labels)),
  };
}

/**
 * One requirement of a label or node selector with the set operators (apimachinery
 * labels/selector.go `Requirement.Matches`: In, NotIn, Exists, DoesNotExist); any other operator
 * matches nothing here.
 */
export function expressionHolds(expression: Json, labels: Labels): boolean {
  const value = labels[expression.key];
  const values = (expression.values ?? []) as string[];
  switch (expression.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return false;
  }
}

interface SpreadConstraint {
  readonly topologyKey: string;
  readonly maxSkew: number;
  readonly minDomains: number;
  readonly nodeAffinityPolicy: string;
  readonly nodeTaintsPolicy: string;
  readonly selector: Selector;
}

/**
 * One constraint with kube-scheduler's defaults (podtopologyspread/common.go
 * `filterTopologySpreadConstraints`): minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy
 * Ignore; matchLabelKeys add `key In (the pod's value)` for each key the pod carries.
 */
function spreadConstraint(c: Json, podLabels: Labels): SpreadConstraint {
  const matchLabelKeys = ((c.matchLabelKeys ?? []) as string[]).filter((key) => podLabels[key] !== undefined);
  const extra = matchLabelKeys.map((key) => ({ key, operator: 'In', values: [podLabels[key]] }));
  return {
    topologyKey: String(c.topologyKey),
    maxSkew: Number(c.maxSkew ?? 1),
    minDomains: Number(c.minDomains ?? 1),
    nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor',
    nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
    selector: labelSelector(c.labelSelector, extra),
  };
}
