import { toStatusManifest } from '../core/model/ec2nodeclass-conditions';
import type { EC2NodeClassStatus } from '../core/model/ec2nodeclass-status';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { EC2NODECLASSES, MERGE_PATCH } from './kube-api';

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
