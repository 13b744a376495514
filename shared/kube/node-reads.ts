import type { NodeManifest } from '../core/manifests/kube-objects';
import { nodeFromManifest } from '../core/manifests/pod-manifest';
import type { Pod } from '../core/model/pod';
import type { ParsedList } from '../core/ports/cluster';
import type { StateNode } from '../core/state/cluster-state';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { NODES } from './kube-resources';
import { listAllPages } from './list-pages';
import { parseEach } from './parsed-list';
import { toPlainJson } from './plain-json';
import { readBoundPods } from './pod-reads';

/**
 * Every Node as the scheduler sees it (allocatable, labels, taints, cordoned or deleting), with
 * the pods bound to it that still hold capacity. Invalid nodes and pods are reported in
 * `invalid`; a node whose pods could not all be parsed is still returned with the others.
 */
export async function readNodes(api: KubeApi): Promise<ParsedList<StateNode>> {
  const core = await api.core();
  let nodes: NodeManifest[];
  try {
    const models = await listAllPages((cont, limit) =>
      core.listNode({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
    nodes = models.map((n) => toPlainJson(n) as NodeManifest);
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
  const parsed = parseEach(nodes, (node) =>
    nodeFromManifest(node, {}, byNode.get(node.metadata?.name ?? '') ?? []),
  );
  return { items: parsed.items, invalid: [...parsed.invalid, ...pods.invalid] };
}
