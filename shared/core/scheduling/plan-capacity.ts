import type { Catalog, InstanceType } from '../catalog/instance-type';
import { resolveInstanceTypes } from '../catalog/instance-type-resolution';
import { withReservedOfferings } from '../catalog/reserved-offerings';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { ResolvedCapacityReservation } from '../model/ec2nodeclass-status';
import type { NodePool } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { ExistingCapacityBase } from './existing-capacity';
import { schedule } from './scheduler';
import type { ProvisioningInput, SchedulingInput, SchedulingResult } from './types';

/** Settings of {@link planCapacity} beyond the cluster's state. */
export interface PlanCapacityOptions {
  /**
   * Offerings recently found without capacity (keys from `offeringKey`): kept in the
   * instance types but marked unavailable, so the scheduler passes them over.
   * @default none
   */
  readonly unavailableOfferings?: ReadonlySet<string>;
  /**
   * Each EC2NodeClass's resolved capacity reservations (see `reservationsByNodeClass`): its
   * NodePools' instance types get a `reserved` offering per reservation.
   * @default none
   */
  readonly reservations?: ReadonlyMap<string, readonly ResolvedCapacityReservation[]>;
}

/**
 * Each NodePool's instance types, resolved from the catalog for its EC2NodeClass (allocatable
 * depends on the node class's kubelet settings and volumes). A NodePool whose EC2NodeClass is
 * missing gets none, so it launches nothing and the scheduler says why.
 */
export function instanceTypesByNodePool(
  nodePools: readonly NodePool[],
  nodeClasses: readonly EC2NodeClass[],
  catalog: Catalog,
  options: PlanCapacityOptions = {},
): Map<string, readonly InstanceType[]> {
  const byName = new Map(nodeClasses.map((c) => [c.name, c]));
  const instanceTypes = new Map<string, readonly InstanceType[]>();
  for (const pool of nodePools) {
    const nodeClass = byName.get(pool.template.nodeClassRef.name);
    if (!nodeClass) continue;
    // resolveInstanceTypes is memoised: NodePools sharing a node class share one array.
    const types = resolveInstanceTypes(catalog, nodeClass, options.unavailableOfferings);
    instanceTypes.set(
      pool.name,
      withReservedOfferings(types, options.reservations?.get(nodeClass.name), options.unavailableOfferings),
    );
  }
  return instanceTypes;
}

/** The scheduler's input for the cluster's state: `input` plus each NodePool's instance types. */
export function schedulingInputFor(
  input: ProvisioningInput,
  catalog: Catalog,
  options: PlanCapacityOptions = {},
): SchedulingInput {
  return {
    pods: input.pods,
    daemonSets: input.daemonSets,
    nodes: input.nodes,
    nodePools: input.nodePools,
    nodeClasses: input.nodeClasses,
    instanceTypes: instanceTypesByNodePool(input.nodePools, input.nodeClasses, catalog, options),
  };
}

/**
 * The provisioning use case: plans capacity for the pending pods of a cluster state from an
 * instance type catalog. Resolves each NodePool's instance types ({@link schedulingInputFor})
 * and runs the scheduler. Every caller that plans goes through it (`podlift plan`, the
 * benchmarks, the provisioner, the simulator), so they cannot drift apart. Pure: a function
 * of its arguments.
 */
export function planCapacity(
  input: ProvisioningInput,
  catalog: Catalog,
  options: PlanCapacityOptions = {},
): SchedulingResult {
  return schedule(schedulingInputFor(input, catalog, options));
}

/** No node left out. */
const NO_NODES: ReadonlySet<string> = new Set();

/**
 * {@link planCapacity} for many runs over one cluster state that differ only in the pods to place
 * and the nodes left out, as a disruption decision simulates removing one set of candidates
 * after another. The existing capacity (every node's pods' requests and free room) and the
 * instance types are worked out once, here; each {@link plan} schedules on a view of them
 * that copies what it changes, so runs neither see nor disturb one another, and each plan is
 * the one `planCapacity` gives for the same pods on the nodes that stay.
 *
 * Karpenter builds a whole scheduler per simulation (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/helpers.go `SimulateScheduling` → provisioning/provisioner.go
 * `NewScheduler` → scheduling/scheduler.go `NewScheduler`, one `NewExistingNode` per state node
 * that is not a candidate); the plans are the same, the shared base is podlift's.
 */
export class CapacityPlanner {
  private readonly existing: ExistingCapacityBase;
  private readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;

  /** `state.pods` is not used: each {@link plan} names its own pods. */
  constructor(
    private readonly state: Omit<ProvisioningInput, 'pods'>,
    catalog: Catalog,
    options: PlanCapacityOptions = {},
  ) {
    this.existing = new ExistingCapacityBase(state.nodes);
    this.instanceTypes = instanceTypesByNodePool(state.nodePools, state.nodeClasses, catalog, options);
  }

  /**
   * `planCapacity` of `pods` on the state's nodes less those named in `without`; of those, the
   * ones also named in `stillCounted` still count against their NodePools' limits.
   */
  plan(
    pods: readonly Pod[],
    without: ReadonlySet<string> = NO_NODES,
    stillCounted: ReadonlySet<string> = NO_NODES,
  ): SchedulingResult {
    return schedule(
      {
        pods,
        daemonSets: this.state.daemonSets,
        nodes: this.state.nodes.filter((n) => !without.has(n.name)),
        nodePools: this.state.nodePools,
        nodeClasses: this.state.nodeClasses,
        instanceTypes: this.instanceTypes,
        countedInLimits: this.state.nodes.filter((n) => stillCounted.has(n.name) && without.has(n.name)),
      },
      this.existing.without(without),
    );
  }
}
