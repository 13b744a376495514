import type { Condition } from '../core/model/nodeclaim';
import { semanticallyEqual } from '../core/model/semantic-equal';
import type { NodePoolStatusUpdate } from '../core/ports/cluster';
import type { Clock } from '../core/ports/time';
import { kubeError } from './api-errors';
import { setConditions } from './conditions';
import type { KubeApi } from './kube-api';
import { NODEPOOLS } from './kube-api';
import { quantityStrings } from './nodeclaim-manifest';
import type { KubeObjectJson } from './object-access';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Writes a NodePool's status (resources in use, conditions) to its status subresource: reads
 * it, keeps each condition's lastTransitionTime unless its status changes (metav1 semantics),
 * and replaces `/status` at the resourceVersion read (409 → read again). Nothing is written
 * when nothing changed — compared semantically, since the API server returns the keys sorted
 * and quantities in whatever form was stored — so the once-a-minute run costs one read per
 * NodePool.
 * @throws NotFoundError when the NodePool is gone.
 */
export async function writeNodePoolStatus(
  api: KubeApi,
  clock: Clock,
  name: string,
  update: NodePoolStatusUpdate,
): Promise<void> {
  const custom = await api.custom();
  const doing = `writing the status of NodePool ${name}`;
  try {
    await retryOnConflict(
      async () => (await custom.getClusterCustomObject({ ...NODEPOOLS, name })) as KubeObjectJson,
      (current) => {
        const status = (current.status ?? {}) as { conditions?: Condition[]; resources?: unknown };
        const conditions = setConditions(
          status.conditions ?? [],
          update.conditions,
          clock.now(),
          current.metadata?.generation,
        );
        const next = { ...status, resources: quantityStrings(update.resources), conditions };
        if (semanticallyEqual(next, current.status ?? {})) return undefined;
        return { ...current, status: next };
      },
      async (next) =>
        (await custom.replaceClusterCustomObjectStatus({ ...NODEPOOLS, name, body: next })) as KubeObjectJson,
      { doing },
    );
  } catch (error) {
    throw kubeError(error, doing, `NodePool ${name}`, NODEPOOLS);
  }
}
