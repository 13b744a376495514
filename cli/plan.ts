import type { Catalog, InstanceType } from '../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../shared/core/catalog/instance-type-resolution';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import { schedule } from '../shared/core/scheduling/scheduler';
import type { SchedulingResult } from '../shared/core/scheduling/types';
import type { PlanInput } from './plan-input';

/**
 * Plans capacity for the input's pending pods: resolves each NodePool's instance types for its
 * EC2NodeClass from the catalog and runs the scheduler. A NodePool whose EC2NodeClass is
 * missing gets no instance types, so it launches nothing and the scheduler gives the reason.
 */
export function planCapacity(input: PlanInput, catalog: Catalog): SchedulingResult {
  const nodeClasses = new Map(input.nodeClasses.map((c) => [c.name, c]));
  const resolved = new Map<EC2NodeClass, readonly InstanceType[]>();
  const instanceTypes = new Map<string, readonly InstanceType[]>();
  for (const pool of input.nodePools) {
    const nodeClass = nodeClasses.get(pool.template.nodeClassRef.name);
    if (!nodeClass) continue;
    let types = resolved.get(nodeClass);
    if (!types) {
      types = resolveInstanceTypes(catalog, nodeClass);
      resolved.set(nodeClass, types);
    }
    instanceTypes.set(pool.name, types);
  }
  return schedule({
    pods: input.pods,
    daemonSets: input.daemonSets,
    nodes: input.nodes,
    nodePools: input.nodePools,
    nodeClasses: input.nodeClasses,
    instanceTypes,
  });
}
