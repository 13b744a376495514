import { toStatusManifest } from '../core/model/ec2nodeclass-conditions';
import type { EC2NodeClassStatus } from '../core/model/ec2nodeclass-status';
import { NotFoundError } from '../core/model/errors';
import type { Condition } from '../core/model/nodeclaim';
import { semanticallyEqual } from '../core/model/semantic-equal';
import type { ConditionUpdate } from '../core/ports/cluster';
import type { Clock } from '../core/ports/time';
import { kubeError } from './api-errors';
import { setConditions } from './conditions';
import type { KubeApi } from './kube-api';
import { EC2NODECLASSES, MERGE_PATCH } from './kube-api';
import type { KubeObjectJson } from './object-access';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Writes `status` (in Karpenter's shape, see toStatusManifest) to the status subresource of EC2NodeClass `name` with one merge patch (the
 * lists are replaced whole; podlift is their only writer). Conditions are written as given:
 * their lastTransitionTime is the caller's (see buildNodeClassConditions).
 * @throws NotFoundError when the EC2NodeClass is gone; CloudError for other API failures.
 */
export async function writeEC2NodeClassStatus(
  api: KubeApi,
  name: string,
  status: EC2NodeClassStatus,
): Promise<void> {
  const custom = await api.custom();
  try {
    await custom.patchClusterCustomObjectStatus(
      { ...EC2NODECLASSES, name, body: { status: toStatusManifest(status) } },
      MERGE_PATCH,
    );
  } catch (error) {
    throw kubeError(
      error,
      `writing the status of EC2NodeClass ${name}`,
      `EC2NodeClass ${name}`,
      EC2NODECLASSES,
    );
  }
}

/**
 * Sets `updates` among the conditions of EC2NodeClass `name` (the others are kept; a condition's
 * lastTransitionTime only moves when its status changes) with a merge patch of `/status`
 * conditioned on the resourceVersion read (409 → read again); nothing is written when nothing
 * changed. For an EC2NodeClass that did not validate, which has no resolved status to write.
 * It reads with a `metadata.name` list and writes with a patch: the verbs the functions' role
 * already has for EC2NodeClasses (manifests/functions-rbac.yaml), no get and no update.
 * @throws NotFoundError when the EC2NodeClass is gone; CloudError for other API failures.
 */
export async function writeEC2NodeClassConditions(
  api: KubeApi,
  clock: Clock,
  name: string,
  updates: readonly ConditionUpdate[],
): Promise<void> {
  const custom = await api.custom();
  const doing = `writing the conditions of EC2NodeClass ${name}`;
  try {
    await retryOnConflict(
      async () => {
        const list = (await custom.listClusterCustomObject({
          ...EC2NODECLASSES,
          fieldSelector: `metadata.name=${name}`,
        })) as { items?: KubeObjectJson[] };
        const found = list.items?.[0];
        if (!found)
          throw new NotFoundError(`EC2NodeClass ${name}`, `${doing}: EC2NodeClass ${name} not found`);
        return found;
      },
      (current) => {
        const status = (current.status ?? {}) as { conditions?: Condition[] };
        const conditions = setConditions(
          status.conditions ?? [],
          updates,
          clock.now(),
          current.metadata?.generation,
        );
        const next = { ...status, conditions };
        if (semanticallyEqual(next, current.status ?? {})) return undefined;
        return { metadata: { resourceVersion: current.metadata?.resourceVersion }, status: { conditions } };
      },
      async (next) =>
        (await custom.patchClusterCustomObjectStatus(
          { ...EC2NODECLASSES, name, body: next },
          MERGE_PATCH,
        )) as KubeObjectJson,
      { doing },
    );
  } catch (error) {
    throw kubeError(error, doing, `EC2NodeClass ${name}`, EC2NODECLASSES);
  }
}
