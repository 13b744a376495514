import type { NodeManifest } from '../core/manifests/kube-objects';
import { nodeFromManifest } from '../core/manifests/node-manifest';
import type { Pod } from '../core/model/pod';
import type { ParsedList } from '../core/ports/cluster';
import type { StateNode } from '../core/state/cluster-state';
import { kubeError } from './api-errors';
import { listJsonPage } from './json-list';
import type { KubeApi } from './kube-api';
import { NODES } from './kube-resources';
import { listAllPages, pageQuery } from './list-pages';
import { parseEach } from './parsed-list';
import { readBoundPods } from './pod-reads';

/**
 * Every Node as the scheduler sees it (allocatable, labels, taints, cordoned or deleting), with
 * the pods bound to it that still hold capacity. Invalid nodes and pods are reported in
 * `invalid`; a node whose pods could not all be parsed is still returned with the others.
 */
export async function readNodes(api: KubeApi): Promise<ParsedList<StateNode>> {
  const config = await api.config();
  let nodes: NodeManifest[];
  try {
    nodes = await listAllPages((cont, limit) =>
      listJsonPage<NodeManifest>(config, '/api/v1/nodes', pageQuery(cont, limit)),
    );
  } catch (error) {
    throw kubeError(error, 'listing nodes', 'nodes', NODES);
  }
  const pods = await readBoundPods(api);
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods.items) {
    if (pod.nodeName === undefined) continue;
    const list = byNode.get(pod.nodeName) ?? [];
    list.push(pod);
    byNode.set(pod.nodeName, list);
  }
  const parsed = parseEach(nodes, 'Node', (node) =>
    nodeFromManifest(node, {}, byNode.get(node.metadata?.name ?? '') ?? []),
  );
  return { items: parsed.items, invalid: [...parsed.invalid, ...pods.invalid] };
}
