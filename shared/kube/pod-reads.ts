import type { PodManifest } from '../core/manifests/kube-objects';
import { podFromManifest } from '../core/manifests/pod-manifest';
import type { Pod } from '../core/model/pod';
import { podKey } from '../core/model/pod';
import type { ParsedList } from '../core/ports/cluster';
import { kubeError } from './api-errors';
import { listJsonPage } from './json-list';
import type { KubeApi } from './kube-api';
import { PODS } from './kube-resources';
import { listAllPages, pageQuery } from './list-pages';
import { parseEach } from './parsed-list';
import type { PendingPodOptions } from './pending-pods';
import { isProvisionablePod, PENDING_POD_FIELD_SELECTOR, podClaimNames } from './pending-pods';

/** Pending pods, and the PersistentVolumeClaims each mounts (for zonal volume constraints). */
export interface PendingPods extends ParsedList<Pod> {
  /** `namespace/name` → claim names, for pods that mount any. */
  readonly claims: ReadonlyMap<string, readonly string[]>;
}

/** Field selector of pods that hold capacity on a node: bound and not finished. */
const BOUND_POD_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

/**
 * Every pod podlift should find capacity for (see {@link isProvisionablePod}), across all
 * namespaces, read in pages of unbound Pending pods and filtered on their conditions.
 */
export async function readPendingPods(api: KubeApi, options: PendingPodOptions = {}): Promise<PendingPods> {
  const manifests = (await listPods(api, PENDING_POD_FIELD_SELECTOR, 'listing pending pods')).filter((p) =>
    isProvisionablePod(p, options),
  );
  const parsed = parseEach(manifests, 'Pod', parsePod);
  const claims = new Map<string, readonly string[]>();
  for (const manifest of manifests) {
    const names = podClaimNames(manifest);
    if (names.length > 0) claims.set(podKey(manifestKey(manifest)), names);
  }
  return { ...parsed, claims };
}

/** The pods bound to node `nodeName` that still hold capacity there (not Succeeded or Failed). */
export async function readPodsOnNode(api: KubeApi, nodeName: string): Promise<ParsedList<Pod>> {
  const selector = `spec.nodeName=${escapeFieldValue(nodeName)},status.phase!=Succeeded,status.phase!=Failed`;
  return parseEach(await listPods(api, selector, `listing pods on Node ${nodeName}`), 'Pod', parsePod);
}

/** Every pod bound to some node that still holds capacity there, across all namespaces. */
export async function readBoundPods(api: KubeApi): Promise<ParsedList<Pod>> {
  return parseEach(await listPods(api, BOUND_POD_FIELD_SELECTOR, 'listing bound pods'), 'Pod', parsePod);
}

async function listPods(api: KubeApi, fieldSelector: string, doing: string): Promise<PodManifest[]> {
  const config = await api.config();
  try {
    return await listAllPages((cont, limit) =>
      listJsonPage<PodManifest>(config, '/api/v1/pods', { fieldSelector, ...pageQuery(cont, limit) }),
    );
  } catch (error) {
    throw kubeError(error, doing, 'pods', PODS);
  }
}

/**
 * The core pod of `manifest`, with what only a running pod has: its start time
 * (do-not-disrupt durations) and the claims it mounts (the volumes its drain waits for).
 */
function parsePod(manifest: PodManifest): Pod {
  const { namespace, name } = manifestKey(manifest);
  const pod = podFromManifest(manifest, { object: `Pod/${namespace}/${name}` });
  const startTime = manifest.status?.startTime;
  const claims = podClaimNames(manifest);
  return {
    ...pod,
    ...(typeof startTime === 'string' ? { startTime } : {}),
    ...(claims.length > 0 ? { volumeClaims: claims } : {}),
  };
}

function manifestKey(manifest: PodManifest): { namespace: string; name: string } {
  return { namespace: manifest.metadata?.namespace ?? 'default', name: manifest.metadata?.name ?? '' };
}

/** Field selector values escape `\`, `,` and `=` with a backslash (fields.EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}
