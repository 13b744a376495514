import type { Pod } from '../model/pod';
import { CPU, MEMORY, type Resources } from '../model/resources';

/**
 * Pods that are identical in scheduling terms: same namespace, labels, requests, selectors,
 * affinities, tolerations, spread constraints and priority. The scheduler decides per group,
 * so its cost grows with the number of distinct pod shapes rather than the number of pods.
 */
export interface PodGroup {
  readonly key: string;
  /** The first pod of the group; every member has the same scheduling fields. */
  readonly representative: Pod;
  readonly pods: readonly Pod[];
  readonly requests: Resources;
}

function schedulingKey(pod: Pod): string {
  return JSON.stringify([
    pod.namespace,
    pod.labels,
    pod.requests,
    pod.nodeSelector,
    pod.requiredNodeAffinity ?? null,
    pod.preferredNodeAffinity,
    pod.tolerations,
    pod.topologySpread,
    pod.podAffinity,
    pod.podAntiAffinity,
    pod.preferredPodAffinity,
    pod.preferredPodAntiAffinity,
    pod.priority,
  ]);
}

/**
 * Groups pods by scheduling key and orders the groups the way first-fit-decreasing packs
 * best: higher priority first, then pods with hard placement constraints, then larger pods
 * (cpu, then memory) first. Ties keep input order, so results are deterministic.
 */
export function groupPods(pods: readonly Pod[]): PodGroup[] {
  const byKey = new Map<string, Pod[]>();
  for (const pod of pods) {
    const key = schedulingKey(pod);
    const list = byKey.get(key);
    if (list) list.push(pod);
    else byKey.set(key, [pod]);
  }
  const groups: PodGroup[] = [];
  for (const [key, members] of byKey) {
    groups.push({ key, representative: members[0], pods: members, requests: members[0].requests });
  }
  const constrained = (p: Pod) =>
    p.podAffinity.length + p.podAntiAffinity.length + p.topologySpread.length > 0 ? 1 : 0;
  return groups
    .map((g, index) => ({ g, index }))
    .sort(
      (a, b) =>
        b.g.representative.priority - a.g.representative.priority ||
        constrained(b.g.representative) - constrained(a.g.representative) ||
        (b.g.requests[CPU] ?? 0) - (a.g.requests[CPU] ?? 0) ||
        (b.g.requests[MEMORY] ?? 0) - (a.g.requests[MEMORY] ?? 0) ||
        a.index - b.index,
    )
    .map(({ g }) => g);
}
