import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { LABEL_ZONE } from '../core/model/labels';
import type { NodeSelectorTerm, Pod } from '../core/model/pod';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { PERSISTENT_VOLUMES } from './kube-resources';
import { listAllPages } from './list-pages';

/**
 * Zonal volumes: a pod whose claim is bound to an EBS volume can only run in that volume's zone,
 * which the PersistentVolume states in its required node affinity. The scheduler does not read
 * volumes, so the adapter turns the zones into one more node-affinity requirement on the pod.
 */

/**
 * Labels that name a zone in PV node affinity or labels, normalised to topology.kubernetes.io/zone
 * as Karpenter's AWS provider does (the EBS CSI driver's own key, the deprecated beta label).
 */
export const ZONE_KEYS: ReadonlySet<string> = new Set([
  LABEL_ZONE,
  'topology.ebs.csi.aws.com/zone',
  'failure-domain.beta.kubernetes.io/zone',
]);

/**
 * The zones a PersistentVolume may be used from, or undefined when it does not restrict zones.
 * Required node-affinity terms are ORed: the union of what each term allows; a term without a
 * zone `In` expression allows every zone. Volumes without node affinity fall back to their zone
 * labels (in-tree volumes; multi-zone values are joined with `__`).
 */
export function persistentVolumeZones(pv: V1PersistentVolume): readonly string[] | undefined {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (terms && terms.length > 0) {
    const zones = new Set<string>();
    for (const term of terms) {
      let allowed: Set<string> | undefined;
      for (const e of term.matchExpressions ?? []) {
        if (!ZONE_KEYS.has(e.key) || e.operator !== 'In') continue;
        const values = new Set(e.values ?? []);
        allowed = allowed ? new Set([...allowed].filter((z) => values.has(z))) : values;
      }
      if (!allowed) return undefined;
      for (const zone of allowed) zones.add(zone);
    }
    return [...zones].sort();
  }
  for (const key of ZONE_KEYS) {
    const label = pv.metadata?.labels?.[key];
    if (label) return label.split('__').sort();
  }
  return undefined;
}

/**
 * The zones each pod may run in because of the volumes bound to its claims: `claims` maps
 * `namespace/name` of a pod to its claim names; the answer has an entry only for pods at least
 * one bound volume restricts (the intersection over its volumes; empty = no zone satisfies all).
 * Unbound claims (WaitForFirstConsumer) and missing claims or volumes restrict nothing.
 */
export async function readVolumeZones(
  api: KubeApi,
  claims: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, readonly string[]>> {
  const result = new Map<string, readonly string[]>();
  if (claims.size === 0) return result;
  const core = await api.core();
  let pvcs: V1PersistentVolumeClaim[];
  let pvs: V1PersistentVolume[];
  try {
    pvcs = await listAllPages((cont, limit) =>
      core.listPersistentVolumeClaimForAllNamespaces({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
    pvs = await listAllPages((cont, limit) =>
      core.listPersistentVolume({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
  } catch (error) {
    throw kubeError(
      error,
      'listing PersistentVolumeClaims and PersistentVolumes',
      'persistentvolumes',
      PERSISTENT_VOLUMES,
    );
  }
  const volumeOfClaim = new Map(
    pvcs.map((c) => [`${c.metadata?.namespace ?? 'default'}/${c.metadata?.name ?? ''}`, c.spec?.volumeName]),
  );
  const volumes = new Map(pvs.map((pv) => [pv.metadata?.name ?? '', pv]));
  for (const [pod, names] of claims) {
    const namespace = pod.slice(0, pod.indexOf('/'));
    let zones: Set<string> | undefined;
    for (const claim of names) {
      const volumeName = volumeOfClaim.get(`${namespace}/${claim}`);
      const volume = volumeName ? volumes.get(volumeName) : undefined;
      const allowed = volume ? persistentVolumeZones(volume) : undefined;
      if (!allowed) continue;
      zones = zones ? new Set(allowed.filter((z) => zones?.has(z))) : new Set(allowed);
    }
    if (zones) result.set(pod, [...zones].sort());
  }
  return result;
}

/**
 * `pod` restricted to `zones`: a `topology.kubernetes.io/zone In zones` requirement ANDed into
 * every required node-affinity term (or the only term when it had none). With no zones left the
 * requirement selects nothing, so the scheduler reports the pod unschedulable.
 */
export function withVolumeZones(pod: Pod, zones: readonly string[]): Pod {
  const requirement = { key: LABEL_ZONE, operator: 'In' as const, values: [...zones] };
  const terms: readonly NodeSelectorTerm[] = pod.requiredNodeAffinity ?? [{ matchExpressions: [] }];
  return {
    ...pod,
    requiredNodeAffinity: terms.map((t) => ({ matchExpressions: [...t.matchExpressions, requirement] })),
  };
}
