import { parseEC2NodeClass } from '../core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../core/manifests/nodepool-schema';
import type { Condition } from '../core/model/nodeclaim';
import type { NodePool } from '../core/model/nodepool';
import type { EC2NodeClassList, ParsedList } from '../core/ports/cluster';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { EC2NODECLASSES, NODEPOOLS } from './kube-api';
import type { KubeResource } from './kube-resources';
import type { ListPage } from './list-pages';
import { listAllPages } from './list-pages';
import { parseEach } from './parsed-list';

/**
 * NodePools and EC2NodeClasses from their CRDs, validated by the core parsers. An object the
 * parser rejects (a field the CRD would have refused, a Karpenter feature podlift does not
 * support) is reported in `invalid` with its name and field; the others are still returned.
 */

/** Every NodePool (karpenter.sh/v1). */
export async function readNodePools(api: KubeApi): Promise<ParsedList<NodePool>> {
  const objects = await listCustom(api, NODEPOOLS, 'listing NodePools');
  return parseEach(objects, 'NodePool', (o) => parseNodePool(o, { source: 'cluster' }));
}

/** Every EC2NodeClass (karpenter.k8s.aws/v1). */
export async function readEC2NodeClasses(api: KubeApi): Promise<EC2NodeClassList> {
  const objects = await listCustom(api, EC2NODECLASSES, 'listing EC2NodeClasses');
  const conditions = new Map<string, readonly Condition[]>();
  for (const o of objects) {
    const name = (o as { metadata?: { name?: unknown } }).metadata?.name;
    const status = (o as { status?: { conditions?: unknown } }).status;
    if (typeof name === 'string' && Array.isArray(status?.conditions)) {
      conditions.set(name, status.conditions as Condition[]);
    }
  }
  const parsed = parseEach(objects, 'EC2NodeClass', (o) => parseEC2NodeClass(o, { source: 'cluster' }));
  return { ...parsed, conditions };
}

/** Every object of a cluster-scoped custom resource, as the API's JSON. */
export async function listCustom(api: KubeApi, resource: KubeResource, doing: string): Promise<unknown[]> {
  const custom = await api.custom();
  try {
    return await listAllPages(
      async (cont, limit) =>
        // CustomObjectsApi answers `any`: the list's JSON as the server sent it.
        (await custom.listClusterCustomObject({
          group: resource.group,
          version: resource.version,
          plural: resource.plural,
          limit,
          ...(cont ? { _continue: cont } : {}),
        })) as ListPage<unknown>,
    );
  } catch (error) {
    throw kubeError(error, doing, `${resource.plural}.${resource.group}`, resource);
  }
}
