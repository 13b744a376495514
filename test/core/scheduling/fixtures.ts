import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import type { InstanceType } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from '../../../shared/core/model/labels';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import { addInto, type MutableResources, type Resources } from '../../../shared/core/model/resources';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import type { DaemonSet, StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClass, stateNode } from '../../../sim/world/builders';

/**
 * Shared fixtures for the scheduler tests: the bundled us-east-1 catalog resolved for the
 * default EC2NodeClass, and builders for scheduling inputs and existing nodes made from real
 * instance types.
 */

export const catalog = loadBundledCatalog('us-east-1');
export const defaultNodeClass: EC2NodeClass = nodeClass();
/** Every instance type of the bundled us-east-1 catalog, all offerings available. */
export const instanceTypes: readonly InstanceType[] = resolveInstanceTypes(catalog, defaultNodeClass);
export const typesByName: ReadonlyMap<string, InstanceType> = new Map(
  instanceTypes.map((it) => [it.name, it]),
);

/** The resolved instance type called `name`; throws when the catalog has none. */
export function instanceType(name: string): InstanceType {
  const it = typesByName.get(name);
  if (!it) throw new Error(`instance type ${name} is not in the bundled us-east-1 catalog`);
  return it;
}

/** Options of {@link schedulingInput}. */
export interface SchedulingInputOptions {
  readonly pods?: readonly Pod[];
  readonly daemonSets?: readonly DaemonSet[];
  readonly nodes?: readonly StateNode[];
  readonly nodePools?: readonly NodePool[];
  /** Instance types per NodePool name; default: the whole catalog for every NodePool. */
  readonly instanceTypes?: ReadonlyMap<string, readonly InstanceType[]>;
}

/** A scheduling input with the default EC2NodeClass and the whole catalog for every NodePool. */
export function schedulingInput(options: SchedulingInputOptions = {}): SchedulingInput {
  const nodePools = options.nodePools ?? [];
  return {
    pods: options.pods ?? [],
    daemonSets: options.daemonSets ?? [],
    nodes: options.nodes ?? [],
    nodePools,
    nodeClasses: [defaultNodeClass],
    instanceTypes: options.instanceTypes ?? new Map(nodePools.map((np) => [np.name, instanceTypes])),
  };
}

/** A DaemonSet running `pod` on every node it tolerates and selects. */
export function daemonSet(name: string, p: Pod): DaemonSet {
  return { namespace: p.namespace, name, pod: p };
}

/** Options of {@link realNode}. */
export interface RealNodeOptions {
  readonly name: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly nodePool?: NodePool;
  readonly kind?: StateNode['kind'];
  readonly capacityType?: 'spot' | 'on-demand';
  readonly pods?: readonly Pod[];
  readonly unschedulable?: boolean;
  /** Extra labels, on top of the well-known ones. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * An existing node (or in-flight NodeClaim) of a real instance type: its allocatable and
 * capacity, every single-valued label of the type plus zone, capacity type and hostname, and
 * when it belongs to a NodePool that pool's labels and taints.
 */
export function realNode(options: RealNodeOptions): StateNode {
  const it = instanceType(options.instanceType);
  const np = options.nodePool;
  const labels = {
    ...it.requirements.labels(),
    [LABEL_ZONE]: options.zone,
    [LABEL_CAPACITY_TYPE]: options.capacityType ?? 'on-demand',
    [LABEL_HOSTNAME]: options.name,
    ...(np
      ? { ...np.template.labels, [LABEL_NODEPOOL]: np.name, [LABEL_NODECLASS]: np.template.nodeClassRef.name }
      : {}),
    ...options.labels,
  };
  const node = stateNode({
    kind: options.kind ?? 'node',
    name: options.name,
    labels,
    taints: np?.template.taints ?? [],
    pods: options.pods ?? [],
    ...(np ? { nodePool: np.name } : {}),
    ...(options.unschedulable !== undefined ? { unschedulable: options.unschedulable } : {}),
  });
  return { ...node, allocatable: it.allocatable, capacity: it.capacity };
}

/** The sum of the pods' requests. */
export function sumRequests(ps: readonly Pod[]): MutableResources {
  const out: MutableResources = {};
  for (const p of ps) addInto(out, p.requests);
  return out;
}

/** `a` without zero entries, so vectors that differ only by explicit zeros compare equal. */
export function nonZero(a: Resources): Record<string, number> {
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== 0));
}
