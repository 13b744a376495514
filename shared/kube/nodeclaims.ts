import type { Condition, NodeClaim, NodeClaimStatus } from '../core/model/nodeclaim';
import { semanticallyEqual } from '../core/model/semantic-equal';
import type { NewNodeClaim, NodeClaimStatusUpdate, ParsedList } from '../core/ports/cluster';
import type { Clock } from '../core/ports/time';
import { isApiNotFound, kubeError } from './api-errors';
import { setConditions } from './conditions';
import type { KubeApi } from './kube-api';
import { NODECLAIMS } from './kube-api';
import { newNodeClaimObject, nodeClaimFromObject, nodeClaimStatusObject } from './nodeclaim-manifest';
import { listCustom } from './nodepool-reads';
import type { KubeObjectJson } from './object-access';
import { parseEach } from './parsed-list';
import { retryOnConflict } from './retry-on-conflict';

/** Every NodeClaim (karpenter.sh/v1); ones that do not parse are reported in `invalid`. */
export async function readNodeClaims(api: KubeApi): Promise<ParsedList<NodeClaim>> {
  return parseEach(await listCustom(api, NODECLAIMS, 'listing NodeClaims'), 'NodeClaim', nodeClaimFromObject);
}

/**
 * NodeClaim `name`.
 * @throws NotFoundError when it does not exist; ValidationError when it does not parse.
 */
export async function readNodeClaim(api: KubeApi, name: string): Promise<NodeClaim> {
  return nodeClaimFromObject(await getNodeClaimObject(api, name));
}

/**
 * Creates a NodeClaim named `<nodePool>-<5 random characters>` by the API server (generateName),
 * labelled with its NodePool and carrying the termination finalizer. Returns it as stored.
 */
export async function createNodeClaim(api: KubeApi, claim: NewNodeClaim): Promise<NodeClaim> {
  const custom = await api.custom();
  try {
    const created: unknown = await custom.createClusterCustomObject({
      ...NODECLAIMS,
      body: newNodeClaimObject(claim),
    });
    return nodeClaimFromObject(created);
  } catch (error) {
    throw kubeError(
      error,
      `creating a NodeClaim for NodePool ${claim.nodePool}`,
      'nodeclaims.karpenter.sh',
      NODECLAIMS,
    );
  }
}

/**
 * Applies `update` to the status subresource of NodeClaim `name`: reads it, computes the new
 * status, and replaces `/status` with the resourceVersion read (409 → read again and re-apply,
 * so another writer's fields survive). Nothing is written when the status would not change.
 * Conditions get observedGeneration = metadata.generation. Returns the NodeClaim as stored.
 * @throws NotFoundError when it does not exist.
 */
export async function updateNodeClaimStatus(
  api: KubeApi,
  clock: Clock,
  name: string,
  update: NodeClaimStatusUpdate,
): Promise<NodeClaim> {
  const custom = await api.custom();
  const doing = `updating the status of NodeClaim ${name}`;
  try {
    const stored = await retryOnConflict(
      () => getNodeClaimObject(api, name),
      (current) => {
        const claim = nodeClaimFromObject(current);
        const status = nextStatus(claim.status, update, clock.now(), current.metadata?.generation);
        const manifest = { ...asRecord(current.status), ...nodeClaimStatusObject(status) };
        // Semantically: the API server returns the stored keys sorted, not in our order.
        if (semanticallyEqual(manifest, current.status ?? {})) return undefined;
        return { ...current, status: manifest };
      },
      async (next) =>
        (await custom.replaceClusterCustomObjectStatus({
          ...NODECLAIMS,
          name,
          body: next,
        })) as KubeObjectJson,
      { doing },
    );
    return nodeClaimFromObject(stored);
  } catch (error) {
    throw kubeError(error, doing, `NodeClaim ${name}`, NODECLAIMS);
  }
}

/**
 * Deletes NodeClaim `name`. Its termination finalizer keeps it (with a deletionTimestamp) until
 * podlift has drained and terminated its node. Returns false when it was already gone.
 */
export async function deleteNodeClaim(api: KubeApi, name: string): Promise<boolean> {
  const custom = await api.custom();
  try {
    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name });
    return true;
  } catch (error) {
    if (isApiNotFound(error)) return false;
    throw kubeError(error, `deleting NodeClaim ${name}`, `NodeClaim ${name}`, NODECLAIMS);
  }
}

async function getNodeClaimObject(api: KubeApi, name: string): Promise<KubeObjectJson> {
  const custom = await api.custom();
  try {
    return (await custom.getClusterCustomObject({ ...NODECLAIMS, name })) as KubeObjectJson;
  } catch (error) {
    throw kubeError(error, `reading NodeClaim ${name}`, `NodeClaim ${name}`, NODECLAIMS);
  }
}

function nextStatus(
  status: NodeClaimStatus,
  update: NodeClaimStatusUpdate,
  now: number,
  generation: number | undefined,
): NodeClaimStatus {
  const { conditions: updates, removeConditions, ...fields } = update;
  const removed = new Set(removeConditions ?? []);
  const kept = removed.size > 0 ? status.conditions?.filter((c) => !removed.has(c.type)) : status.conditions;
  const conditions: readonly Condition[] | undefined = updates
    ? setConditions(kept ?? [], updates, now, generation)
    : kept;
  return { ...status, ...fields, ...(conditions ? { conditions } : {}) };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
