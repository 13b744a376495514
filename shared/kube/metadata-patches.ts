import type { MetadataPatch, PodRef } from '../core/ports/cluster';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { MERGE_PATCH, NODECLAIMS } from './kube-api';
import { NODES, PODS } from './kube-resources';

/**
 * Labels and annotations set (string) or removed (null) with one JSON merge patch, which keeps
 * everyone else's keys and needs no read first: the writes the provisioner records a launch and
 * a registration with, safe to repeat.
 */

/** Patches NodeClaim `name`'s labels and annotations. @throws NotFoundError when it is gone. */
export async function patchNodeClaimMetadata(
  api: KubeApi,
  name: string,
  patch: MetadataPatch,
): Promise<void> {
  const custom = await api.custom();
  try {
    await custom.patchClusterCustomObject({ ...NODECLAIMS, name, body: { metadata: patch } }, MERGE_PATCH);
  } catch (error) {
    throw kubeError(error, `labelling NodeClaim ${name}`, `NodeClaim ${name}`, NODECLAIMS);
  }
}

/** Patches Node `name`'s labels and annotations. @throws NotFoundError when it is gone. */
export async function patchNodeMetadata(api: KubeApi, name: string, patch: MetadataPatch): Promise<void> {
  const core = await api.core();
  try {
    await core.patchNode({ name, body: { metadata: patch } }, MERGE_PATCH);
  } catch (error) {
    throw kubeError(error, `labelling Node ${name}`, `Node ${name}`, NODES);
  }
}

/** Patches a pod's labels and annotations. @throws NotFoundError when it is gone. */
export async function patchPodMetadata(api: KubeApi, pod: PodRef, patch: MetadataPatch): Promise<void> {
  const core = await api.core();
  const what = `pod ${pod.namespace}/${pod.name}`;
  try {
    await core.patchNamespacedPod(
      { name: pod.name, namespace: pod.namespace, body: { metadata: patch } },
      MERGE_PATCH,
    );
  } catch (error) {
    throw kubeError(error, `annotating ${what}`, what, PODS);
  }
}
