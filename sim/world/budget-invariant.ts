import { budgetSelects, expectedPodsAnnotation } from '../fakes/kube/disruption';
import type { KubeObject } from '../fakes/kube/kube-object';

// biome-ignore lint/suspicious/noExplicitAny: the checker reads the API server's untyped JSON
type Json = Record<string, any>;

/** A pod's controller (its `ownerReferences` entry with `controller: true`). */
export interface ControllerRef {
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
}

/** How many healthy pods a budget needs, and from what. */
export interface BudgetNeed {
  /** `expectedCount`: the controllers' scale, or the selected pods for an integer minAvailable. */
  readonly expected: number;
  /** `desiredHealthy`; Infinity when the controller could not compute it (it then allows nothing). */
  readonly desired: number;
  /** The rule as written, for messages: `maxUnavailable 25% of 4`. */
  readonly rule: string;
}

/**
 * An int-or-percent scaled against `total` rounding up, as `intstr.GetScaledValueFromIntOrPercent(v,
 * total, true)`; undefined for a string that is not a percentage (the API's IntOrString decoding
 * turns `"3"` into a string, which the controller rejects: "invalid value for IntOrString").
 */
export function scaledUp(value: unknown, total: number): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const percent = typeof value === 'string' ? /^(\d+)%$/.exec(value) : null;
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : undefined;
}

/**
 * A budget's desiredHealthy over the pods it selects, as the disruption controller computes it
 * (kubernetes pkg/controller/disruption/disruption.go `getExpectedPodCount`): maxUnavailable
 * (int or %) gives `expected − scaled(maxUnavailable)`, at least 0; an integer minAvailable is
 * itself; a percentage minAvailable is `scaled(minAvailable)` — both percentages rounded up and
 * taken of `getExpectedScale`, the sum of the scales of the pods' distinct controllers (pods
 * without one are left out). `scaleOf` answers a controller's scale, undefined when no finder
 * knows it, which the controller treats as a sync error (`failSafe`: nothing allowed). The
 * simulator's `sim.podlift.dev/expected-pods` annotation, when set, stands in for that scale (the
 * fake API server reads it too). Neither field set: nothing is required.
 */
export function budgetNeed(
  budget: KubeObject,
  selected: readonly KubeObject[],
  scaleOf: (namespace: string, controller: ControllerRef) => number | undefined,
): BudgetNeed {
  const spec = (budget.spec ?? {}) as Json;
  const failSafe = (rule: string, expected: number): BudgetNeed => ({
    expected,
    desired: Number.POSITIVE_INFINITY,
    rule: `${rule} (the disruption controller cannot compute it, so it allows nothing)`,
  });
  const declared = budget.metadata.annotations?.[expectedPodsAnnotation];
  const expectedScale = (): number | undefined => {
    if (declared !== undefined && /^\d+$/.test(declared)) return Number(declared);
    const scales = new Map<string, number>();
    for (const pod of selected) {
      const ref = controllerOf(pod);
      if (!ref) continue;
      const key = ref.uid ?? `${ref.kind}/${ref.name}`;
      if (scales.has(key)) continue;
      const scale = scaleOf(pod.metadata.namespace ?? 'default', ref);
      if (scale === undefined) return undefined;
      scales.set(key, scale);
    }
    return [...scales.values()].reduce((a, b) => a + b, 0);
  };
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = expectedScale();
    const rule = `maxUnavailable ${spec.maxUnavailable}`;
    if (expected === undefined) return failSafe(rule, selected.length);
    const max = scaledUp(spec.maxUnavailable, expected);
    if (max === undefined) return failSafe(rule, expected);
    return { expected, desired: Math.max(0, expected - max), rule: `${rule} of ${expected}` };
  }
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    const rule = `minAvailable ${spec.minAvailable}`;
    if (typeof spec.minAvailable === 'number')
      return { expected: selected.length, desired: spec.minAvailable, rule };
    const expected = expectedScale();
    if (expected === undefined) return failSafe(rule, selected.length);
    const min = scaledUp(spec.minAvailable, expected);
    if (min === undefined) return failSafe(rule, expected);
    return { expected, desired: min, rule: `${rule} of ${expected}` };
  }
  return { expected: selected.length, desired: 0, rule: 'no minAvailable or maxUnavailable' };
}

/** Ready and not being deleted: what `countHealthyPods` counts. */
export function isHealthy(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const status = (pod.status ?? {}) as Json;
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return false;
  return ((status.conditions ?? []) as Json[]).some((c) => c.type === 'Ready' && c.status === 'True');
}

function controllerOf(pod: KubeObject): ControllerRef | undefined {
  return ((pod.metadata.ownerReferences ?? []) as Json[]).find((o) => o.controller) as
    | ControllerRef
    | undefined;
}

