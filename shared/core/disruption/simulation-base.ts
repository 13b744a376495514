import type { Catalog } from '../catalog/instance-type';
import { CapacityPlanner } from '../scheduling/plan-capacity';
import type { ClusterSnapshot } from '../state/cluster-snapshot';
import { schedulingCapacity } from '../state/cluster-snapshot';
import type { StateNode } from '../state/cluster-state';

/**
 * What every disruption simulation over one snapshot starts from, worked out once per snapshot:
 * the scheduler's capacity (every Node and in-flight NodeClaim, methods.ts leaves the candidates
 * out of each run) and which of it is not initialized yet (NodeClaims not launched included).
 */
export interface SimulationBase {
  readonly planner: CapacityPlanner;
  /** Names of the capacity nodes whose NodeClaim is not Initialized (in flight or still starting). */
  readonly uninitialized: ReadonlySet<string>;
}

/**
 * One per snapshot object: a decision (decide.ts) simulates on one snapshot (`besideCommandsInFlight`
 * of the cluster) up to a hundred and more times — drift's replacements, multi-node
 * consolidation's binary search, single-node consolidation's candidates — and a snapshot is
 * never changed, so what was worked out for it holds for all of them.
 */
const bases = new WeakMap<ClusterSnapshot, SimulationBase>();

/** The {@link SimulationBase} of a snapshot, built on first use; `catalog` is the snapshot's own. */
export function simulationBase(snapshot: ClusterSnapshot, catalog: Catalog): SimulationBase {
  let base = bases.get(snapshot);
  if (!base) {
    const nodes = schedulingCapacity(snapshot);
    base = {
      planner: new CapacityPlanner(
        {
          daemonSets: snapshot.daemonSets,
          nodes,
          nodePools: snapshot.nodePools,
          nodeClasses: snapshot.nodeClasses,
        },
        catalog,
        { unavailableOfferings: snapshot.unavailableOfferings },
      ),
      uninitialized: uninitializedCapacity(snapshot, nodes),
    };
    bases.set(snapshot, base);
  }
  return base;
}

function uninitializedCapacity(snapshot: ClusterSnapshot, nodes: readonly StateNode[]): Set<string> {
  // A NodeClaim whose launch is not recorded is capacity sized from its spec
  // (schedulingCapacity): it is not initialized either, and may never launch.
  const starting = new Set(
    snapshot.nodeClaims
      .filter((c) => !c.status.conditions?.some((k) => k.type === 'Initialized' && k.status === 'True'))
      .map((c) => c.status.providerID),
  );
  return new Set(
    nodes
      .filter(
        (n) =>
          n.launchRequirements !== undefined || (n.providerID !== undefined && starting.has(n.providerID)),
      )
      .map((n) => n.name),
  );
}
