import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClass, nodePool } from '../../../sim/world/builders';

/** The time the disruption tests' snapshots are taken at. */
export const T0 = Date.UTC(2026, 0, 1);
/** The bundled us-east-1 catalog the disruption tests plan replacements from. */
export const catalog = loadBundledCatalog('us-east-1');

/**
 * A snapshot of registered nodes and their NodeClaims, taken at {@link T0}, with the default
 * NodePool and EC2NodeClass and nothing else in the cluster; `more` replaces any field.
 */
export function snapshotOf(
  members: readonly (readonly [StateNode, NodeClaim])[],
  more: Partial<ClusterSnapshot> = {},
): ClusterSnapshot {
  return {
    now: T0,
    pendingPods: [],
    nodes: members.map(([n]) => n),
    nodeClaims: members.map(([, c]) => c),
    daemonSets: [],
    podDisruptionBudgets: [],
    nodePools: [nodePool()],
    nodeClasses: [nodeClass()],
    nodeClassStatus: new Map(),
    catalog,
    unavailableOfferings: new Set(),
    invalid: [],
    warnings: [],
    ...more,
  };
}