/** What happened since the previous check, as far as podlift's part in it goes. */
export interface BudgetCheckInput {
  readonly pods: readonly KubeObject[];
  readonly budgets: readonly KubeObject[];
  readonly nodes: readonly KubeObject[];
  /** `namespace/name` of every pod podlift evicted or deleted through the API since the last check. */
  readonly removedByPodlift: ReadonlySet<string>;
  /** Whether podlift terminated this instance (TerminateInstances: `Client.UserInitiatedShutdown`). */
  readonly terminatedByPodlift: (instanceId: string) => boolean;
  /** Nodes whose terminationGracePeriod ran out: their pods go regardless of budgets, by design. */
  readonly forcedNodes: ReadonlySet<string>;
  readonly scaleOf: (namespace: string, controller: ControllerRef) => number | undefined;
}

interface SeenPod {
  readonly key: string;
  readonly node: string | undefined;
  readonly instanceId: string | undefined;
}

/**
 * The PodDisruptionBudget guarantee: no voluntary disruption by podlift takes a budget's healthy
 * pods below its desiredHealthy ({@link budgetNeed}). Run after every step of the world, it
 * compares each budget's healthy pods with the ones healthy at the previous check; a pod that
 * stopped being healthy is podlift's doing when podlift evicted or deleted it through the API, or
 * terminated the instance under it. When some of a budget's losses are podlift's and the healthy
 * pods left — counting back the ones lost involuntarily in the same step (a spot reclaim, a
 * retirement, a crash) — are fewer than desiredHealthy, that is a violation: the eviction API
 * would have refused the disruption. Involuntary losses alone never are, nor are pods forced off
 * a node whose terminationGracePeriod ran out (Karpenter's documented exception).
 */
export class BudgetInvariant {
  private healthy = new Map<string, ReadonlyMap<string, SeenPod>>();

  /** Checks the step since the last call; returns the violations found, each naming the budget. */
  check(input: BudgetCheckInput): string[] {
    const violations: string[] = [];
    const instanceOfNode = new Map(
      input.nodes.map((n) => [
        n.metadata.name ?? '',
        /\/(i-[0-9a-f]+)$/.exec(String((n.spec as Json)?.providerID ?? ''))?.[1],
      ]),
    );
    const next = new Map<string, ReadonlyMap<string, SeenPod>>();
    for (const budget of input.budgets) {
      const key = `${budget.metadata.namespace}/${budget.metadata.name}`;
      const selected = input.pods.filter((p) => {
        const phase = (p.status as Json)?.phase;
        return budgetSelects(budget, p) && phase !== 'Succeeded' && phase !== 'Failed';
      });
      const now = new Map<string, SeenPod>();
      for (const pod of selected.filter(isHealthy)) {
        const node = (pod.spec as Json)?.nodeName as string | undefined;
        now.set(pod.metadata.uid ?? '', {
          key: `${pod.metadata.namespace}/${pod.metadata.name}`,
          node,
          instanceId: node ? instanceOfNode.get(node) : undefined,
        });
      }
      next.set(key, now);
      const before = this.healthy.get(key);
      if (!before) continue;
      const voluntary: string[] = [];
      let involuntary = 0;
      for (const [uid, seen] of before) {
        if (now.has(uid)) continue;
        if (seen.node !== undefined && input.forcedNodes.has(seen.node)) continue;
        const podlifts =
          input.removedByPodlift.has(seen.key) ||
          (seen.instanceId !== undefined && input.terminatedByPodlift(seen.instanceId));
        if (podlifts) voluntary.push(seen.key);
        else involuntary++;
      }
      if (voluntary.length === 0) continue;
      const need = budgetNeed(budget, selected, input.scaleOf);
      if (now.size + involuntary < need.desired)
        violations.push(
          `PodDisruptionBudget ${key}: podlift disrupted ${voluntary.join(', ')}, leaving ${now.size} healthy pod(s)` +
            `${involuntary > 0 ? ` (${involuntary} more lost involuntarily)` : ''} where ${need.rule} needs ${need.desired}`,
        );
    }
    this.healthy = next;
    return violations;
  }
}

/**
 * `namespace/name` of the pods a request log's entries evicted (POST `…/pods/{name}/eviction`
 * answered 201) or deleted (DELETE `…/pods/{name}` answered 200 or 202).
 */
export function podsRemovedBy(
  requests: readonly { method: string; path: string; status: number }[],
): Set<string> {
  const removed = new Set<string>();
  for (const r of requests) {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/eviction)?$/.exec(r.path);
    if (!m) continue;
    const evicted = m[3] !== undefined && r.method === 'POST' && r.status === 201;
    const deleted = m[3] === undefined && r.method === 'DELETE' && (r.status === 200 || r.status === 202);
    if (evicted || deleted) removed.add(`${m[1]}/${m[2]}`);
  }
  return removed;
}
