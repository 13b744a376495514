import { type LabelSelector, labelSelectorMatches } from '../model/label-selector';
import { LABEL_HOSTNAME } from '../model/labels';
import type { Pod, PodAffinityTerm, TopologySpreadConstraint } from '../model/pod';

/**
 * Topology bookkeeping for topology spread and pod (anti-)affinity: how many pods matching a
 * selector sit in each domain (zone, hostname, any node label), and which domains hold pods
 * whose required anti-affinity would repel a newcomer. Counts cover existing pods and every
 * placement the scheduler makes, so later decisions see earlier ones.
 */

/** Pods matching `selector` in `namespaces`, counted per domain of `topologyKey`. */
export class DomainCounter {
  readonly counts = new Map<string, number>();
  total = 0;

  constructor(
    readonly topologyKey: string,
    readonly selector: LabelSelector,
    /** undefined = every namespace. */
    readonly namespaces: ReadonlySet<string> | undefined,
  ) {}

  matches(pod: Pick<Pod, 'namespace' | 'labels'>): boolean {
    if (this.namespaces && !this.namespaces.has(pod.namespace)) return false;
    return labelSelectorMatches(this.selector, pod.labels);
  }

  count(domain: string): number {
    return this.counts.get(domain) ?? 0;
  }

  add(domain: string, n: number): void {
    this.counts.set(domain, this.count(domain) + n);
    this.total += n;
  }
}

/** A topology spread constraint of a pod group, bound to its counter. */
export interface SpreadRule {
  readonly counter: DomainCounter;
  readonly maxSkew: number;
  readonly minDomains: number;
  /** Whether the group's own pods count in the counter (they usually do). */
  readonly selfMatch: boolean;
  /** ScheduleAnyway constraints are tried as required first and relaxed when they cannot be met. */
  readonly preferred: boolean;
  readonly constraint: TopologySpreadConstraint;
}

/** A pod (anti-)affinity term of a pod group, bound to its counter. */
export interface AffinityRule {
  readonly counter: DomainCounter;
  readonly selfMatch: boolean;
  readonly preferred: boolean;
  readonly term: PodAffinityTerm;
}

/** Every topology rule that applies to one pod group, and every counter its pods feed. */
export interface GroupTopology {
  readonly spreads: readonly SpreadRule[];
  readonly affinities: readonly AffinityRule[];
  readonly antiAffinities: readonly AffinityRule[];
  /** Anti-affinity counters of other pods whose selector matches this group: domains they own repel it. */
  readonly repelledBy: readonly DomainCounter[];
  /** Counters whose selector matches this group's pods: placing one increments them. */
  readonly feeds: readonly DomainCounter[];
  /** Anti-affinity owner counters this group's pods carry: placing one increments them. */
  readonly owns: readonly DomainCounter[];
}

function termNamespaces(term: PodAffinityTerm, podNamespace: string): ReadonlySet<string> | undefined {
  // A namespaceSelector would need namespace labels, which a plan does not have: an empty or
  // present selector is treated as "all namespaces" (documented limitation).
  if (term.namespaceSelector !== undefined) return undefined;
  return new Set(term.namespaces && term.namespaces.length > 0 ? term.namespaces : [podNamespace]);
}

function spreadSelector(c: TopologySpreadConstraint, pod: Pod): LabelSelector {
  const base = c.labelSelector ?? {};
  if (!c.matchLabelKeys || c.matchLabelKeys.length === 0) return base;
  const extra = c.matchLabelKeys
    .filter((k) => Object.hasOwn(pod.labels, k))
    .map((k) => ({ key: k, operator: 'In' as const, values: [pod.labels[k]] }));
  return { ...base, matchExpressions: [...(base.matchExpressions ?? []), ...extra] };
}

/** Registry of counters, shared by identical constraints across groups. */
export class TopologyRegistry {
  private readonly counters = new Map<string, DomainCounter>();
  private readonly antiOwners = new Map<string, DomainCounter>();

  private counter(
    map: Map<string, DomainCounter>,
    topologyKey: string,
    selector: LabelSelector,
    namespaces: ReadonlySet<string> | undefined,
  ): DomainCounter {
    const key = JSON.stringify([topologyKey, selector, namespaces ? [...namespaces].sort() : null]);
    let c = map.get(key);
    if (!c) {
      c = new DomainCounter(topologyKey, selector, namespaces);
      map.set(key, c);
    }
    return c;
  }

