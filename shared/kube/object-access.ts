import type { ObjectMeta } from '../core/manifests/kube-objects';
import type { KubeApi } from './kube-api';
import { MERGE_PATCH, NODECLAIMS } from './kube-api';
import type { KubeResource } from './kube-resources';
import { NODES } from './kube-resources';
import { toPlainJson } from './plain-json';

/** A stored object as the API's JSON, with the metadata podlift reads. */
export interface KubeObjectJson {
  readonly metadata?: ObjectMeta;
  readonly [field: string]: unknown;
}

/**
 * Read and merge-patch one named object, whatever client call it takes: lets finalizer and
 * taint changes be written once for Nodes and NodeClaims.
 */
export interface ObjectAccess {
  /** `Node ip-10-0-0-1`, `NodeClaim default-x7k2q`: for messages. */
  readonly description: string;
  /** The collection the object belongs to. */
  readonly resource: KubeResource;
  get(): Promise<KubeObjectJson>;
  /** A JSON merge patch; a `metadata.resourceVersion` in it makes it conditional (409 when stale). */
  mergePatch(patch: Record<string, unknown>): Promise<KubeObjectJson>;
}

/** A Node through CoreV1Api. */
export function nodeAccess(api: KubeApi, name: string): ObjectAccess {
  return {
    description: `Node ${name}`,
    resource: NODES,
    get: async () => toPlainJson(await (await api.core()).readNode({ name })) as KubeObjectJson,
    mergePatch: async (body) =>
      toPlainJson(await (await api.core()).patchNode({ name, body }, MERGE_PATCH)) as KubeObjectJson,
  };
}

/** A NodeClaim through CustomObjectsApi (which answers the object's JSON as `any`). */
export function nodeClaimAccess(api: KubeApi, name: string): ObjectAccess {
  return {
    description: `NodeClaim ${name}`,
    resource: NODECLAIMS,
    get: async () =>
      (await (await api.custom()).getClusterCustomObject({ ...NODECLAIMS, name })) as KubeObjectJson,
    mergePatch: async (body) =>
      (await (
        await api.custom()
      ).patchClusterCustomObject({ ...NODECLAIMS, name, body }, MERGE_PATCH)) as KubeObjectJson,
  };
}
