import type { Taint } from '../core/model/taints';
import type { TaintChange } from '../core/ports/cluster';
import { isApiNotFound, kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { MERGE_PATCH } from './kube-api';
import { NODES } from './kube-resources';
import type { KubeObjectJson } from './object-access';
import { nodeAccess } from './object-access';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Changes node `name`'s taints, keeping every taint others put there (the kubelet's
 * `node.kubernetes.io/*`, a user's, cloud-node-lifecycle's). A merge patch replaces the whole
 * list, so it is conditional on the resourceVersion read and re-read on 409. No write when the
 * taints already are as wanted.
 * @throws NotFoundError when the node does not exist.
 */
export async function taintNode(api: KubeApi, name: string, change: TaintChange): Promise<void> {
  const access = nodeAccess(api, name);
  const doing = `tainting Node ${name}`;
  try {
    await retryOnConflict(
      () => access.get(),
      (current) => {
        const taints = currentTaints(current);
        const next = applyTaintChange(taints, change);
        if (JSON.stringify(next) === JSON.stringify(taints)) return undefined;
        return { spec: { taints: next }, metadata: { resourceVersion: current.metadata?.resourceVersion } };
      },
      (patch) => access.mergePatch(patch),
      { doing },
    );
  } catch (error) {
    throw kubeError(error, doing, `Node ${name}`, NODES);
  }
}

/** The taint list after `change`: removals first, then additions replace same key+effect in place. */
export function applyTaintChange(taints: readonly Taint[], change: TaintChange): Taint[] {
  const same = (a: Pick<Taint, 'key' | 'effect'>, b: Pick<Taint, 'key' | 'effect'>) =>
    a.key === b.key && a.effect === b.effect;
  let next = taints.filter((t) => !(change.remove ?? []).some((r) => same(r, t)));
  for (const taint of change.add ?? []) {
    const index = next.findIndex((t) => same(t, taint));
    if (index >= 0) next = next.map((t, i) => (i === index ? { ...t, ...taint } : t));
    else next = [...next, taint];
  }
  return next;
}

/**
 * Sets (string) or removes (null) labels on node `name` with one merge patch: maps merge key by
 * key on the server, so labels others set concurrently are kept without a precondition.
 * @throws NotFoundError when the node does not exist.
 */
export async function labelNode(
  api: KubeApi,
  name: string,
  labels: Readonly<Record<string, string | null>>,
): Promise<void> {
  const core = await api.core();
  try {
    await core.patchNode({ name, body: { metadata: { labels } } }, MERGE_PATCH);
  } catch (error) {
    throw kubeError(error, `labelling Node ${name}`, `Node ${name}`, NODES);
  }
}

/**
 * Deletes node `name`. Returns false when it was already gone (404 counts as success). With
 * finalizers the node only gets a deletionTimestamp until they are removed.
 */
export async function deleteNode(api: KubeApi, name: string): Promise<boolean> {
  const core = await api.core();
  try {
    await core.deleteNode({ name });
    return true;
  } catch (error) {
    if (isApiNotFound(error)) return false;
    throw kubeError(error, `deleting Node ${name}`, `Node ${name}`, NODES);
  }
}

function currentTaints(node: KubeObjectJson): Taint[] {
  const spec = node.spec as { taints?: Taint[] } | undefined;
  return spec?.taints ?? [];
}