  /** Registers the rules of a group's representative pod. Call for every group before `bind`. */
  rulesOf(pod: Pod): Omit<GroupTopology, 'repelledBy' | 'feeds'> {
    const spreads: SpreadRule[] = pod.topologySpread.map((c) => {
      const counter = this.counter(
        this.counters,
        c.topologyKey,
        spreadSelector(c, pod),
        new Set([pod.namespace]),
      );
      return {
        counter,
        maxSkew: c.maxSkew,
        minDomains: c.minDomains ?? 1,
        selfMatch: counter.matches(pod),
        preferred: c.whenUnsatisfiable === 'ScheduleAnyway',
        constraint: c,
      };
    });
    const affinity = (
      term: PodAffinityTerm,
      preferred: boolean,
      map: Map<string, DomainCounter>,
    ): AffinityRule => {
      const counter = this.counter(
        map,
        term.topologyKey,
        term.labelSelector ?? { matchExpressions: [{ key: '', operator: 'In', values: [] }] },
        termNamespaces(term, pod.namespace),
      );
      return { counter, selfMatch: counter.matches(pod), preferred, term };
    };
    const affinities = [
      ...pod.podAffinity.map((t) => affinity(t, false, this.counters)),
      ...pod.preferredPodAffinity.map((t) => affinity(t.podAffinityTerm, true, this.counters)),
    ];
    const antiAffinities = [
      ...pod.podAntiAffinity.map((t) => affinity(t, false, this.counters)),
      ...pod.preferredPodAntiAffinity.map((t) => affinity(t.podAffinityTerm, true, this.counters)),
    ];
    // Required anti-affinity is symmetric: a pod carrying it repels matching newcomers.
    const owns = pod.podAntiAffinity.map((t) =>
      this.counter(this.antiOwners, t.topologyKey, t.labelSelector ?? {}, termNamespaces(t, pod.namespace)),
    );
    return { spreads, affinities, antiAffinities, owns };
  }

  /** Completes a group's topology once every group's rules are registered. */
  bind(pod: Pod, rules: Omit<GroupTopology, 'repelledBy' | 'feeds'>): GroupTopology {
    const feeds = [...this.counters.values()].filter((c) => c.matches(pod));
    const repelledBy = [...this.antiOwners.values()].filter((c) => c.matches(pod));
    return { ...rules, feeds, repelledBy };
  }

  /** Whether some counter counts the pod (it would feed a group's topology: {@link bind}'s `feeds`). */
  counts(pod: Pod): boolean {
    for (const c of this.counters.values()) if (c.matches(pod)) return true;
    return false;
  }

  /** Records a pod that already runs somewhere (existing capacity). */
  recordExisting(pod: Pod, domainOf: (topologyKey: string) => string | undefined): void {
    for (const c of this.counters.values()) {
      if (!c.matches(pod)) continue;
      const d = domainOf(c.topologyKey);
      if (d !== undefined) c.add(d, 1);
    }
    for (const term of pod.podAntiAffinity) {
      const owner = this.counter(
        this.antiOwners,
        term.topologyKey,
        term.labelSelector ?? {},
        termNamespaces(term, pod.namespace),
      );
      const d = domainOf(term.topologyKey);
      if (d !== undefined) owner.add(d, 1);
    }
  }

  /** Keys (other than hostname) for which any counter exists: placements must pin them. */
  topologyKeys(): Set<string> {
    const keys = new Set<string>();
    for (const c of [...this.counters.values(), ...this.antiOwners.values()]) {
      if (c.topologyKey !== LABEL_HOSTNAME) keys.add(c.topologyKey);
    }
    return keys;
  }
}

/** Records `n` pods of a group placed in the given domains. */
export function recordPlacement(
  topology: GroupTopology,
  n: number,
  domainOf: (topologyKey: string) => string | undefined,
): void {
  for (const c of topology.feeds) {
    const d = domainOf(c.topologyKey);
    if (d !== undefined) c.add(d, n);
  }
  for (const c of topology.owns) {
    const d = domainOf(c.topologyKey);
    if (d !== undefined) c.add(d, n);
  }
}

/** Whether pods of the group take part in topology at all: then a node holding them may not be split. */
export function isTopologyBound(t: GroupTopology): boolean {
  return (
    t.spreads.length +
      t.affinities.length +
      t.antiAffinities.length +
      t.feeds.length +
      t.repelledBy.length +
      t.owns.length >
    0
  );
}
