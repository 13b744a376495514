import type { Catalog, InstanceType } from '../catalog/instance-type';
import { resolveInstanceTypes } from '../catalog/instance-type-resolution';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { NodePool } from '../model/nodepool';
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
    instanceTypes.set(pool.name, resolveInstanceTypes(catalog, nodeClass, options.unavailableOfferings));
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
