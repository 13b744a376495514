import type { EC2NodeClassStatus } from '../core/ec2nodeclass-status';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { EC2NODECLASSES, MERGE_PATCH } from './kube-api';

/**
 * `.status` of an EC2NodeClass in Karpenter's shape, so `kubectl get ec2nodeclass -o yaml`
 * shows what it resolved to: subnets `{id, zone, zoneID}`, securityGroups `{id, name}`,
 * amis `{id, name, requirements, deprecated}`, instanceProfile, conditions.
 */
export function ec2NodeClassStatusManifest(status: EC2NodeClassStatus): Record<string, unknown> {
  return {
    subnets: status.subnets.map((s) => ({
      id: s.id,
      zone: s.zone,
      ...(s.zoneID ? { zoneID: s.zoneID } : {}),
    })),
    securityGroups: status.securityGroups.map((g) => ({ id: g.id, ...(g.name ? { name: g.name } : {}) })),
    amis: status.amis.map((a) => ({
      id: a.id,
      ...(a.name ? { name: a.name } : {}),
      requirements: a.requirements.map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [] })),
      ...(a.deprecated ? { deprecated: true } : {}),
    })),
    // null removes a profile that no longer resolves (merge patch semantics).
    instanceProfile: status.instanceProfile ?? null,
    conditions: status.conditions.map((c) => ({ ...c })),
  };
}

/**
 * Writes `status` to the status subresource of EC2NodeClass `name` with one merge patch (the
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
      { ...EC2NODECLASSES, name, body: { status: ec2NodeClassStatusManifest(status) } },
      MERGE_PATCH,
    );
  } catch (error) {
    throw kubeError(error, `writing the status of EC2NodeClass ${name}`, `EC2NodeClass ${name}`);
  }
}
